package attack

import (
	"math"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// schedule replays a pacer the way vegeta's attack loop does (wait, then
// hit) on a virtual clock, and returns the send times of the first n hits
// before end.
func schedule(p vegeta.Pacer, n int, end time.Duration) []time.Duration {
	var out []time.Duration
	var now time.Duration
	for len(out) < n {
		wait, stop := p.Pace(now, uint64(len(out)))
		if stop {
			break
		}
		now += wait
		if now > end {
			break
		}
		out = append(out, now)
	}
	return out
}

func TestConstantFractionalRate(t *testing.T) {
	got := schedule(newConstant(2.5), 100, 4*time.Second) // one every 400 ms
	want := []time.Duration{400 * time.Millisecond, 800 * time.Millisecond, 1200 * time.Millisecond}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("hit %d at %v, want %v", i, got[i], w)
		}
	}
	if len(got) != 10 {
		t.Errorf("%d hits in 4 s at 2.5/s, want 10", len(got))
	}
	if r := newConstant(2.5).Rate(0); math.Abs(r-2.5) > 1e-9 {
		t.Errorf("rate %v", r)
	}
	if _, stop := newConstant(0).Pace(0, 0); !stop {
		t.Errorf("a zero rate must send nothing, not flood")
	}
}

func TestPoisson(t *testing.T) {
	a := schedule(newPoisson(100, 7), 20000, time.Hour)
	b := schedule(newPoisson(100, 7), 20000, time.Hour)
	c := schedule(newPoisson(100, 8), 10, time.Hour)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed, different schedules at %d", i)
		}
		if i > 0 && a[i] < a[i-1] {
			t.Fatalf("arrivals go back in time at %d", i)
		}
	}
	if a[0] == c[0] && a[1] == c[1] {
		t.Errorf("different seeds, same schedule")
	}
	// 20000 arrivals at 100/s take about 200 s (sd ~1.4 s).
	if got := a[len(a)-1].Seconds(); got < 190 || got > 210 {
		t.Errorf("20000 arrivals took %.1f s, want about 200", got)
	}
	// Exponential gaps: the coefficient of variation is about 1.
	var sum, sq float64
	for i := 1; i < len(a); i++ {
		g := (a[i] - a[i-1]).Seconds()
		sum += g
		sq += g * g
	}
	n := float64(len(a) - 1)
	mean := sum / n
	cv := math.Sqrt(sq/n-mean*mean) / mean
	if cv < 0.95 || cv > 1.05 {
		t.Errorf("gap coefficient of variation %.3f, want about 1 (exponential)", cv)
	}
	p := newPoisson(100, 7)
	if p.Rate(time.Minute) != 100 {
		t.Errorf("rate %v", p.Rate(0))
	}
	// hitsBy counts the arrivals the seeded schedule really has by then,
	// not the rate times the time; asked in any order.
	for _, at := range []time.Duration{2 * time.Second, 7300 * time.Millisecond, 0, a[0], a[99], time.Second} {
		want := 0
		for _, x := range a {
			if x <= at {
				want++
			}
		}
		if got := p.hitsBy(at); got != float64(want) {
			t.Errorf("hitsBy(%v) = %v, want the %d arrivals scheduled by then", at, got, want)
		}
	}
}

func TestRamp(t *testing.T) {
	r := newRamp(10, 30, 2*time.Second) // 40 hits over the ramp, then 30/s
	if got := r.hitsBy(2 * time.Second); math.Abs(got-40) > 1e-9 {
		t.Errorf("hitsBy(ramp end) = %v, want 40", got)
	}
	if got := r.hitsBy(3 * time.Second); math.Abs(got-70) > 1e-9 {
		t.Errorf("hitsBy(3s) = %v, want 70", got)
	}
	got := schedule(r, 1000, 3*time.Second)
	if n := len(got); n < 68 || n > 72 {
		t.Errorf("%d hits in 3 s, want about 70", n)
	}
	if r.Rate(time.Second) != 20 || r.Rate(time.Hour) != 30 {
		t.Errorf("rates %v %v", r.Rate(time.Second), r.Rate(time.Hour))
	}
	from0 := schedule(newRamp(0, 20, 2*time.Second), 1000, 2*time.Second)
	if n := len(from0); n < 19 || n > 21 || from0[0] == 0 {
		t.Errorf("ramp from 0: %d hits in 2 s starting at %v, want about 20 and not a flood at 0", n, from0)
	}
}

func TestBurst(t *testing.T) {
	got := schedule(newBurst(3, 100*time.Millisecond, time.Second, 0), 100, 2500*time.Millisecond)
	want := []time.Duration{100, 100, 100, 1100, 1100, 1100, 2100, 2100, 2100}
	if len(got) != len(want) {
		t.Fatalf("hits %v, want %v ms", got, want)
	}
	for i := range want {
		if got[i] != want[i]*time.Millisecond {
			t.Errorf("hit %d at %v, want %vms", i, got[i], want[i])
		}
	}
	once := schedule(newBurst(4, 0, 0, 0), 100, time.Hour)
	if len(once) != 4 {
		t.Errorf("a single burst of 4 sent %d", len(once))
	}
	if h := newBurst(3, 100*time.Millisecond, time.Second, 0).hitsBy(2500 * time.Millisecond); h != 9 {
		t.Errorf("hitsBy = %v, want 9", h)
	}
	// Spread over 300 ms, a burst of 3 leaves at 0, 100 and 200 ms into it.
	spread := schedule(newBurst(3, 100*time.Millisecond, time.Second, 300*time.Millisecond), 6, time.Hour)
	wantSpread := []time.Duration{100, 200, 300, 1100, 1200, 1300}
	for i := range wantSpread {
		if i >= len(spread) || spread[i] != wantSpread[i]*time.Millisecond {
			t.Fatalf("spread burst hits %v, want %v ms", spread, wantSpread)
		}
	}
	// hitsBy counts only the hits of a spread burst that have left.
	sb := newBurst(3, 100*time.Millisecond, time.Second, 300*time.Millisecond)
	for _, tc := range []struct {
		at   time.Duration
		want float64
	}{{50, 0}, {100, 1}, {250, 2}, {300, 3}, {1000, 3}, {1150, 4}, {1350, 6}} {
		if h := sb.hitsBy(tc.at * time.Millisecond); h != tc.want {
			t.Errorf("spread hitsBy(%vms) = %v, want %v", int64(tc.at), h, tc.want)
		}
	}
}
