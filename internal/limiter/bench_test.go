package limiter

import (
	"context"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
)

// sink keeps the compiler from discarding the decisions benchmarked. It
// takes an int, not the Decision: storing a pointerful struct in a global
// costs write barriers that belong to the benchmark, not to the decision.
var sink int64

// BenchmarkDecision is one request's decision, Plan then Decide, for each
// algorithm, on a stored count under 100 ("42") and one over ("4242").
func BenchmarkDecision(b *testing.B) {
	now := time.Unix(1_700_000_000, 0)
	caller := "anon_abc123:203.0.113.7"
	for _, alg := range Algorithms {
		for _, stored := range []string{"42", "4242"} {
			l := mustNew(b, Config{Name: "roast", Algorithm: alg, Limit: 1_000_000, Window: time.Hour})
			read := [2]Read{{Value: stored, Found: true}, {Value: stored, Found: true}}
			if alg == TokenBucket {
				read[0].Value = "1700000000000000"
			}
			b.Run(string(alg)+"/"+stored, func(b *testing.B) {
				b.ReportAllocs()
				var n int64
				for b.Loop() {
					n += l.Decide(l.Plan(now, caller), read).Remaining
				}
				sink = n
			})
		}
	}
}

// BenchmarkCheckMemory is the live driver over the in-memory store with no
// latency: a read, a decision and a write.
func BenchmarkCheckMemory(b *testing.B) {
	l := mustNew(b, Config{Name: "roast", Limit: 1 << 40, Window: time.Hour})
	store := kv.NewMemory(kv.MemoryOptions{})
	now := time.Unix(1_700_000_000, 0)
	ctx := context.Background()
	b.ReportAllocs()
	var n int64
	for b.Loop() {
		n += l.Check(ctx, store, now, "anon_abc123:203.0.113.7").Remaining
	}
	sink = n
}

func BenchmarkParseCount(b *testing.B) {
	var n int64
	for b.Loop() {
		n += ParseCount(" 4242")
	}
	sink = n
}
