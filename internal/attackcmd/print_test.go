package attackcmd

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// TestPrintSummaryGolden pins the console summary of a fixed run, complete
// and interrupted; refresh with go test -run PrintSummary -update.
func TestPrintSummaryGolden(t *testing.T) {
	s := measure.Summary{Mode: "attack", Complete: true,
		Limiter: measure.LimiterRef{Algorithm: "fixed-window", Limit: 5, Window: "10s", WindowSecs: 10, Store: "eventual", ErrorPolicy: "fail-open"},
		Totals:  measure.Totals{Requests: 1587, Allowed: 46, Denied: 1539, Errors: 2, FailOpen: 40, SimulatedSeconds: 10.1},
		Overshoot: measure.Overshoot{KeyWindows: 2, OverLimit: 2, OverLimitShare: 1, Excess: 36, MaxAllowed: 40,
			Ratio: measure.Stats{N: 2, Max: 8, P99: 8, P50: 1.2}, MaxInInterval: 46, MaxInIntervalRatio: 9.2},
		KV: measure.KVWork{Observed: true, Reads: 1585, Writes: 46, WriteErrors: 40, WriteRateLimited: 40},
		Live: &measure.Live{URL: "http://127.0.0.1:1/", Target: "eventual", OfferedRate: 157.3, AchievedRate: 157.3,
			LatencyMs: measure.Stats{P50: 3.25, P95: 10.25, P99: 114.75, Max: 235.88},
			Status:    map[string]int64{"200": 46, "429": 1539, "error": 2}, Ambiguous: 3, ResultsFile: "reports/default/t/results.bin"},
	}
	var buf bytes.Buffer
	PrintSummary(&buf, &s, "reports/default/t")
	s.Complete = false
	PrintSummary(&buf, &s, "")
	golden := filepath.Join("testdata", "summary.golden")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("summary output changed (run with -update if intended):\n%s\nwant:\n%s", buf.Bytes(), want)
	}
}

func TestAttackProgress(t *testing.T) {
	for _, tc := range []struct {
		n         int64
		el, d     time.Duration
		run, runs int
		want      string
	}{
		{100, time.Second, 10 * time.Second, 1, 1, ""}, // too early
		{1234, 3200 * time.Millisecond, 10 * time.Second, 1, 1, "  3s of 10s, 1,234 responses, about 7 s left"},
		{50, time.Second, 10 * time.Second, 2, 3, "  run 2 of 3: 1s of 10s, 50 responses, about 19 s left"},
		{50, 12 * time.Second, 10 * time.Second, 1, 0, "  12s of 10s, 50 responses, about 0 s left"}, // draining
	} {
		got, ok := attackProgress(tc.n, tc.el, tc.d, tc.run, tc.runs)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("attackProgress(%d, %v, %v, %d, %d) = %q, %v; want %q", tc.n, tc.el, tc.d, tc.run, tc.runs, got, ok, tc.want)
		}
	}
}
