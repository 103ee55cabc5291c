package faults

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/plan"
)

// call is one call a fake target took: what, for how long, when.
type call struct {
	what string
	d    time.Duration
	at   time.Duration
}

// fake records the calls it takes, from start; KillPrimary takes killFor.
type fake struct {
	mu      sync.Mutex
	start   time.Time
	calls   []call
	killFor time.Duration
	err     error
}

func (f *fake) note(d time.Duration, format string, args ...any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call{fmt.Sprintf(format, args...), d, time.Since(f.start)})
	return f.err
}

func (f *fake) KillPrimary() error {
	time.Sleep(f.killFor)
	return f.note(0, "kill")
}
func (f *fake) Pause(node string, d time.Duration) error { return f.note(d, "pause %s", node) }
func (f *fake) LinkLatency(node string, l, j, d time.Duration) error {
	return f.note(d, "latency %s %v %v", node, l, j)
}
func (f *fake) Partition(node string, d time.Duration) error { return f.note(d, "partition %s", node) }

const ms = time.Millisecond

// late is how late a call may come: the machine may be loaded (tests share
// two cores), so only "not before its time" is tight.
const late = 500 * ms

// TestRun checks that each fault is applied at its time with what it says:
// its For, or to the run's end; latencies divided by the time scale; a
// fault due while a kill waits for its promotion applied just after it.
func TestRun(t *testing.T) {
	tests := []struct {
		name   string
		faults []plan.Fault
		scale  float64
		kill   time.Duration
		want   []call // at: when it is due; d: how long it lasts
	}{
		{"each kind at its time", []plan.Fault{
			{At: 0, Kind: plan.LinkLatency, Target: plan.TargetReplicas, Latency: 200 * ms, Jitter: 20 * ms, For: 100 * ms},
			{At: 50 * ms, Kind: plan.Pause, Target: 1, For: 30 * ms},
			{At: 100 * ms, Kind: plan.KillPrimary, Target: plan.TargetPrimary},
			{At: 150 * ms, Kind: plan.Partition, Target: plan.TargetPrimary},
		}, 1, 0, []call{
			{"latency replicas 200ms 20ms", 100 * ms, 0},
			{"pause replica-2", 30 * ms, 50 * ms},
			{"kill", 0, 100 * ms},
			{"partition primary", 150 * ms, 150 * ms}, // to the end of the 300ms run
		}},
		{"time scale divides latencies, not times", []plan.Fault{
			{At: 40 * ms, Kind: plan.LinkLatency, Target: 0, Latency: 200 * ms, Jitter: 100 * ms, For: 60 * ms},
		}, 4, 0, []call{{"latency replica-1 50ms 25ms", 60 * ms, 40 * ms}}},
		{"a fault due during a kill's wait follows it", []plan.Fault{
			{At: 0, Kind: plan.KillPrimary, Target: plan.TargetPrimary},
			{At: 20 * ms, Kind: plan.Pause, Target: plan.TargetPrimary, For: 10 * ms},
		}, 1, 100 * ms, []call{{"kill", 0, 100 * ms}, {"pause primary", 10 * ms, 100 * ms}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now().Add(20 * ms)
			f := &fake{start: start, killFor: tc.kill}
			got := Run(context.Background(), tc.faults, start, 300*ms, tc.scale, f)
			if len(f.calls) != len(tc.want) || len(got) != len(tc.faults) {
				t.Fatalf("calls %+v, applied %v; want %+v", f.calls, got, tc.want)
			}
			for i, w := range tc.want {
				c := f.calls[i]
				if c.what != w.what || c.at < w.at || c.at > w.at+late || c.d > w.d || c.d < w.d-late {
					t.Errorf("call %d: %q for %v at %v, want %q for %v at %v (up to %v late)", i, c.what, c.d, c.at, w.what, w.d, w.at, late)
				}
			}
			for i, a := range got {
				if a.Err != nil || a.At < tc.faults[i].At {
					t.Errorf("applied %v: want no error, not before %v", a, tc.faults[i].At)
				}
			}
		})
	}
}

// TestRunEndsWithContext checks that the faults not yet due when the run
// ends are reported as not applied, and that a target's error is reported
// without stopping the rest.
func TestRunEndsWithContext(t *testing.T) {
	start := time.Now()
	f := &fake{start: start, err: errors.New("no sentinel named the primary")}
	ctx, cancel := context.WithTimeout(context.Background(), late)
	defer cancel()
	got := Run(ctx, []plan.Fault{
		{At: 0, Kind: plan.Partition, Target: plan.TargetPrimary, For: 10 * ms},
		{At: 10 * ms, Kind: plan.Pause, Target: 0, For: 10 * ms},
		{At: 5 * time.Second, Kind: plan.KillPrimary, Target: plan.TargetPrimary},
	}, start, 10*time.Second, 1, f)
	if took := time.Since(start); took > late+time.Second {
		t.Errorf("Run returned after %v, want soon after its context ended", took)
	}
	if len(got) != 3 || len(f.calls) != 2 {
		t.Fatalf("applied %v, calls %v; want 3 reported, 2 made", got, f.calls)
	}
	for i, want := range [][2]string{{"partition on primary at ", ": no sentinel named the primary"}, {"pause on replica-1 at ", ": no sentinel named the primary"},
		{"kill-primary on primary, due at 5s", ": not applied: the run ended first"}} {
		if s := got[i].String(); !strings.HasPrefix(s, want[0]) || !strings.HasSuffix(s, want[1]) {
			t.Errorf("fault %d: %q, want %q ... %q", i, s, want[0], want[1])
		}
	}
}
