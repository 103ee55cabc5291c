package calibrate

import (
	"math"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// TestRunLoss checks which figures each kind of fit matches: a fit of
// the serving side matches the requests per second, and the p99 latency
// only when it fits the threads' stalls (which make the live p99), any
// other spread fit the p99 and not the rate; a spread is matched only when
// fitted.
func TestRunLoss(t *testing.T) {
	measured := target{ratio: 3.4, latencyP50: 4.6, latencyP99: 50, allowedP50: 12, readGroup: 7, rate: 1242, spread: 0.06, repeats: 3}
	ln2sq := math.Ln2 * math.Ln2
	tests := []struct {
		name           string
		change         func(*target)
		spread, server bool
		stalls         bool
		want           float64
	}{
		{"the same", func(*target) {}, true, true, false, 0},
		{"ratio x2", func(p *target) { p.ratio *= 2 }, false, false, false, ln2sq},
		{"p50 x2", func(p *target) { p.latencyP50 *= 2 }, false, true, false, ln2sq},
		{"allowed p50 x2", func(p *target) { p.allowedP50 *= 2 }, false, false, false, ln2sq},
		{"read group x2", func(p *target) { p.readGroup *= 2 }, true, true, false, ln2sq},
		{"rate x2, serving side", func(p *target) { p.rate *= 2 }, true, true, false, ln2sq},
		{"rate x2, a store", func(p *target) { p.rate *= 2 }, true, false, false, 0},
		{"p99 x2, serving side", func(p *target) { p.latencyP99 *= 2 }, true, true, false, 0},
		{"p99 x2, serving side with stalls", func(p *target) { p.latencyP99 *= 2 }, true, true, true, ln2sq},
		{"p99 x2, a store's spread", func(p *target) { p.latencyP99 *= 2 }, true, false, false, ln2sq},
		{"p99 x2, no spread fitted", func(p *target) { p.latencyP99 *= 2 }, false, false, false, 0},
		{"a point against a spread", func(p *target) { p.spread = 0 }, true, true, false, spreadErr(0, 0.06)},
		{"a point, no spread fitted", func(p *target) { p.spread = 0 }, false, true, false, 0},
	}
	for _, tc := range tests {
		p := measured
		tc.change(&p)
		if got := runLoss(p, measured, tc.spread, tc.server, tc.stalls); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: runLoss = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestTargetRate: a live run's target has its achieved rate, over all its
// repeats, and so has each repeat's.
func TestTargetRate(t *testing.T) {
	m := &measure.Summary{Live: &measure.Live{AchievedRate: 1242},
		Repeats: &measure.Repeats{Runs: []measure.RepeatRun{{MaxRatio: 3.4}, {MaxRatio: 3.6}}}}
	for _, i := range []int{-1, 0, 1} {
		if got := targetOf(m, i).rate; got != 1242 {
			t.Errorf("targetOf(m, %d).rate = %v, want the run's achieved rate 1242", i, got)
		}
	}
}

// TestFitsServer: a fit matches the requests per second (fitsServer) when
// it scales a thread's throughput: the serving side's latencies, or a
// redis store's host time per command or request; not the round trip or
// the lag alone, and not a spread of the host's times alone.
func TestFitsServer(t *testing.T) {
	tests := []struct {
		name   string
		params []Param
		want   bool
	}{
		{"the serving side", []Param{{Leaves: []string{"server.rtt"}}}, true},
		{"the redis round trip", []Param{{Leaves: []string{"store.redis.latency"}}}, false},
		{"the redis host per command", []Param{{Leaves: []string{"store.redis.latency"}}, {Leaves: []string{"store.redis.service"}}}, true},
		{"the redis host per request", []Param{{Leaves: []string{"store.redis.request_service"}}}, true},
		{"a spread of the redis host only", []Param{{spread: true, Leaves: []string{"store.redis.latency", "store.redis.service"}}}, false},
		{"a kv store", []Param{{Leaves: []string{"store.kv.write"}}}, false},
	}
	for _, tc := range tests {
		f := &Fitter{Params: tc.params}
		if got := f.fitsServer(); got != tc.want {
			t.Errorf("%s: fitsServer = %v, want %v", tc.name, got, tc.want)
		}
	}
}
