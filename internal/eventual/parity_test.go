package eventual

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/fakeclock"
	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/model"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
	"github.com/overshoot-dev/overshoot/internal/target"
)

// parity is what one closed-loop client's run measured, per request: how
// many got each decision, the latency of each decision (ms), and the
// store's work.
type parity struct {
	decided [measure.NumDecisions]int64
	latency [measure.NumDecisions]measure.LogHist
	kv      measure.KVCounters
}

// liveParity runs the built-in target over the eventual store on a
// virtual clock: one client of pl's first population sends its next
// request when the last is answered, as the model's closed loop does with
// think 0, until pl's duration is over. Each request's latency is what the
// target asked its store to sleep for it.
func liveParity(t *testing.T, pl *plan.Plan, seed uint64) parity {
	t.Helper()
	clock := fakeclock.New(pl.Start)
	var slept time.Duration
	s, err := New(Options{KV: pl.Store.KV, Locations: pl.Locations, Seed: seed, Start: pl.Start, Now: clock.Now, Counts: pl.Limiter.Algorithm.Counts(),
		Sleep: func(_ context.Context, d time.Duration) error { slept += d; clock.Advance(d); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	lim, err := limiter.New(pl.Limiter)
	if err != nil {
		t.Fatal(err)
	}
	h, err := target.New(target.Config{Limiter: lim, Store: s, Key: pl.Key, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	p := &pl.Populations[0]
	var out parity
	for n := int64(0); clock.Now().Sub(pl.Start) < pl.Duration; n++ {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Header.Set("X-Anon-Token", p.Token(0, n))
		req.Header.Set("CF-Connecting-IP", p.IP(0, n))
		rec := httptest.NewRecorder()
		slept = 0
		h.ServeHTTP(rec, req)
		if got, want := rec.Header().Get(target.HeaderStore), strconv.FormatInt(slept.Microseconds(), 10); got != want {
			t.Fatalf("request %d: %s %q, want %s (what it slept)", n, target.HeaderStore, got, want)
		}
		if clock.Now().Sub(pl.Start) >= pl.Duration {
			break // answered after the end: the model records no latency for it
		}
		d := measure.DecidedDenied
		switch {
		case rec.Code == http.StatusOK && rec.Header().Get(target.HeaderFailOpen) == "1":
			d = measure.DecidedFailOpen
		case rec.Code == http.StatusOK:
			d = measure.DecidedAllowed
		}
		out.decided[d]++
		out.latency[d].Add(float64(slept) / float64(time.Millisecond))
	}
	s.AddTo(&out.kv)
	return out
}

// modelParity is trial 0 of pl with seed in the model.
func modelParity(t *testing.T, pl *plan.Plan, seed uint64) parity {
	t.Helper()
	trials, err := model.RunTrials(pl, model.Options{Seed: seed, Trials: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	tr := trials[0]
	var out parity
	for d := range out.latency {
		out.latency[d] = tr.LatencyByDecision[d]
		out.decided[d] = tr.LatencyByDecision[d].N
	}
	out.kv = tr.KV
	return out
}

// TestTargetSleepsAsTheModelTimes holds the built-in target over the
// eventual store, on a virtual clock, against the model's trial 0 of the
// same live plan and seed: one closed loop of the default scenario (and
// of variants that reach the store's other paths) must meet the same
// decisions with the same latencies, request by request, and do the same
// KV work; the target's X-Overshoot-Store-Us is what it slept. A
// difference is systematic: an operation one side does and the
// other does not, or a latency one side gives another part of a request.
func TestTargetSleepsAsTheModelTimes(t *testing.T) {
	for _, tc := range []struct {
		name string
		sets []string
	}{
		{"default", nil},
		{"no write limit", []string{"store.kv.write_limit.per_second=0"}},
		{"two cache domains", []string{"store.kv.cache_domains=2"}},
		{"read your writes fails", []string{"store.kv.read_your_writes_failure=0.5"}},
		{"write errors", []string{"store.kv.error_rate.write=0.2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := scenario.Default()
			if err != nil {
				t.Fatal(err)
			}
			if sc, err = sc.With(tc.sets...); err != nil {
				t.Fatal(err)
			}
			pl, err := plan.CompileLive(sc)
			if err != nil {
				t.Fatal(err)
			}
			const seed = 7
			live, sim := liveParity(t, pl, seed), modelParity(t, pl, seed)
			if live.decided != sim.decided {
				t.Errorf("requests by decision (allowed, denied, fail-open, fail-closed, error): target %v, model %v", live.decided, sim.decided)
			}
			for d := range live.latency {
				l, m := live.latency[d].Stats(), sim.latency[d].Stats()
				if l != m {
					t.Errorf("%s latency: target %+v, model %+v", measure.Decision(d), l, m)
				}
			}
			for _, f := range []struct {
				name      string
				live, sim int64
			}{
				{"reads", live.kv.Reads, sim.kv.Reads},
				{"writes", live.kv.Writes, sim.kv.Writes},
				{"write errors", live.kv.WriteErrors, sim.kv.WriteErrors},
				{"429s", live.kv.WriteRateLimited, sim.kv.WriteRateLimited},
				{"lost updates", live.kv.LostUpdates, sim.kv.LostUpdates},
				{"stale reads", live.kv.StaleReads, sim.kv.StaleReads},
			} {
				if f.live != f.sim {
					t.Errorf("%s: target %d, model %d", f.name, f.live, f.sim)
				}
			}
		})
	}
}
