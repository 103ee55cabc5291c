package measure

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// MetricChange is one metric of two runs side by side: its value in each
// (when measured), and which is better. Every metric is worse when higher.
type MetricChange struct {
	Metric Metric `json:"-"`
	Name   string `json:"metric"`
	// Where is the sweep point ("" for a single run).
	Where  string  `json:"where,omitempty"`
	A      float64 `json:"a"`
	B      float64 `json:"b"`
	HasA   bool    `json:"measured_a"`
	HasB   bool    `json:"measured_b"`
	Change float64 `json:"change"` // B - A, when both are measured
	// Better is "A", "B" or "same", or "" when one side was not measured.
	Better string `json:"better,omitempty"`
}

// Diff compares every metric of two summaries: two single runs, or two
// sweeps over the same points (compared point by point). An error says why
// the two cannot be compared.
func Diff(a, b *Summary) ([]MetricChange, error) {
	if len(a.Points) != len(b.Points) {
		return nil, fmt.Errorf("one is a sweep of %d points, the other of %d: diff compares two single runs, or two sweeps over the same points", len(a.Points), len(b.Points))
	}
	if len(a.Points) == 0 {
		return diffOne("", a, b), nil
	}
	var out []MetricChange
	for i := range a.Points {
		pa, pb := a.Points[i], b.Points[i]
		wa, wb := paramsText(pa.Params), paramsText(pb.Params)
		if wa != wb {
			return nil, fmt.Errorf("point %d is %s in one and %s in the other: diff compares sweeps over the same points", i, wa, wb)
		}
		out = append(out, diffOne(wa, pa.Summary, pb.Summary)...)
	}
	return out, nil
}

// paramsText names a sweep point by its parameters: "c=8, think=1ms".
func paramsText(ps []Param) string {
	var s []string
	for _, p := range ps {
		s = append(s, p.Path+"="+p.Value)
	}
	return strings.Join(s, ", ")
}

func diffOne(where string, a, b *Summary) []MetricChange {
	var out []MetricChange
	for _, m := range Metrics {
		va, oka := m.Value(a)
		vb, okb := m.Value(b)
		if !oka && !okb {
			continue
		}
		c := MetricChange{Metric: m, Name: m.Name, Where: where, A: va, B: vb, HasA: oka, HasB: okb}
		if oka && okb {
			c.Change = vb - va
			switch {
			case math.Abs(c.Change) <= 1e-9*math.Max(1, math.Abs(va)):
				c.Better = "same"
			case vb < va:
				c.Better = "B"
			default:
				c.Better = "A"
			}
		}
		out = append(out, c)
	}
	return out
}

// WriteDiff writes the comparison for people: a row per metric (and
// point), the two values, the change and which run is better.
func WriteDiff(w io.Writer, nameA, nameB string, cs []MetricChange) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "metric\twhere\tA\tB\tchange\tbetter\t\n")
	for _, c := range cs {
		show := func(v float64, ok bool) string {
			if !ok {
				return "not measured"
			}
			return c.Metric.Format(v)
		}
		change, better := "", c.Better
		if c.HasA && c.HasB {
			change = c.Metric.Format(math.Abs(c.Change))
			if c.Change < 0 {
				change = "-" + change
			} else if c.Change > 0 {
				change = "+" + change
			}
			if pct := relChange(c.A, c.B); pct != "" {
				change += " (" + pct + ")"
			}
		}
		where := c.Where
		if where == "" {
			where = "run"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", c.Name, where, show(c.A, c.HasA), show(c.B, c.HasB), change, better)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\nA is %s; B is %s. Every metric is better lower.\n", nameA, nameB)
	return err
}

// relChange is B's change over A as a percentage, when A is not 0.
func relChange(a, b float64) string {
	if a == 0 {
		return ""
	}
	return fmt.Sprintf("%+.0f%%", 100*(b-a)/math.Abs(a))
}
