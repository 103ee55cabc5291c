package kvemucmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/kvemu"
)

// runMain runs the command with args and returns its exit status, stdout and
// stderr. Only arguments that make it stop before serving belong here.
func runMain(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestHelpExits0WithUsage(t *testing.T) {
	for _, arg := range []string{"-h", "-help", "--help"} {
		code, stdout, stderr := runMain(t, arg)
		if code != ExitOK {
			t.Errorf("%s: exit %d, want %d", arg, code, ExitOK)
		}
		if !strings.HasPrefix(stderr, "usage: kvemu [flags]") || !strings.Contains(stderr, "-addr host:port") || !strings.Contains(stderr, "Exit status") {
			t.Errorf("%s: stderr is not the usage with the flags: %q", arg, stderr)
		}
		if stdout != "" {
			t.Errorf("%s: stdout %q, want nothing (usage goes to stderr, as simulate's)", arg, stdout)
		}
	}
}

func TestBadInputExits2(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"unknown flag", []string{"-frobnicate"}, "flag provided but not defined: -frobnicate"},
		{"bad number", []string{"-daily-writes", "many"}, `invalid value "many" for flag -daily-writes`},
		{"negative quota", []string{"-daily-reads", "-1"}, "-daily-reads -1"},
		{"arguments", []string{"serve"}, `unexpected arguments ["serve"]`},
		{"all interfaces", []string{"-addr", ":8787"}, `kvemu: -addr: address ":8787" is not a loopback address`},
		{"another machine", []string{"-addr", "10.0.0.1:8787"}, "use 127.0.0.1, ::1 or localhost"},
		{"no port", []string{"-addr", "127.0.0.1"}, "is not host:port"},
		{"port out of range", []string{"-addr", "127.0.0.1:99999"}, `port "99999" is not a number from 0 to 65535`},
		{"port by name", []string{"-addr", "127.0.0.1:http"}, `port "http" is not a number`},
		{"empty namespace", []string{"-namespace", "a,,b"}, `namespace ID ""`},
		{"empty account", []string{"-account", ""}, `account ID ""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runMain(t, tt.args...)
			if code != ExitBadInput {
				t.Errorf("exit %d, want %d; stderr: %s", code, ExitBadInput, stderr)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q does not say %q", stderr, tt.want)
			}
			if stdout != "" {
				t.Errorf("stdout not empty on bad input: %q", stdout)
			}
		})
	}
}

func TestFlags(t *testing.T) {
	var stderr bytes.Buffer
	c, err := parseFlags([]string{"-addr", "[::1]:0", "-account", "acct", "-namespace", "n1,n2", "-token", "tok",
		"-daily-writes", "1000", "-daily-reads", "100000", "-quiet"}, io.Discard, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	want := config{addr: "[::1]:0", account: "acct", namespaces: []string{"n1", "n2"}, token: "tok", dailyWrites: 1000, dailyReads: 100000, quiet: true}
	if c.addr != want.addr || c.account != want.account || strings.Join(c.namespaces, ",") != "n1,n2" || c.token != want.token ||
		c.dailyWrites != want.dailyWrites || c.dailyReads != want.dailyReads || c.quiet != want.quiet {
		t.Errorf("config %+v, want %+v", *c, want)
	}
	d, err := parseFlags(nil, io.Discard, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if d.addr != "127.0.0.1:8787" || !strings.HasPrefix(d.token, "kvemu-") || len(d.token) != len("kvemu-")+32 {
		t.Errorf("defaults: addr %q, token %q: want 127.0.0.1:8787 and a random kvemu-<32 hex> token", d.addr, d.token)
	}
}

// syncBuffer is a bytes.Buffer safe for the server's goroutines to log into.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServes starts the emulator on a free loopback port, writes and reads
// a key through it, stops it and checks what it printed and logged.
func TestServes(t *testing.T) {
	c, err := parseFlags([]string{"-addr", "127.0.0.1:0", "-account", "acct", "-namespace", "ns", "-token", "tok-secret"}, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	emu, err := kvemu.New(kvemu.Config{AccountID: c.account, Token: c.token, Namespaces: c.namespaces})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, c, emu, &stdout, &stderr, func(base string) {
			defer cancel()
			send := func(method, key, body string) (int, string) {
				req, _ := http.NewRequest(method, base+"accounts/acct/storage/kv/namespaces/ns/values/"+key+"?expiration_ttl=60", strings.NewReader(body))
				req.Header.Set("Authorization", "bearer tok-secret")
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Errorf("%s %s: %v", method, key, err)
					return 0, ""
				}
				defer res.Body.Close()
				b, _ := io.ReadAll(res.Body)
				return res.StatusCode, string(b)
			}
			if code, body := send(http.MethodPut, "k", "41"); code != 200 {
				t.Errorf("put: %d %s", code, body)
			}
			if code, body := send(http.MethodGet, "k", ""); code != 200 || body != "41" {
				t.Errorf("get: %d %q, want 200 \"41\"", code, body)
			}
			// A key with a bad percent-escape, which Go's client refuses to send.
			conn, err := net.Dial("tcp", strings.TrimPrefix(strings.TrimSuffix(base, kvemu.Prefix), "http://"))
			if err != nil {
				t.Errorf("dial: %v", err)
				return
			}
			defer conn.Close()
			fmt.Fprintf(conn, "GET %saccounts/acct/storage/kv/namespaces/ns/values/a%%zz HTTP/1.1\r\nHost: x\r\n\r\n", kvemu.Prefix)
			if raw, _ := io.ReadAll(conn); !bytes.HasPrefix(raw, []byte("HTTP/1.1 400 ")) || !bytes.Contains(raw, []byte(`"success":false`)) {
				t.Errorf("bad escape: answer %q, want 400 and an envelope", raw)
			}
		})
	}()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	out := stdout.String()
	for _, want := range []string{"base URL:     http://127.0.0.1:", "account ID:   acct", "namespace ID: ns", "token:        tok-secret",
		"stopped after 1 reads, 1 writes, 0 deletes, 0 rate-limited writes, 0 other refusals"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout does not say %q:\n%s", want, out)
		}
	}
	log := stderr.String()
	if !strings.Contains(log, "PUT /client/v4/accounts/acct/storage/kv/namespaces/ns/values/k?expiration_ttl=60 -> 200") ||
		!strings.Contains(log, "GET /client/v4/accounts/acct/storage/kv/namespaces/ns/values/k?expiration_ttl=60 -> 200") {
		t.Errorf("the log does not show the put and the get:\n%s", log)
	}
	if strings.Contains(log, "tok-secret") {
		t.Errorf("the log shows the token:\n%s", log)
	}
}

func TestPortInUseExits1(t *testing.T) {
	c, err := parseFlags([]string{"-addr", "127.0.0.1:0", "-token", "t"}, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	emu, err := kvemu.New(kvemu.Config{AccountID: c.account, Token: c.token, Namespaces: c.namespaces})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, c, emu, io.Discard, io.Discard, func(base string) {
			defer cancel()
			addr := strings.TrimSuffix(strings.TrimPrefix(base, "http://"), kvemu.Prefix)
			code, _, stderr := runMain(t, "-addr", addr)
			if code != ExitFailure || !strings.Contains(stderr, "cannot listen on "+addr) || !strings.Contains(stderr, "pick another -addr") {
				t.Errorf("a second kvemu on %s: exit %d, stderr %q: want %d and a message naming the address", addr, code, stderr, ExitFailure)
			}
		})
	}()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
}
