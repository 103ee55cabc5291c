package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// LiveFigures draws what only a live run measures: latency (split by
// decision when the summary has it, else pooled percentiles), offered
// against achieved rate, and status codes; with extra's series and
// samples, each of them over time too (latency as one dot per sampled
// response coloured by decision, else as percentiles per interval). Nil
// for a simulated run.
func LiveFigures(s *measure.Summary, extra *Extra) []*Figure {
	lv := s.Live
	if lv == nil || s.Totals.Requests <= 0 {
		return nil
	}
	lat := LatencyByDecision(s)
	if lat == nil {
		lat = liveLatency(lv)
	}
	figs := []*Figure{lat, liveRate(lv), liveStatus(lv)}
	if extra == nil {
		return figs
	}
	overTime := LatencyOverTime(extra.LatencySamples, s)
	if overTime == nil && len(extra.LiveSeries) > 0 {
		overTime = liveLatencySeries(extra.LiveSeries, lv)
	}
	figs = append(figs, overTime)
	if len(extra.LiveSeries) > 0 {
		figs = append(figs, liveRateSeries(extra.LiveSeries), liveStatusSeries(extra.LiveSeries))
	}
	return figs
}

// valueBars is a bar chart of named values with each value written on its
// bar; nil when no value is a positive number. The value axis is
// logarithmic when the positive values span more than 20x, so that a small
// bar beside a large one stays visible; a zero is written, not drawn.
func valueBars(title, yLabel string, names []string, vals []float64, unit string) *Figure {
	return valueChart(title, yLabel, names, vals, unit, false)
}

// valueDots is valueBars with a point per value instead of a bar, for
// values that are not amounts (percentiles of one distribution).
func valueDots(title, yLabel string, names []string, vals []float64, unit string) *Figure {
	return valueChart(title, yLabel, names, vals, unit, true)
}

func valueChart(title, yLabel string, names []string, vals []float64, unit string, dots bool) *Figure {
	lo, hi := math.Inf(1), 0.0
	for i, v := range vals {
		if !finite(v) || v < 0 {
			vals[i] = 0
		}
		if vals[i] > 0 {
			lo, hi = math.Min(lo, vals[i]), math.Max(hi, vals[i])
		}
	}
	if hi == 0 {
		return nil
	}
	p := newPlot(title, "", yLabel)
	logY := hi/lo > 20
	floor := 0.0
	hs := slices.Clone(vals)
	if logY {
		floor = math.Floor(math.Log10(lo)) - 0.3
		for i, v := range vals {
			hs[i] = floor
			if v > 0 {
				hs[i] = math.Log10(v)
			}
		}
		p.Y.Tick.Marker = log10Ticks{}
		p.Y.Label.Text = strings.TrimSuffix(yLabel, ")") + ", log scale)"
	}
	xs := make([]float64, len(vals))
	for i := range xs {
		xs[i] = float64(i)
	}
	if dots {
		var pts plotter.XYs
		for i, v := range vals {
			if v > 0 {
				pts = append(pts, plotter.XY{X: xs[i], Y: hs[i]})
			}
		}
		addLine(p, "", marks(pts, colorAt(0), draw.CircleGlyph{}, 4))
	} else {
		p.Add(&bars{xs: xs, ys: hs, width: 0.55, floor: floor, color: colorAt(0)})
	}
	p.NominalX(names...)
	top := slices.Max(hs)
	pad := 0.03 * (top - floor)
	xys := make(plotter.XYs, len(vals))
	labels := make([]string, len(vals))
	for i, v := range vals {
		xys[i] = plotter.XY{X: xs[i], Y: math.Max(hs[i], floor)}
		labels[i] = num(v) + unit
	}
	addValueLabels(p, plotter.XYLabels{XYs: xys, Labels: labels}, pad)
	p.X.Min, p.X.Max = -0.6, float64(len(vals))-0.4
	p.Y.Min, p.Y.Max = floor, top+0.14*(top-floor)
	return &Figure{Title: title, Plot: p}
}

func liveLatency(lv *measure.Live) *Figure {
	l := lv.LatencyMs
	f := valueDots("How long did the limited endpoint take to answer?", "latency (ms)",
		[]string{"mean", "p50", "p95", "p99", "max"}, []float64{l.Mean, l.P50, l.P95, l.P99, l.Max}, " ms")
	if f == nil {
		return nil
	}
	f.Name = "live-latency"
	f.Caption = fmt.Sprintf("Latency of the %s responses of the live run, in milliseconds. %s", count(l.N), orDash(lv.LatencyNote))
	return f
}

func liveRate(lv *measure.Live) *Figure {
	f := valueBars("Did the load generator keep up?", "rate (requests/s)",
		[]string{"offered", "achieved"}, []float64{lv.OfferedRate, lv.AchievedRate}, "/s")
	if f == nil {
		return nil
	}
	f.Name = "live-rate"
	f.Caption = fmt.Sprintf("Requests per second the attack meant to send (offered) and the responses it got per second (achieved), over %s s. When achieved falls short, the target or the generator was saturated and the measured overshoot is for a lower load than planned.", num(lv.DurationSecs))
	return f
}

func liveStatus(lv *measure.Live) *Figure {
	codes := statusCodes(lv.Status)
	if len(codes) == 0 {
		return nil
	}
	vals := make([]float64, len(codes))
	for i, c := range codes {
		vals[i] = float64(lv.Status[c])
	}
	f := valueBars("What did the limited endpoint answer?", "responses (count)", codes, vals, "")
	if f == nil {
		return nil
	}
	f.Name = "live-status"
	f.Caption = "Responses by HTTP status code (200: allowed, 429: denied by the limiter; anything else, and transport errors, got no decision). " + statusList(lv.Status) + "."
	return f
}

func statusCodes(m map[string]int64) []string {
	codes := make([]string, 0, len(m))
	for c := range m {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	return codes
}

// seriesXY picks finite (t, v) pairs of a live series.
func seriesXY(ps []LivePoint, v func(LivePoint) float64) plotter.XYs {
	var xys plotter.XYs
	for _, p := range ps {
		if y := v(p); finite(p.AtSecs) && finite(y) && y >= 0 {
			xys = append(xys, plotter.XY{X: p.AtSecs, Y: y})
		}
	}
	sort.SliceStable(xys, func(i, j int) bool { return xys[i].X < xys[j].X })
	return xys
}

func liveLatencySeries(ps []LivePoint, lv *measure.Live) *Figure {
	p := newPlot("Did latency change during the attack?", "time from the attack's start (s)", "latency (ms)")
	n := 0
	for i, q := range []struct {
		name string
		v    func(LivePoint) float64
	}{{"p50", func(p LivePoint) float64 { return p.LatencyP50Ms }}, {"p95", func(p LivePoint) float64 { return p.LatencyP95Ms }}, {"p99", func(p LivePoint) float64 { return p.LatencyP99Ms }}} {
		if l := line(seriesXY(ps, q.v), colorAt(i), 1.6); l != nil {
			addLine(p, q.name, l)
			n++
		}
	}
	if n == 0 {
		return nil
	}
	p.Y.Min = 0
	padTop(p, 0.2)
	return &Figure{Name: "live-latency-time", Title: p.Title.Text, Plot: p,
		Caption: "Latency percentiles of the responses in each interval of the live run, in milliseconds. " + orDash(lv.LatencyNote)}
}

func liveRateSeries(ps []LivePoint) *Figure {
	p := newPlot("Did the achieved rate follow the offered rate?", "time from the attack's start (s)", "rate (requests/s)")
	off := stepLine(seriesXY(ps, func(p LivePoint) float64 { return p.OfferedRate }), colorAt(0))
	ach := stepLine(seriesXY(ps, func(p LivePoint) float64 { return p.AchievedRate }), colorAt(1))
	if ach != nil {
		ach.Dashes = []vg.Length{5, 3}
	}
	if off == nil && ach == nil {
		return nil
	}
	addLine(p, "offered", off)
	addLine(p, "achieved", ach)
	p.Y.Min = 0
	padTop(p, 0.2)
	return &Figure{Name: "live-rate-time", Title: p.Title.Text, Plot: p,
		Caption: "Requests per second sent (offered) and answered (achieved) in each interval of the live run."}
}

func liveStatusSeries(ps []LivePoint) *Figure {
	seen := map[string]int64{}
	for _, q := range ps {
		for c, n := range q.Status {
			seen[c] += n
		}
	}
	codes := statusCodes(seen)
	if len(codes) == 0 {
		return nil
	}
	p := newPlot("Which answers came when?", "time from the attack's start (s)", "responses in the interval (count)")
	n := 0
	for i, c := range codes {
		c := c
		l := stepLine(seriesXY(ps, func(p LivePoint) float64 { return float64(p.Status[c]) }), colorAt(i))
		if l != nil {
			addLine(p, c, l)
			n++
		}
	}
	if n == 0 {
		return nil
	}
	p.Y.Min = 0
	if p.Y.Max <= 0 || math.IsInf(p.Y.Max, 0) {
		p.Y.Max = 1
	}
	padTop(p, 0.2)
	return &Figure{Name: "live-status-time", Title: p.Title.Text, Plot: p,
		Caption: "Responses per interval by HTTP status code during the live run: 2xx allowed, 429 (or the statuses -deny-status named) denied, others no decision unless their rate-limit fields said nothing remains."}
}
