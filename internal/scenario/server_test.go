package scenario

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestServerSection checks the server section's defaults, its hash and its
// validation, each case a scenario file's text after the minimal one.
func TestServerSection(t *testing.T) {
	base, err := Parse("a.yaml", []byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		extra   string
		err     string // substring of the error; "" for none
		path    string // the error's path
		same    bool   // hashes as the minimal scenario
		wantCPU time.Duration
	}{
		{name: "absent", extra: "", same: true},
		{name: "mode none only", extra: "server: {mode: none}\n", same: true},
		{name: "empty section", extra: "server: {}\n", same: true},
		{name: "single-thread defaults", extra: "store: {kind: memory}\nserver: {mode: single-thread}\n", wantCPU: 1100 * time.Microsecond},
		{name: "single-thread set", extra: "store: {kind: memory}\nserver: {mode: single-thread, cpu: {before_read: 2ms}}\n", wantCPU: 2 * time.Millisecond},
		{name: "unknown mode", extra: "server: {mode: threads}\n", err: `"threads" is unknown: use one of none, single-thread`, path: "server.mode"},
		{name: "none with cpu", extra: "server: {mode: none, cpu: {between: 1ms}}\n", err: "sets cpu, rtt, wake, proxy, send or stall but server.mode is none", path: "server"},
		{name: "wrong store", extra: "server: {mode: single-thread}\n", err: "runs on store.kind memory, not kv; set store.kind: memory", path: "server.mode"},
		{name: "proxy", extra: "store: {kind: memory}\nserver: {mode: single-thread, proxy: {cpu_in: 1ms, cpu_out: 2ms}}\n", wantCPU: 1100 * time.Microsecond},
		{name: "proxy without cpu_out", extra: "store: {kind: memory}\nserver: {mode: single-thread, proxy: {cpu_in: 1ms}}\n", err: "is missing: give the proxy's thread time per request", path: "server.proxy.cpu_out"},
		{name: "proxy under mode none", extra: "server: {mode: none, proxy: {cpu_in: 1ms, cpu_out: 1ms}}\n", err: "sets cpu, rtt, wake, proxy, send or stall but server.mode is none", path: "server"},
		{name: "wake", extra: "store: {kind: memory}\nserver: {mode: single-thread, wake: {dist: lognormal, median: 100us, p99: 2ms}}\n", wantCPU: 1100 * time.Microsecond},
		{name: "wake under mode none", extra: "server: {mode: none, wake: 1ms}\n", err: "sets cpu, rtt, wake, proxy, send or stall but server.mode is none", path: "server"},
		{name: "negative wake", extra: "store: {kind: memory}\nserver: {mode: single-thread, wake: -1ms}\n", err: "negative", path: "server.wake"},
		{name: "send", extra: "store: {kind: memory}\nserver: {mode: single-thread, send: {first: 300us, next: 50us}}\n", wantCPU: 1100 * time.Microsecond},
		{name: "send without next", extra: "store: {kind: memory}\nserver: {mode: single-thread, send: {first: 300us}}\n", err: "is missing: give both of server.send", path: "server.send.next"},
		{name: "send under mode none", extra: "server: {mode: none, send: {first: 1ms, next: 1ms}}\n", err: "sets cpu, rtt, wake, proxy, send or stall but server.mode is none", path: "server"},
		{name: "negative send", extra: "store: {kind: memory}\nserver: {mode: single-thread, send: {first: -1ms, next: 1ms}}\n", err: "negative", path: "server.send.first"},
		{name: "stall", extra: "store: {kind: memory}\nserver: {mode: single-thread, stall: {every: {dist: exponential, mean: 250ms}, lasts: 30ms}}\n", wantCPU: 1100 * time.Microsecond},
		{name: "stall without lasts", extra: "store: {kind: memory}\nserver: {mode: single-thread, stall: {every: 250ms}}\n", err: "is missing: give both of server.stall", path: "server.stall.lasts"},
		{name: "stalls too often", extra: "store: {kind: memory}\nserver: {mode: single-thread, stall: {every: 10us, lasts: 30ms}}\n", err: "below 1ms", path: "server.stall.every"},
		{name: "negative cpu", extra: "store: {kind: memory}\nserver: {mode: single-thread, cpu: {after_write: -1ms}}\n", err: "negative", path: "server.cpu.after_write"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse("a.yaml", []byte(minimal+tc.extra))
			if tc.err != "" {
				var se *Error
				if !errors.As(err, &se) {
					t.Fatalf("error %v, want an *Error containing %q", err, tc.err)
				}
				if !strings.Contains(se.Msg, tc.err) || se.Path != tc.path {
					t.Errorf("error %q at %q, want %q at %q", se.Msg, se.Path, tc.err, tc.path)
				}
				if se.Line == 0 {
					t.Errorf("error %v has no line", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Hash() == base.Hash(); got != tc.same {
				t.Errorf("same hash as without server = %v, want %v\n%s", got, tc.same, s.Canonical())
			}
			if tc.wantCPU == 0 {
				if s.Server != nil {
					t.Errorf("server = %+v, want nil (mode none)", s.Server)
				}
				return
			}
			if s.Server == nil || s.Server.Mode != ServerSingleThread {
				t.Fatalf("server = %+v, want mode single-thread", s.Server)
			}
			if got := s.Server.CPU.BeforeRead.MeanDuration(); got != tc.wantCPU {
				t.Errorf("cpu.before_read = %v, want %v", got, tc.wantCPU)
			}
			if s.Server.RTT.IsZero() || s.Server.CPU.AfterWrite.IsZero() || s.Server.CPU.Between.IsZero() {
				t.Errorf("unfilled defaults: %+v", s.Server)
			}
		})
	}
}

// TestServerOverride checks that -set reaches the server section and a
// sweep can vary it.
func TestServerOverride(t *testing.T) {
	s, err := Parse("a.yaml", []byte(minimal+"store: {kind: memory}\n"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.With("server.mode=single-thread", "server.cpu.between=3ms")
	if err != nil {
		t.Fatal(err)
	}
	if w.Server == nil || w.Server.CPU.Between.MeanDuration() != 3*time.Millisecond {
		t.Errorf("server = %+v, want between 3ms", w.Server)
	}
}
