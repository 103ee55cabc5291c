package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// readSide is one summary's worst key-window in the read-groups figure.
type readSide struct {
	label  string
	groups []int64
	of     string           // what its worst key-window is the worst of
	s      *measure.Summary // the summary drawn
}

// labelledCounts is the most counts the read-groups figure names one by
// one on its axis, each bar with its value.
const labelledCounts = 30

// worstReadGroups returns the read groups of s's key-window that let the
// most through, among those whose reads are known, and what it is the
// worst of (its trials, or its live runs); nil when none is known.
func worstReadGroups(s *measure.Summary) ([]int64, string) {
	if s == nil {
		return nil, ""
	}
	of := fmt.Sprintf("its %s trials", count(int64(s.Trials)))
	switch {
	case s.Repeats != nil:
		of = fmt.Sprintf("its %d live runs", len(s.Repeats.Runs))
	case s.Mode == "attack":
		of = "the live run"
	case s.Trials <= 1:
		of = "its trial"
	}
	for _, k := range s.WorstKeys {
		if len(k.ReadGroups) > 0 {
			g := k.ReadGroups
			if n := int(s.Limiter.Limit); len(g) < n && n <= labelledCounts {
				// The summary leaves out counts past the last one read;
				// a small limit's axis shows every count it has.
				g = append(slices.Clip(g), make([]int64, n-len(g))...)
			}
			return g, of
		}
	}
	return nil, ""
}

// ReadGroups draws, for the key-window that let the most through, how many
// allowed requests read each count: where reads and writes raced, many
// requests read one count before any of their writes landed and its bar
// stands tall; a limiter that counted every request one by one shows a row
// of 1s. With b (a prediction beside a measurement, labelled aLabel and
// bLabel) the two worst key-windows stand side by side: a model that races
// the way the target does has bars of the same shape. Nil when neither
// summary knows what its requests read.
func ReadGroups(a, b *measure.Summary, aLabel, bLabel string) *Figure {
	var sides []readSide
	for _, x := range []struct {
		s     *measure.Summary
		label string
	}{{a, aLabel}, {b, bLabel}} {
		if g, of := worstReadGroups(x.s); g != nil {
			sides = append(sides, readSide{x.label, g, of, x.s})
		}
	}
	if len(sides) == 0 {
		return nil
	}
	p := newPlot("How many requests were allowed on the same count?", "count read (0: the window's first)", "allowed requests that read it")
	width, offset, step := 0.6, 0.0, 0.0
	if len(sides) == 2 {
		width, offset, step = 0.38, -0.2, 0.4
	}
	counts := 0
	var tallest int64
	var labels plotter.XYLabels
	var caption []string
	for i, sd := range sides {
		xs := make([]float64, len(sd.groups))
		ys := make([]float64, len(sd.groups))
		var most int64
		for j, n := range sd.groups {
			xs[j], ys[j] = float64(j)+offset+step*float64(i), float64(n)
			most = max(most, n)
			labels.XYs = append(labels.XYs, plotter.XY{X: xs[j], Y: ys[j]})
			labels.Labels = append(labels.Labels, count(n))
		}
		tallest = max(tallest, most)
		counts = max(counts, len(sd.groups))
		name := "the worst key-window of " + sd.of
		if sd.label != "" {
			name = sd.label + ", " + name
		}
		addLine(p, name, &bars{xs: xs, ys: ys, width: width, color: colorAt(i)})
		c := fmt.Sprintf("%s: at most %s on one count", name, count(most))
		if lg := sd.s.Overshoot.LargestReadGroup; lg > most {
			// The terminal's races line is the largest over every
			// key-window; the bars are the one that let the most through.
			c += fmt.Sprintf(" (over every key-window, up to %s on one count: the terminal's races line)", count(lg))
		}
		caption = append(caption, c)
	}
	if counts <= labelledCounts {
		names := make([]string, counts)
		for i := range names {
			names[i] = strconv.Itoa(i)
		}
		p.NominalX(names...)
	}
	p.X.Min, p.X.Max = -0.5, float64(counts)-0.5
	p.Y.Min, p.Y.Max = 0, 1.2*float64(tallest) // room for the legend
	p.Legend.Left = true
	if counts <= labelledCounts {
		addValueLabels(p, labels, 0.03*float64(tallest))
	}
	text := "In the key-window that let the most through, how many allowed requests read each count before deciding (the limiter's remaining, live the RateLimit field's r): " +
		strings.Join(caption, "; ") + ". A worst key-window taken over many trials is higher than a typical one: compare the median largest group in the verdict table. Requests let through without a count (fail-open: their write failed, with a 429 from the write limit or another store error) are not drawn, as they moved no count."
	return &Figure{Name: "read-groups", Title: p.Title.Text, Caption: text, Plot: p}
}
