package attack

import (
	"fmt"
	"math"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/overshoot-dev/overshoot/internal/plan"
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

// openPop compiles one open-loop population.
func openPop(t *testing.T, loop string, clients int) *plan.Population {
	t.Helper()
	pl := livePlan(t, parse(t, fmt.Sprintf(`
name: p
limiter: {name: t, limit: 5, window: 1s}
traffic: [{name: p, clients: %d, open_loop: %s}]
live: {duration: 1h}
`, clients, loop)))
	return &pl.Populations[0]
}

// TestArrivalPacer: the live runner sends an open loop's hits when the
// model sends them: the first at the start, hit m at m/rate (2.5/s: every
// 400 ms), the clients together, and a ramp by its cumulative rate.
func TestArrivalPacer(t *testing.T) {
	p := newArrivals(openPop(t, "{rate: 2.5/s}", 1))
	got := schedule(p, 100, 4*time.Second-time.Nanosecond)
	want := []time.Duration{0, 400 * time.Millisecond, 800 * time.Millisecond}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("hit %d at %v, want %v", i, got[i], w)
		}
	}
	if len(got) != 10 || math.Abs(p.Rate(0)-2.5) > 1e-9 || p.hitsBy(4*time.Second) != 10 {
		t.Errorf("%d hits in 4 s at 2.5/s (rate %v, hitsBy %v), want 10", len(got), p.Rate(0), p.hitsBy(4*time.Second))
	}
	// Four clients at 1/s each: out of phase, 250 ms apart together.
	four := schedule(newArrivals(openPop(t, "{rate: 1/s}", 4)), 5, time.Hour)
	for i, at := range four {
		if at != time.Duration(i)*250*time.Millisecond {
			t.Errorf("four clients: hit %d at %v, want %v", i, at, time.Duration(i)*250*time.Millisecond)
		}
	}
	r := newArrivals(openPop(t, "{rate: 10/s, ramp: {to: 30/s, over: 2s}}", 1)) // 40 hits over the ramp, then 30/s
	if got := r.hitsBy(2 * time.Second); math.Abs(got-40) > 1e-9 {
		t.Errorf("hitsBy(ramp end) = %v, want 40", got)
	}
	if got := r.hitsBy(3 * time.Second); math.Abs(got-70) > 1e-9 {
		t.Errorf("hitsBy(3s) = %v, want 70", got)
	}
	if n := len(schedule(r, 1000, 3*time.Second-time.Nanosecond)); n != 70 {
		t.Errorf("%d hits in 3 s, want 70", n)
	}
	if r.Rate(time.Second) != 20 || r.Rate(time.Hour) != 30 {
		t.Errorf("rates %v %v", r.Rate(time.Second), r.Rate(time.Hour))
	}
}

// burstPop compiles one bursting population for a live run of an hour.
func burstPop(t *testing.T, burst string, clients int) *plan.Population {
	t.Helper()
	pl := livePlan(t, parse(t, fmt.Sprintf(`
name: p
limiter: {name: t, limit: 5, window: 1s}
traffic: [{name: p, clients: %d, burst: %s}]
live: {duration: 1h}
`, clients, burst)))
	return &pl.Populations[0]
}

func TestPoisson(t *testing.T) {
	pop := openPop(t, "{rate: 25/s, poisson: true}", 4) // 100/s together
	a := schedule(newPoisson(pop, plan.NewStream(7, 0)), 20000, time.Hour)
	b := schedule(newPoisson(pop, plan.NewStream(7, 0)), 20000, time.Hour)
	c := schedule(newPoisson(pop, plan.NewStream(8, 0)), 10, time.Hour)
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
	p := newPoisson(pop, plan.NewStream(7, 0))
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

func TestBurst(t *testing.T) {
	got := schedule(newBurst(burstPop(t, "{size: 3, at: 100ms, every: 1s}", 1)), 100, 2500*time.Millisecond)
	want := []time.Duration{100, 100, 100, 1100, 1100, 1100, 2100, 2100, 2100}
	if len(got) != len(want) {
		t.Fatalf("hits %v, want %v ms", got, want)
	}
	for i := range want {
		if got[i] != want[i]*time.Millisecond {
			t.Errorf("hit %d at %v, want %vms", i, got[i], want[i])
		}
	}
	once := schedule(newBurst(burstPop(t, "{size: 2}", 2)), 100, time.Hour)
	if len(once) != 4 {
		t.Errorf("a single burst of 4 sent %d", len(once))
	}
	if h := newBurst(burstPop(t, "{size: 3, at: 100ms, every: 1s}", 1)).hitsBy(2500 * time.Millisecond); h != 9 {
		t.Errorf("hitsBy = %v, want 9", h)
	}
	// Spread over 300 ms, a burst of 3 leaves at 0, 100 and 200 ms into it.
	spread := schedule(newBurst(burstPop(t, "{size: 3, at: 100ms, every: 1s, spread: 300ms}", 1)), 6, time.Hour)
	wantSpread := []time.Duration{100, 200, 300, 1100, 1200, 1300}
	for i := range wantSpread {
		if i >= len(spread) || spread[i] != wantSpread[i]*time.Millisecond {
			t.Fatalf("spread burst hits %v, want %v ms", spread, wantSpread)
		}
	}
	// hitsBy counts only the hits of a spread burst that have left.
	sb := newBurst(burstPop(t, "{size: 3, at: 100ms, every: 1s, spread: 300ms}", 1))
	for _, tc := range []struct {
		at   time.Duration
		want float64
	}{{50, 0}, {100, 1}, {250, 2}, {300, 3}, {1000, 3}, {1150, 4}, {1350, 6}} {
		if h := sb.hitsBy(tc.at * time.Millisecond); h != tc.want {
			t.Errorf("spread hitsBy(%vms) = %v, want %v", int64(tc.at), h, tc.want)
		}
	}
}
