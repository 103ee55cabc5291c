package attackcmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/cli"
	"github.com/overshoot-dev/overshoot/internal/measure"
)

// TestMainRepeat runs the sequential scenario three times against the
// built-in memory target. One client sending one request at a time on a
// linearizable store allows exactly the limit in every window, so every
// run's max ratio is 1 only if no run saw another's counts: each run must
// have its own keys (run id) and store.
func TestMainRepeat(t *testing.T) {
	sc := cliScenario(t, strings.Replace(sequentialYAML, "1600ms", "300ms", 1))
	code, stdout, stderr := runMain(t, Env{}, "-json", "-no-report", "-store", "memory", "-repeat", "3", "-scenario", sc)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s measure.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("stdout is not the summary: %v\n%s", err, stdout)
	}
	r := s.Repeats
	if r == nil || len(r.Runs) != 3 {
		t.Fatalf("repeats = %+v, want 3 runs", r)
	}
	ids := map[string]bool{}
	var allowed int64
	for i, run := range r.Runs {
		if run.MaxRatio != 1 || !run.Complete || run.LatencyP50Ms <= 0 || run.LatencyP99Ms < run.LatencyP50Ms {
			t.Errorf("run %d = %+v, want max ratio 1, complete, latency measured", i+1, run)
		}
		if ids[run.RunID] || run.RunID == "" {
			t.Errorf("run %d has run id %q, used before or empty", i+1, run.RunID)
		}
		ids[run.RunID] = true
		allowed += run.Allowed
	}
	if r.MaxRatio != (measure.Spread{Median: 1, Min: 1, Max: 1}) {
		t.Errorf("max ratio spread %+v, want all 1", r.MaxRatio)
	}
	if s.Trials != 3 || s.Totals.Allowed != allowed || !s.Complete || s.Overshoot.Ratio.Max != 1 || !s.KV.Observed {
		t.Errorf("pooled summary: trials %d, allowed %d (runs %d), complete %v, max ratio %v, kv observed %v",
			s.Trials, s.Totals.Allowed, allowed, s.Complete, s.Overshoot.Ratio.Max, s.KV.Observed)
	}
	if got := len(s.Overshoot.PerTrial.MaxRatios); got != 3 {
		t.Errorf("per_trial.max_ratios has %d entries, want one per run", got)
	}
}
