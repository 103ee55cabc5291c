package simulatecmd

import (
	"fmt"
	"math"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// checkMeasured checks that a summary read back (-compare, -calibrate,
// -diff) measured something and that its counts and ratios are in range:
// a run that counted no request (every response ambiguous, say) has
// nothing to compare with or fit to, and a negative count or ratio is an
// edited file. The error says which field, for the caller to prefix with
// the file.
func checkMeasured(s *measure.Summary) error {
	if err := checkCounts("", s); err != nil {
		return err
	}
	requests := s.Totals.Requests
	for i, p := range s.Points {
		if p.Summary == nil {
			return fmt.Errorf("points[%d] has no summary", i)
		}
		if err := checkCounts(fmt.Sprintf("points[%d].", i), p.Summary); err != nil {
			return err
		}
		requests += p.Summary.Totals.Requests
	}
	if requests > 0 {
		return nil
	}
	why := ""
	if s.Live != nil && s.Live.Ambiguous > 0 {
		why = fmt.Sprintf(": all %d responses were ambiguous (too near a window boundary to count)", s.Live.Ambiguous)
	}
	return fmt.Errorf("the run measured nothing (totals.requests is 0%s): there is nothing to compare with or fit to; run it again so that it counts requests", why)
}

// checkCounts checks one summary's totals and ratio statistics; prefix
// places its fields in the file.
func checkCounts(prefix string, s *measure.Summary) error {
	t := s.Totals
	for _, c := range []struct {
		name string
		n    int64
	}{{"requests", t.Requests}, {"allowed", t.Allowed}, {"denied", t.Denied}, {"errors", t.Errors}} {
		if c.n < 0 {
			return fmt.Errorf("%stotals.%s %d is negative", prefix, c.name, c.n)
		}
	}
	if t.Allowed > t.Requests || t.Denied > t.Requests {
		return fmt.Errorf("%stotals: allowed %d or denied %d is more than requests %d", prefix, t.Allowed, t.Denied, t.Requests)
	}
	r := s.Overshoot.Ratio
	for _, c := range []struct {
		name string
		v    float64
	}{{"max", r.Max}, {"mean", r.Mean}, {"p50", r.P50}, {"p95", r.P95}, {"p99", r.P99}} {
		if c.v < 0 || math.IsNaN(c.v) || math.IsInf(c.v, 0) {
			return fmt.Errorf("%sovershoot.ratio.%s %v is out of range: a ratio is a finite number >= 0", prefix, c.name, c.v)
		}
	}
	if s.Overshoot.MaxAllowed < 0 || s.Overshoot.Excess < 0 || s.Overshoot.KeyWindows < 0 {
		return fmt.Errorf("%sovershoot: max_allowed, excess and key_windows must be >= 0", prefix)
	}
	return nil
}
