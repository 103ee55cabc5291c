package attack

import (
	"context"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/overshoot-dev/overshoot/internal/kv"
)

// benchConcurrency is the closed loop's requests in flight in both
// benchmarks below.
const benchConcurrency = 8

const benchYAML = `
name: bench
limiter: {name: t, limit: 5, window: 10s}
store: {kind: memory}
traffic:
  - name: bot
    closed_loop: {concurrency: 8}
live: {duration: 60s}
`

// BenchmarkRunner measures the attack runner's throughput against the
// built-in target over the memory store: b.N requests from a closed loop of
// 8, every result accounted and gob-encoded. Compare its req/s with
// BenchmarkVegetaLibrary's (the same attack with vegeta alone).
func BenchmarkRunner(b *testing.B) {
	sc := parse(b, benchYAML)
	url, cfg := serve(b, sc, kv.NewMemory(kv.MemoryOptions{}))
	b.ResetTimer()
	began := time.Now()
	s, err := Run(context.Background(), Options{Plan: livePlan(b, sc), URL: url, Limit: cfg.Limit, Window: cfg.Window,
		MaxRequests: int64(b.N), Results: io.Discard})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(s.Totals.Requests)/time.Since(began).Seconds(), "req/s")
}

// BenchmarkVegetaLibrary is the baseline: vegeta's attacker alone, the same
// closed loop of 8 against the same target, results gob-encoded as the
// vegeta CLI does, nothing accounted.
func BenchmarkVegetaLibrary(b *testing.B) {
	sc := parse(b, benchYAML)
	url, _ := serve(b, sc, kv.NewMemory(kv.MemoryOptions{}))
	var left atomic.Int64
	left.Store(int64(b.N))
	hdr := http.Header{"X-Anon-Token": {"bench"}, "X-Forwarded-For": {"10.0.0.1"}}
	tr := func(t *vegeta.Target) error {
		if left.Add(-1) < 0 {
			return vegeta.ErrNoTargets
		}
		t.Method, t.URL, t.Header = "GET", url, hdr
		return nil
	}
	atk := vegeta.NewAttacker(vegeta.Workers(benchConcurrency), vegeta.MaxWorkers(benchConcurrency))
	enc := vegeta.NewEncoder(io.Discard)
	b.ResetTimer()
	began := time.Now()
	n := 0
	for r := range atk.Attack(tr, vegeta.Rate{Freq: 0}, 0, "bench") {
		if r.URL != "" {
			n++
			enc.Encode(r)
		}
	}
	b.ReportMetric(float64(n)/time.Since(began).Seconds(), "req/s")
}

// BenchmarkAccount is the runner's per-result work: internal headers and
// accounting of one response (no HTTP).
func BenchmarkAccount(b *testing.B) {
	start := time.Now()
	rec := newTestRecorder(start)
	a := newAccountant(rec, map[string]int{"bot": 0}, 1, 10*time.Second, DefaultSkew, start, nil)
	h := http.Header{"X-Overshoot-Window": {"177"}, "X-Overshoot-Key": {"anon-p0-c0:10.0.0.0"}}
	r := &vegeta.Result{Attack: "bot", Code: 429, Timestamp: start, Latency: time.Millisecond, Method: "GET", URL: "http://x/"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.Headers = h.Clone()
		r.Headers[hdrSentClient] = []string{"0"}
		r.Timestamp = start.Add(time.Duration(i) * time.Microsecond)
		key, client := internalHeaders(r, false)
		a.add(r, key, client)
	}
}
