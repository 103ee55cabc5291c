package attack

import (
	"fmt"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// Statistics CheckThreshold can compare, as -at names them.
var ThresholdStats = []string{"max", "p99", "p95", "p50"}

// CheckThreshold compares the overshoot ratio statistic `at` (max, p99, p95
// or p50 of allowed/limit over key-windows) of s with maxRatio and reports
// the value and whether it is broken (value > maxRatio). It is the check
// behind -max-ratio, meant to be shared by simulate and attack (exit code 3
// when broken). An unknown `at` is an error.
func CheckThreshold(s measure.Summary, maxRatio float64, at string) (value float64, broken bool, err error) {
	r := s.Overshoot.Ratio
	switch at {
	case "", "max":
		value = r.Max
	case "p99":
		value = r.P99
	case "p95":
		value = r.P95
	case "p50":
		value = r.P50
	default:
		return 0, false, fmt.Errorf("-at %q is unknown: use one of %v", at, ThresholdStats)
	}
	return value, value > maxRatio, nil
}
