package report

import (
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// TestHeadlineNamesTheUpdate: the headline says when the limiter's update
// was atomic and what gcra's burst was, and says nothing new otherwise.
func TestHeadlineNamesTheUpdate(t *testing.T) {
	for _, tc := range []struct {
		l    measure.LimiterRef
		want string
	}{
		{measure.LimiterRef{Algorithm: "fixed-window", Store: "memory"}, "(fixed-window on memory)"},
		{measure.LimiterRef{Algorithm: "fixed-window", Store: "memory", Update: "atomic"}, "(atomic fixed-window on memory)"},
		{measure.LimiterRef{Algorithm: "gcra", Store: "redis", Update: "atomic", Burst: 4}, "(atomic gcra (burst 4) on redis)"},
	} {
		tc.l.Limit, tc.l.Window, tc.l.WindowSecs = 5, "1m", 60
		s := &measure.Summary{Limiter: tc.l, Totals: measure.Totals{Requests: 10, Allowed: 5, Denied: 5}}
		s.Overshoot.KeyWindows, s.Overshoot.MaxAllowed = 1, 5
		if h := Headline(s, "one bot"); !strings.Contains(h, tc.want) {
			t.Errorf("%+v: headline %q, want it to contain %q", tc.l, h, tc.want)
		}
	}
}
