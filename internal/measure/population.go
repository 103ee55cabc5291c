package measure

import (
	"fmt"
	"strings"
)

// populationMetrics are the metrics a condition can check on one
// population ("burst:ratio.max<=1.5"): those of its own key-windows and
// its own requests.
var populationMetrics = map[string]bool{
	"ratio.p50": true, "ratio.p95": true, "ratio.p99": true, "ratio.max": true, "ratio.mean": true,
	"allowed.p50": true, "allowed.p95": true, "allowed.p99": true, "allowed.max": true,
	"false_denials.rate": true, "legit_denied.rate": true,
}

// PopulationMetric reports whether the metric called name can be checked
// on one population.
func PopulationMetric(name string) bool { return populationMetrics[name] }

// populationMetricNames lists them in table order.
func populationMetricNames() []string {
	var out []string
	for _, m := range Metrics {
		if populationMetrics[m.Name] {
			out = append(out, m.Name)
		}
	}
	return out
}

// PopulationSummary is s seen from its population i alone: the
// population's own key-windows (a key-window is its first request's
// population's), requests and worst key-windows, the rest as in s.
func PopulationSummary(s *Summary, i int) *Summary {
	p := s.Populations[i]
	v := *s
	v.Points, v.Worst, v.Sensitivity = nil, nil, nil
	v.Populations = []Population{p}
	v.Overshoot = Overshoot{}
	if o := p.Overshoot; o != nil {
		v.Overshoot = Overshoot{KeyWindows: o.KeyWindows, OverLimit: o.OverLimit, Ratio: o.Ratio, Allowed: o.Allowed, MaxAllowed: o.Allowed.Max,
			Histogram: o.Histogram}
		if o.KeyWindows > 0 {
			v.Overshoot.OverLimitShare = float64(o.OverLimit) / float64(o.KeyWindows)
		}
	}
	v.WorstKeys = nil
	for _, w := range s.WorstKeys {
		if w.Population == p.Name {
			v.WorstKeys = append(v.WorstKeys, w)
		}
	}
	return &v
}

// quantileFamilies maps each pooled quantile metric to the maximum of the
// same quantity: a bound the quantile holds may still be broken there.
var quantileFamilies = map[string]string{
	"ratio.p50": "ratio.max", "ratio.p95": "ratio.max", "ratio.p99": "ratio.max", "ratio.mean": "ratio.max",
	"allowed.p50": "allowed.max", "allowed.p95": "allowed.max", "allowed.p99": "allowed.max",
}

// quantileWarning says, for an upper bound c on a pooled quantile that s
// holds, how many key-windows broke the same bound and who the worst was;
// "" when none did (or c is no such bound).
func quantileWarning(c Condition, s *Summary) string {
	maxName, ok := quantileFamilies[c.Metric.Name]
	if !ok || c.Op != "<" && c.Op != "<=" {
		return ""
	}
	mx, _ := LookupMetric(maxName)
	v, measured := mx.Value(s)
	if !measured || c.holds(v) {
		return ""
	}
	o := &s.Overshoot
	broke := ""
	if n := brokenKeyWindows(c, o.Histogram, s.Limiter.Limit); n > 0 {
		broke = fmt.Sprintf("%s key-window%s of %s", Thousands(n), plural(n), Thousands(o.KeyWindows))
	} else {
		broke = "some key-windows"
	}
	scope := "pooled key-windows"
	if c.Population != "" {
		scope = c.Population + "'s key-windows"
	}
	worst := maxName + " is " + mx.Format(v)
	if len(s.WorstKeys) > 0 {
		w := s.WorstKeys[0]
		who := worstKeyWords(w, s.Limiter.Limit)
		if a := s.Answer; a != nil && a.Key == w.Key && a.Population == w.Population {
			who = a.Who // as the headline says it
		}
		worst = "the worst, " + who
	}
	bound := maxName + c.Op + fmtBound(c.Value)
	hint := bound
	switch {
	case c.Population != "":
		hint = c.Population + ":" + bound
	case len(s.WorstKeys) > 0 && s.WorstKeys[0].Population != "":
		hint += " or " + s.WorstKeys[0].Population + ":" + bound
	}
	return fmt.Sprintf("%s holds over the %s, but %s broke the same bound, %s; gate %s to catch it",
		c.Text, scope, broke, worst, hint)
}

// brokenKeyWindows counts the key-windows of hist whose allowed count (or
// ratio, for a ratio metric) breaks c.
func brokenKeyWindows(c Condition, hist []Bin, limit int64) int64 {
	var n int64
	for _, b := range hist {
		v := float64(b.Allowed)
		if c.Metric.Unit == "ratio" {
			if limit <= 0 {
				return 0
			}
			v /= float64(limit)
		}
		if !c.holds(v) {
			n += b.KeyWindows
		}
	}
	return n
}

// fmtBound writes a condition's bound as it was given.
func fmtBound(v float64) string { return strings.TrimSuffix(fmt.Sprintf("%g", v), ".0") }

// plural is "s" unless n is 1.
func plural(n int64) string {
	if n == 1 {
		return ""
	}
	return "s"
}
