package measure

import (
	"fmt"
	"math"
	"strings"
)

// Metric is one number read from a summary, by a name a scenario (report:
// headline:) or a threshold uses: "interval.max", "false_denials.rate".
// Every metric is worse when higher.
type Metric struct {
	// Name is how scenarios and thresholds spell it.
	Name string
	// Label says what it is in a reader's words, for headlines and table
	// headers: "most allowed in any window-long interval".
	Label string
	// Unit is how its value reads: "ratio" (a multiple of the limit, 2.0x),
	// "count", "share" (0 to 1, shown as a percentage), "usd" or "ms".
	Unit string
	// value reads it from one summary; ok is false when the run did not
	// measure it (no key-window, no legitimate request, not a live run).
	value func(s *Summary) (v float64, ok bool)
}

// Value reads the metric from s (for a sweep, from the summary of one
// point); ok is false when the run did not measure it.
func (m Metric) Value(s *Summary) (v float64, ok bool) {
	if s == nil {
		return 0, false
	}
	return m.value(s)
}

// DefaultHeadline is the metric a scenario leads with when it names none.
const DefaultHeadline = "ratio.max"

// Metrics lists every metric, in the order tables list them.
var Metrics = []Metric{
	ratioMetric("p50", "median", func(r Stats) float64 { return r.P50 }),
	ratioMetric("p95", "p95 of", func(r Stats) float64 { return r.P95 }),
	ratioMetric("p99", "p99 of", func(r Stats) float64 { return r.P99 }),
	ratioMetric("max", "most", func(r Stats) float64 { return r.Max }),
	ratioMetric("mean", "mean", func(r Stats) float64 { return r.Mean }),
	allowedMetric("p50", "median", func(c CountStats) int64 { return c.P50 }, func(r Stats) float64 { return r.P50 }),
	allowedMetric("p95", "p95 of", func(c CountStats) int64 { return c.P95 }, func(r Stats) float64 { return r.P95 }),
	allowedMetric("p99", "p99 of", func(c CountStats) int64 { return c.P99 }, func(r Stats) float64 { return r.P99 }),
	allowedMetric("max", "most", func(c CountStats) int64 { return c.Max }, func(r Stats) float64 { return r.Max }),
	{Name: "trial_max.p95", Label: "a trial's most allowed in one key-window / limit, 95% of trials at or under", Unit: "ratio",
		value: func(s *Summary) (float64, bool) {
			return s.Overshoot.PerTrial.MaxRatio.P95, s.Overshoot.KeyWindows > 0
		}},
	{Name: "interval.max", Label: "most allowed in any window-long interval / limit", Unit: "ratio",
		value: func(s *Summary) (float64, bool) {
			return s.Overshoot.MaxInIntervalRatio, s.Overshoot.KeyWindows > 0 && s.Limiter.Limit > 0
		}},
	{Name: "reference.excess", Label: "allowed beyond what an exact limiter would have, over every key-window", Unit: "count",
		value: func(s *Summary) (float64, bool) {
			return float64(s.Overshoot.Reference.Excess), s.Overshoot.Reference.Allowed > 0
		}},
	{Name: "worst_key.excess", Label: "most one key-window allowed beyond what an exact limiter would have", Unit: "count",
		value: func(s *Summary) (float64, bool) {
			return float64(s.Overshoot.Reference.MaxExcess), s.Overshoot.Reference.Allowed > 0
		}},
	{Name: "let_through.share", Label: "requests an exact limiter denies that were let through", Unit: "share",
		value: func(s *Summary) (float64, bool) {
			r := s.Overshoot.Reference
			return r.LetThroughShare, r.Allowed > 0
		}},
	{Name: "false_denials.rate", Label: "legitimate requests falsely denied", Unit: "share",
		value: func(s *Summary) (float64, bool) {
			var denied, requests int64
			for _, p := range s.Populations {
				if p.Legitimate {
					denied += p.FalseDenials
					requests += p.Requests
				}
			}
			return rate(denied, requests)
		}},
	{Name: "legit_denied.rate", Label: "legitimate requests denied, for any reason", Unit: "share",
		value: func(s *Summary) (float64, bool) {
			var denied, requests int64
			for _, p := range s.Populations {
				if p.Legitimate {
					denied += p.Denied
					requests += p.Requests
				}
			}
			return rate(denied, requests)
		}},
	{Name: "fail_open.rate", Label: "requests allowed because the store failed (fail-open)", Unit: "share",
		value: func(s *Summary) (float64, bool) { return rate(s.Totals.FailOpen, s.Totals.Requests) }},
	{Name: "errors.rate", Label: "requests that got no decision", Unit: "share",
		value: func(s *Summary) (float64, bool) { return rate(s.Totals.Errors, s.Totals.Requests) }},
	latencyMetric("p50", func(l Stats) float64 { return l.P50 }),
	latencyMetric("p95", func(l Stats) float64 { return l.P95 }),
	latencyMetric("p99", func(l Stats) float64 { return l.P99 }),
	{Name: "cost.usd_per_million", Label: "cost per million requests (paid plan: the store and the Workers request fee)", Unit: "usd",
		value: func(s *Summary) (float64, bool) {
			return s.Cost.USDPerMillionRequests, s.KV.Observed && s.Totals.Requests > 0 && s.Cost.Priced()
		}},
}

func ratioMetric(stat, words string, f func(Stats) float64) Metric {
	return Metric{Name: "ratio." + stat, Label: words + " allowed in one key-window / limit", Unit: "ratio",
		value: func(s *Summary) (float64, bool) { return f(s.Overshoot.Ratio), s.Overshoot.KeyWindows > 0 }}
}

// allowedMetric reads a statistic of the allowed counts (f), kept as
// integers; a summary written before they were kept has only the ratio
// (r), whose multiple of the limit is rounded back to the count it came
// from.
func allowedMetric(stat, words string, f func(CountStats) int64, r func(Stats) float64) Metric {
	return Metric{Name: "allowed." + stat, Label: words + " allowed in one key-window", Unit: "count",
		value: func(s *Summary) (float64, bool) {
			o := &s.Overshoot
			if o.Allowed.N > 0 {
				return float64(f(o.Allowed)), true
			}
			return math.Round(r(o.Ratio) * float64(s.Limiter.Limit)), o.KeyWindows > 0
		}}
}

func latencyMetric(stat string, f func(Stats) float64) Metric {
	return Metric{Name: "latency." + stat, Label: stat + " request latency", Unit: "ms",
		value: func(s *Summary) (float64, bool) {
			switch {
			case s.Live != nil && s.Live.LatencyMs.N > 0:
				return f(s.Live.LatencyMs), true
			case s.LatencyMs != nil && s.LatencyMs.N > 0:
				return f(*s.LatencyMs), true
			}
			return 0, false
		}}
}

// rate is part/whole, not measured when whole is 0.
func rate(part, whole int64) (float64, bool) {
	if whole <= 0 {
		return 0, false
	}
	return float64(part) / float64(whole), true
}

// LookupMetric returns the metric called name, or an error that lists the
// names there are.
func LookupMetric(name string) (Metric, error) {
	for _, m := range Metrics {
		if m.Name == name {
			return m, nil
		}
	}
	return Metric{}, fmt.Errorf("unknown metric %q: use one of %s", name, strings.Join(MetricNames(), ", "))
}

// MetricNames lists every metric's name, in table order.
func MetricNames() []string {
	out := make([]string, len(Metrics))
	for i, m := range Metrics {
		out[i] = m.Name
	}
	return out
}

// MetricValue reads the metric called name from s; ok is false when the
// run did not measure it, and err is set for an unknown name.
func MetricValue(s *Summary, name string) (v float64, ok bool, err error) {
	m, err := LookupMetric(name)
	if err != nil {
		return 0, false, err
	}
	v, ok = m.Value(s)
	return v, ok, nil
}

// Format writes a metric's value as the terminal prints it: "2.00x", "38",
// "26.5%", "$0.742", "12.30 ms".
func (m Metric) Format(v float64) string {
	switch m.Unit {
	case "ratio":
		return fmt.Sprintf("%.2fx", v)
	case "count":
		return fmt.Sprintf("%.0f", v)
	case "share":
		return fmt.Sprintf("%.1f%%", 100*v)
	case "usd":
		return fmt.Sprintf("$%.3f", v)
	case "ms":
		return fmt.Sprintf("%.2f ms", v)
	}
	return fmt.Sprintf("%g", v)
}

// SetWorst fills s.Worst from s's sweep points (see Worst); it leaves a
// summary without points, or whose points measured nothing, as it is.
func SetWorst(s *Summary) {
	m := s.Scenario.HeadlineMetric()
	var w *Worst
	highest := map[string]float64{}
	for _, p := range s.Points {
		v, ok := m.Value(p.Summary)
		if ok && (w == nil || v > w.Value) {
			w = &Worst{Metric: m.Name, Value: v, Params: p.Params, Values: values(p.Summary)}
		}
		for name, x := range values(p.Summary) {
			if h, seen := highest[name]; !seen || x > h {
				highest[name] = x
			}
		}
	}
	if w != nil {
		w.Highest = highest
		s.Worst = w
	}
}

// values is every metric s measured, by name.
func values(s *Summary) map[string]float64 {
	out := map[string]float64{}
	for _, m := range Metrics {
		if v, ok := m.Value(s); ok {
			out[m.Name] = v
		}
	}
	return out
}
