package report_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/report"
)

// A driver writes each run's report into a new folder under reports/.
func ExampleWriteNew() {
	root, _ := os.MkdirTemp("", "reports")
	defer os.RemoveAll(root)
	s := &measure.Summary{
		Mode:     "simulate",
		Scenario: measure.ScenarioRef{Name: "default"},
		Trials:   1,
		Complete: true,
		Limiter:  measure.LimiterRef{Algorithm: "fixed-window", Limit: 5, WindowSecs: 86400, Store: "kv"},
		Totals:   measure.Totals{Requests: 100, Allowed: 12, Denied: 88},
		Overshoot: measure.Overshoot{KeyWindows: 1, OverLimit: 1, OverLimitShare: 1, Excess: 7, MaxAllowed: 12,
			Ratio:     measure.Stats{N: 1, Max: 2.4, Mean: 2.4, P50: 2.4, P95: 2.4, P99: 2.4},
			Histogram: []measure.Bin{{Allowed: 12, KeyWindows: 1}}},
	}
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	dir, err := report.WriteNew(root, s, now, report.Options{Traffic: "one client sending 100 requests at once"})
	if err != nil {
		fmt.Println(err)
		return
	}
	rel, _ := filepath.Rel(root, dir)
	fmt.Println(rel)
	// A second report at the same second gets its own folder.
	dir2, _ := report.WriteNew(root, s, now, report.Options{})
	rel2, _ := filepath.Rel(root, dir2)
	fmt.Println(rel2)
	fmt.Println(report.Headline(s, "one client sending 100 requests at once"))
	// Output:
	// default/20261130T090000Z
	// default/20261130T090000Z-2
	// With one client sending 100 requests at once, a limit of 5 per day keyed by token and IP (fixed-window on kv) let through up to 12 (2.4x, ratio.max).
}
