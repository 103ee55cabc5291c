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
