package measure

import (
	"strconv"
	"testing"
)

// TestAllowedCountsAreIntegers holds the allowed.* metrics to the counts
// the key-windows allowed: at limit 60, every count from 1 to 1,000 read
// back as allowed.max is that count exactly (a count derived from its
// ratio was 500.00000000000006 for 500, failing allowed.max<=500), and a
// gate at that count passes.
func TestAllowedCountsAreIntegers(t *testing.T) {
	for _, limit := range []int64{60, 7, 100} {
		for n := int64(1); n <= 1000; n++ {
			tr := Trial{Hist: map[int64]int64{n: 1, 1: 200}}
			s := Summarize(Summary{Limiter: LimiterRef{Limit: limit}}, limit, []Trial{tr})
			if s.Overshoot.MaxAllowed != n || s.Overshoot.Allowed.Max != n {
				t.Fatalf("limit %d, %d allowed: max_allowed %d, allowed.max %d", limit, n, s.Overshoot.MaxAllowed, s.Overshoot.Allowed.Max)
			}
			for _, name := range []string{"allowed.max", "allowed.p50"} {
				want := float64(n)
				if name == "allowed.p50" {
					want = 1
				}
				if v, ok, _ := MetricValue(&s, name); !ok || v != want {
					t.Fatalf("limit %d, %d allowed: %s = %v, want %v", limit, n, name, v, want)
				}
			}
			c, err := ParseCondition("allowed.max<=" + strconv.FormatInt(n, 10))
			if err != nil {
				t.Fatal(err)
			}
			if v := Check(&s, []Condition{c}); !v[0].Pass {
				t.Fatalf("limit %d: %s fails at a true %d: %s", limit, c.Text, n, v[0])
			}
		}
	}
}

// TestTrialMaxCounts: each trial's most allowed is kept as a count, and the
// count 95% of trials stay at or under is one of them (at limit 60, 500
// read back from its ratio as 500.00000000000006).
func TestTrialMaxCounts(t *testing.T) {
	var trials []Trial
	for i := int64(1); i <= 20; i++ {
		trials = append(trials, Trial{Hist: map[int64]int64{480 + i: 1, 3: 100}})
	}
	s := Summarize(Summary{Limiter: LimiterRef{Limit: 60}}, 60, trials)
	pt := s.Overshoot.PerTrial
	if len(pt.MaxAllowed) != 20 || pt.MaxAllowed[19] != 500 || pt.MaxAllowedP95 != 499 || pt.TrialMaxP95(60) != 499 {
		t.Errorf("per-trial max allowed %v, p95 %d", pt.MaxAllowed, pt.MaxAllowedP95)
	}
	old := PerTrial{MaxRatio: Interval{P95: 500.0 / 60}}
	if got := old.TrialMaxP95(60); got != 500 {
		t.Errorf("a summary without counts: %d, want 500", got)
	}
}
