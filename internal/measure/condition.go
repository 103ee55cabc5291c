package measure

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Condition is one threshold or budget, METRIC OP VALUE: "ratio.p99<=1.5",
// "interval.max < 2", "false_denials.rate<=0.1%", "latency.p99<=50ms",
// "cost.usd_per_million<=1". It is the one grammar of simulate's and
// attack's -threshold flags and of simulate -advise's budgets.
type Condition struct {
	// Text is the condition as written, for messages.
	Text   string
	Metric Metric
	// Population, when set, restricts the condition to that population's
	// key-windows and requests ("burst:ratio.max<=1.5"; see
	// PopulationMetric).
	Population string
	// Op is <, <=, > or >=.
	Op string
	// Value is in the metric's unit: a share from 0 to 1, milliseconds
	// for latency, a multiple of the limit for ratios.
	Value float64
}

// Subject is what the condition reads: its metric's name, after its
// population's when it has one ("burst:ratio.max").
func (c Condition) Subject() string {
	if c.Population != "" {
		return c.Population + ":" + c.Metric.Name
	}
	return c.Metric.Name
}

// conditionOps are the operators, two-character ones first so that "<="
// is not read as "<" followed by "=".
var conditionOps = []string{"<=", ">=", "<", ">"}

// ParseCondition reads [POPULATION:]METRIC OP VALUE (spaces allowed).
// VALUE is a number, a percentage ("0.1%", a share), a multiple ("1.5x", a
// ratio) or, for a latency, a duration ("50ms", "1s"). A POPULATION
// prefix checks the metric on that population alone; only the metrics
// PopulationMetric accepts have one.
func ParseCondition(text string) (Condition, error) {
	t := strings.TrimSpace(text)
	at, op := -1, ""
	for _, o := range conditionOps {
		if i := strings.Index(t, o); i >= 0 && (at < 0 || i < at || i == at && len(o) > len(op)) {
			at, op = i, o
		}
	}
	if at <= 0 {
		return Condition{}, fmt.Errorf("%q: write METRIC OP VALUE with OP one of < <= > >=, e.g. ratio.p99<=1.5 or false_denials.rate<0.1%%", text)
	}
	name, raw := strings.TrimSpace(t[:at]), strings.TrimSpace(t[at+len(op):])
	pop, metric, scoped := strings.Cut(name, ":")
	if !scoped {
		pop, metric = "", name
	}
	pop, metric = strings.TrimSpace(pop), strings.TrimSpace(metric)
	if scoped && pop == "" {
		return Condition{}, fmt.Errorf("%q: no population before the colon: write POPULATION:METRIC, e.g. burst:ratio.max<=1.5", text)
	}
	m, err := LookupMetric(metric)
	if err != nil {
		return Condition{}, fmt.Errorf("%q: %v", text, err)
	}
	if scoped && !PopulationMetric(m.Name) {
		return Condition{}, fmt.Errorf("%q: %s is not measured per population: use one of %s", text, m.Name, strings.Join(populationMetricNames(), ", "))
	}
	v, err := conditionValue(raw, m)
	if err != nil {
		return Condition{}, fmt.Errorf("%q: %v", text, err)
	}
	prefix := ""
	if scoped {
		prefix = pop + ":"
	}
	return Condition{Text: prefix + m.Name + op + raw, Metric: m, Population: pop, Op: op, Value: v}, nil
}

// conditionValue reads a condition's value in m's unit.
func conditionValue(raw string, m Metric) (float64, error) {
	if raw == "" {
		return 0, fmt.Errorf("no value after the operator")
	}
	var v float64
	var err error
	switch {
	case strings.HasSuffix(raw, "%"):
		v, err = strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(raw, "%")), 64)
		v /= 100
	case strings.HasSuffix(raw, "x") && m.Unit == "ratio":
		v, err = strconv.ParseFloat(strings.TrimSuffix(raw, "x"), 64)
	case m.Unit == "ms" && strings.IndexFunc(raw, func(r rune) bool { return r >= 'a' && r <= 'z' || r == 'µ' }) >= 0:
		var d time.Duration
		if d, err = time.ParseDuration(raw); err == nil {
			v = float64(d) / float64(time.Millisecond)
		}
	default:
		v, err = strconv.ParseFloat(raw, 64)
	}
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		hint := "a number"
		switch m.Unit {
		case "share":
			hint = "a share such as 0.001 or 0.1%"
		case "ms":
			hint = "milliseconds or a duration such as 50ms"
		case "ratio":
			hint = "a multiple of the limit such as 1.5 or 1.5x"
		}
		return 0, fmt.Errorf("value %q is not %s", raw, hint)
	}
	if v < 0 {
		return 0, fmt.Errorf("value %q is negative: %s is never below 0", raw, m.Name)
	}
	return v, nil
}

// holds reports whether v satisfies the condition.
func (c Condition) holds(v float64) bool {
	switch c.Op {
	case "<":
		return v < c.Value
	case "<=":
		return v <= c.Value
	case ">":
		return v > c.Value
	}
	return v >= c.Value
}

// Verdict is a condition checked against one summary (or one sweep point).
type Verdict struct {
	Condition Condition
	// Where is the sweep point ("c=8, think=1ms"), or "" for the run.
	Where string
	// Value is the metric's value there; Measured is false when the run
	// did not measure it, which fails the condition: a gate on what was
	// not measured must not pass silently.
	Value    float64
	Measured bool
	Pass     bool
	// Warning, when set, says why a passing gate may mislead: a pooled
	// quantile held while some key-window broke the same bound.
	Warning string
	// Missing is set when the condition's population is not in the run.
	Missing string
}

// String says the verdict in one line: a mark, the condition, where, and
// the value (or why there is none).
func (v Verdict) String() string {
	mark := "✓"
	if !v.Pass {
		mark = "✗"
	}
	where := ""
	if v.Where != "" {
		where = " at " + v.Where
	}
	if v.Missing != "" {
		return fmt.Sprintf("%s %s%s: %s", mark, v.Condition.Text, where, v.Missing)
	}
	if !v.Measured {
		return fmt.Sprintf("%s %s%s: not measured by this run", mark, v.Condition.Text, where)
	}
	return fmt.Sprintf("%s %s%s: %s", mark, v.Condition.Text, where, v.Condition.Metric.Format(v.Value))
}

// Check checks every condition against s: the run, or every point of a
// sweep. The verdicts come in condition order, points in sweep order.
func Check(s *Summary, conds []Condition) []Verdict {
	var out []Verdict
	for _, c := range conds {
		if len(s.Points) == 0 {
			out = append(out, check(c, "", s))
			continue
		}
		for _, p := range s.Points {
			out = append(out, check(c, paramsText(p.Params), p.Summary))
		}
	}
	return out
}

func check(c Condition, where string, s *Summary) Verdict {
	scope := s
	if c.Population != "" {
		var names []string
		scope = nil
		for i := range s.Populations {
			names = append(names, s.Populations[i].Name)
			if s.Populations[i].Name == c.Population {
				scope = PopulationSummary(s, i)
			}
		}
		if scope == nil {
			return Verdict{Condition: c, Where: where, Missing: fmt.Sprintf("the run has no population %q: it has %s", c.Population, strings.Join(names, ", "))}
		}
	}
	v, ok := c.Metric.Value(scope)
	out := Verdict{Condition: c, Where: where, Value: v, Measured: ok, Pass: ok && c.holds(v)}
	if out.Pass {
		out.Warning = quantileWarning(c, scope)
	}
	return out
}
