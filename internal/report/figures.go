package report

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// Figures builds every figure that applies to the summary, in report order:
// the overshoot ratio's histogram and CDF, the per-trial max's CDF, the
// comparison (with opts.Compare), the worst key-window's read groups, sweeps, the worst keys' timeline, read
// visibility, KV work and cost, the free plan, live-run figures, and a
// simulated run's latency by decision. A
// figure that would be empty is left out; a run with no requests has none.
func Figures(s *measure.Summary, opts Options) []Figure {
	var out []Figure
	add := func(fs ...*Figure) {
		for _, f := range fs {
			if f != nil && (f.Plot != nil || f.Empty != "") {
				out = append(out, *f)
			}
		}
	}
	add(RatioHistogram(s), RatioCDF(s), TrialMaxCDF(s))
	if opts.Compare != nil {
		pred, meas, pl, ml := compareRoles(s, opts.Compare)
		add(CompareCDF(pred, meas, pl, ml))
		if pl == "predicted" {
			add(RepeatsFigure(pred, meas))
		}
		add(ReadGroups(pred, meas, pl, ml))
	} else {
		if s.Repeats != nil {
			add(RepeatsFigure(nil, s))
		}
		add(ReadGroups(s, nil, "", ""))
	}
	add(SweepFigures(s)...)
	add(Timeline(s), Visibility(s), KVWork(s), FreePlan(s), SensitivityFigure(s))
	add(LiveFigures(s, opts.Extra)...)
	if s.Live == nil && len(s.Points) == 0 {
		add(LatencyByDecision(s)) // a live run's is among its live figures
	}
	return out
}

// ratioPoints turns the histogram into (ratio, key-windows) pairs, leaving
// out bins that are not numbers; it returns how many it left out.
func ratioPoints(s *measure.Summary) (xs, ys []float64, dropped int) {
	lim := float64(s.Limiter.Limit)
	if lim <= 0 {
		return nil, nil, 0
	}
	for _, b := range s.Overshoot.Histogram {
		x := float64(b.Allowed) / lim
		if b.KeyWindows <= 0 || !finite(x) || b.Allowed < 0 {
			dropped++
			continue
		}
		xs = append(xs, x)
		ys = append(ys, float64(b.KeyWindows))
	}
	return xs, ys, dropped
}

func droppedNote(n int, what string) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" %d %s were left out because they were not valid numbers.", n, what)
}

// RatioHistogram is how many key-windows let through each multiple of the
// limit, with the limit marked; nil when there are no key-windows.
func RatioHistogram(s *measure.Summary) *Figure {
	xs, ys, dropped := ratioPoints(s)
	if len(xs) == 0 || s.Totals.Requests <= 0 {
		return nil
	}
	p := newPlot("How far past the limit did each key get in each window?",
		"allowed / limit (ratio; 1 = the limit)", "key-windows (count)")
	lim := float64(s.Limiter.Limit)
	width := 0.8 / lim
	lo, hi := slices.Min(xs), slices.Max(xs)
	width = math.Max(width, (hi-lo+1)/300)
	ymax, ymin := slices.Max(ys), slices.Min(ys)
	floor := 0.0
	logY := ymax/ymin > 20
	hs := ys
	if logY {
		floor = math.Log10(0.5)
		hs = make([]float64, len(ys))
		for i, y := range ys {
			hs[i] = math.Log10(y)
		}
		ymax = math.Log10(ymax)
		p.Y.Tick.Marker = log10Ticks{}
		p.Y.Label.Text = "key-windows (count, log scale)"
	}
	b := &bars{xs: xs, ys: hs, width: width, floor: floor, color: colorAt(0)}
	addLine(p, "key-windows", b)
	addLine(p, "the limit (ratio 1)", vline(1, floor, ymax+0.05*(ymax-floor), limitColor, 4, 2))
	p.Y.Min = floor
	padTop(p, 0.2)
	p.X.Min, p.X.Max = math.Min(lo-width, 1-width), hi+width
	o := s.Overshoot
	caption := fmt.Sprintf("Key-windows (one limiter key in one window; %s, pooled) by how many requests they allowed, as a multiple of the limit of %s. Bars right of the dashed line went over the limit: %s of %s key-windows (%s).",
		trials(s.Trials), count(s.Limiter.Limit), count(o.OverLimit), count(o.KeyWindows), pctf(o.OverLimitShare))
	if logY {
		caption += " The count axis is logarithmic, so that rare windows far past the limit stay visible."
	}
	caption += droppedNote(dropped, "histogram bins")
	return &Figure{Name: "ratio-histogram", Title: p.Title.Text, Caption: caption, Plot: p}
}

// RatioCDF is the share of key-windows at or below each ratio, with the
// limit and the p50, p99 and max marked; nil when there are no key-windows.
func RatioCDF(s *measure.Summary) *Figure {
	xs, ys, dropped := ratioPoints(s)
	if len(xs) == 0 || s.Totals.Requests <= 0 {
		return nil
	}
	p := newPlot("What share of key-windows stayed at or under each ratio?",
		"allowed / limit (ratio; 1 = the limit)", "share of key-windows at or under (0 to 1)")
	addLine(p, "key-windows (all trials)", stepLine(cdfFromBins(xs, ys), colorAt(0)))
	addLine(p, "the limit (ratio 1)", vline(1, 0, 1, limitColor, 4, 2))
	p.Y.Min, p.Y.Max = 0, 1.02
	padRight(p, 0.04)
	p.Legend.Left = false
	p.Legend.Top = false
	r := s.Overshoot.Ratio
	caption := fmt.Sprintf("Cumulative share of the %s key-windows by ratio allowed/limit: p50 %s, p95 %s, p99 %s, max %s. The line's height at the dashed limit line is the share that stayed within the limit.",
		count(s.Overshoot.KeyWindows), ratio(r.P50), ratio(r.P95), ratio(r.P99), ratio(r.Max))
	caption += droppedNote(dropped, "histogram bins")
	return &Figure{Name: "ratio-cdf", Title: p.Title.Text, Caption: caption, Plot: p}
}

// cdfFromBins is the step CDF of weighted values (xs ascending).
func cdfFromBins(xs, ws []float64) plotter.XYs {
	type pw struct{ x, w float64 }
	v := make([]pw, len(xs))
	var total float64
	for i := range xs {
		v[i] = pw{xs[i], ws[i]}
		total += ws[i]
	}
	sort.Slice(v, func(i, j int) bool { return v[i].x < v[j].x })
	if total <= 0 || len(v) == 0 {
		return nil
	}
	pts := plotter.XYs{{X: v[0].x, Y: 0}}
	var cum float64
	for _, e := range v {
		cum += e.w
		pts = append(pts, plotter.XY{X: e.x, Y: cum / total})
	}
	return pts
}

// TrialMaxCDF is the distribution of each trial's max ratio, with the 95%
// interval across trials shaded; nil with fewer than two trials.
func TrialMaxCDF(s *measure.Summary) *Figure {
	if s.Totals.Requests <= 0 || s.Limiter.Limit <= 0 {
		return nil
	}
	var xs []float64
	dropped := 0
	for _, v := range s.Overshoot.PerTrial.MaxRatios {
		if !finite(v) {
			dropped++
			continue
		}
		xs = append(xs, v)
	}
	if len(xs) < 2 {
		return nil
	}
	ws := make([]float64, len(xs))
	for i := range ws {
		ws[i] = 1
	}
	p := newPlot("How bad is the worst key-window in a trial?",
		"trial's max allowed / limit (ratio)", "share of trials at or under (0 to 1)")
	m := s.Overshoot.PerTrial.MaxRatio
	if finite(m.Lo) && finite(m.Hi) && m.Hi >= m.Lo {
		lo, hi := m.Lo, m.Hi
		if hi == lo {
			hi = lo + 0.001
		}
		addLine(p, "central 95% of trials", band([]float64{lo, hi}, []float64{0, 0}, []float64{1, 1}, translucent(colorAt(0), 0x40)))
	}
	addLine(p, "trials' max ratio", stepLine(cdfFromBins(xs, ws), colorAt(0)))
	addLine(p, "the limit (ratio 1)", vline(1, 0, 1, limitColor, 4, 2))
	cdfAxis(p, 3)
	padRight(p, 0.04)
	caption := fmt.Sprintf("Each of %s trials' highest ratio allowed/limit over all its key-windows. Mean %s; the central 95%% of trials lie between %s and %s (shaded); 95%% of trials stay at or under %s.",
		count(int64(len(xs))), ratio(m.Mean), ratio(m.Lo), ratio(m.Hi), ratio(m.P95))
	caption += droppedNote(dropped, "trials")
	return &Figure{Name: "trial-max-cdf", Title: p.Title.Text, Caption: caption, Plot: p}
}

// CompareCDF puts the prediction's and the measurement's ratio
// distributions (CDFs across key-windows) on one figure.
func CompareCDF(pred, meas *measure.Summary, pl, ml string) *Figure {
	pxs, pys, pd := ratioPoints(pred)
	mxs, mys, md := ratioPoints(meas)
	if len(pxs) == 0 && len(mxs) == 0 {
		return nil
	}
	p := newPlot("Does the prediction match the measurement?",
		"allowed / limit (ratio; 1 = the limit)", "share of key-windows at or under (0 to 1)")
	if len(pxs) > 0 {
		addLine(p, capitalize(pl)+": key-windows ("+orDash(pred.Mode)+")", stepLine(cdfFromBins(pxs, pys), colorAt(0)))
	}
	var tm []float64
	for _, v := range pred.Overshoot.PerTrial.MaxRatios {
		if finite(v) {
			tm = append(tm, v)
		}
	}
	if len(tm) > 1 {
		ones := make([]float64, len(tm))
		for i := range ones {
			ones[i] = 1
		}
		if b := pred.Overshoot.PerTrial.MaxRatio; finite(b.Lo) && finite(b.Hi) && b.Hi >= b.Lo {
			addLine(p, capitalize(pl)+": central 95% of trials' max", band([]float64{b.Lo, math.Max(b.Hi, b.Lo+0.001)}, []float64{0, 0}, []float64{1, 1}, translucent(colorAt(0), 0x30)))
		}
		l := stepLine(cdfFromBins(tm, ones), colorAt(0))
		l.Dashes = []vg.Length{5, 3}
		addLine(p, capitalize(pl)+": each trial's max", l)
	}
	if len(mxs) > 0 {
		l := stepLine(cdfFromBins(mxs, mys), colorAt(1))
		l.Dashes = nil
		l.Width = 2
		addLine(p, capitalize(ml)+": key-windows ("+orDash(meas.Mode)+")", l)
	}
	addLine(p, "the limit (ratio 1)", vline(1, 0, 1, limitColor, 4, 2))
	cdfAxis(p, legendLen(p))
	padRight(p, 0.04)
	caption := fmt.Sprintf("Cumulative share of key-windows by ratio allowed/limit: %s (%s key-windows) and %s (%s key-windows). Where the %s line lies right of the %s one, more got through than predicted.",
		pl, count(pred.Overshoot.KeyWindows), ml, count(meas.Overshoot.KeyWindows), ml, pl)
	if len(tm) > 1 {
		caption += fmt.Sprintf(" The dashed line is the %s distribution of each trial's worst key-window, with its central 95%% shaded: a single measured run's max should fall in that band.", pl)
	}
	caption += droppedNote(pd+md, "histogram bins")
	return &Figure{Name: "compare-cdf", Title: p.Title.Text, Caption: caption, Plot: p}
}

// maxTimelines is how many worst keys the timeline draws.
const maxTimelines = 5

// Timeline is cumulative allowed requests for the worst key-windows
// against seconds from their window's start, with the limit and window
// boundaries; nil without timelines.
func Timeline(s *measure.Summary) *Figure {
	if s.Totals.Requests <= 0 {
		return nil
	}
	fromFirst := timelineFromFirst(s.WorstKeys)
	xlabel := "time from the window's start (s)"
	if fromFirst {
		xlabel = "time from the key's first allowed request (s)"
	}
	p := newPlot("When did the worst keys get their requests through?", xlabel, "allowed so far (requests)")
	tl := drawTimelines(p, s, fromFirst)
	if tl.drawn == 0 {
		return nil
	}
	w := s.Limiter.WindowSecs
	showEnd := addTimelineBounds(p, s, fromFirst, tl)
	p.Legend.Left = true
	padTop(p, 0.02+0.065*float64(legendLen(p))) // room for the legend
	caption := fmt.Sprintf("Cumulative allowed requests of the %d key-windows that let the most through, each against time from its own window's start; the dashed red line is the limit, the dotted grey line the window's start", tl.drawn)
	switch {
	case fromFirst:
		caption = fmt.Sprintf("Cumulative allowed requests of the %d key-windows that let the most through, each against time from its own first allowed request (their requests came at different points of their windows, so a common window-start axis would hide them); the dashed red line is the limit.", tl.drawn)
	case showEnd:
		caption += fmt.Sprintf(" and end (%s later).", duration(w))
	case finite(w) && w > 0:
		caption += fmt.Sprintf("; the window ends %s after its start, far right of the last allowed request, so its end is not drawn.", duration(w))
	default:
		caption += "."
	}
	if tl.partial > 0 {
		caption += fmt.Sprintf(" %d of these keys allowed more requests than the summary kept times for, so their lines stop short of their totals.", tl.partial)
	}
	caption += droppedNote(tl.dropped, "times")
	return &Figure{Name: "timeline", Title: p.Title.Text, Caption: caption, Plot: p}
}

// timelines is what drawTimelines drew: how many keys, how many times it
// could not draw, how many keys' times stop short of their totals, and
// the span of the lines.
type timelines struct {
	drawn, dropped, partial int
	xmin, xmax, ymax        float64
}

// drawTimelines draws the cumulative allowed requests of up to
// maxTimelines worst keys as step lines, from each window's start or,
// fromFirst, from each key's first allowed request.
func drawTimelines(p *plot.Plot, s *measure.Summary, fromFirst bool) timelines {
	var tl timelines
	names := timelineNames(s)
	for ki, k := range s.WorstKeys {
		if tl.drawn == maxTimelines {
			break
		}
		ts, dropped := keyTimes(k, fromFirst)
		tl.dropped += dropped
		if len(ts) == 0 {
			continue
		}
		pts := plotter.XYs{{X: math.Min(0, ts[0]), Y: 0}}
		for i, t := range ts {
			pts = append(pts, plotter.XY{X: t, Y: float64(i + 1)})
		}
		if int64(len(ts)) < k.Allowed {
			tl.partial++
		}
		tl.xmin = math.Min(tl.xmin, ts[0])
		tl.xmax = math.Max(tl.xmax, ts[len(ts)-1])
		tl.ymax = math.Max(tl.ymax, float64(len(ts)))
		addLine(p, names[ki], stepLine(pts, colorAt(tl.drawn)))
		tl.drawn++
	}
	return tl
}

// keyTimes is key k's allowed times, sorted, from its window's start or,
// fromFirst, from its first; and how many times it could not place (all
// of them when its window's start is not finite).
func keyTimes(k measure.KeyTimeline, fromFirst bool) ([]float64, int) {
	if !finite(k.WindowStartSecs) {
		return nil, 1
	}
	dropped := 0
	var ts []float64
	for _, t := range k.AllowedAtSecs {
		if x := t - k.WindowStartSecs; finite(x) {
			ts = append(ts, x)
		} else {
			dropped++
		}
	}
	if len(ts) == 0 {
		return nil, dropped
	}
	sort.Float64s(ts)
	if fromFirst {
		for i := len(ts) - 1; i >= 0; i-- {
			ts[i] -= ts[0]
		}
	}
	return ts, dropped
}

// addTimelineBounds draws the limit and, from the window's start, the
// window's start and (when it is near enough to show) its end; it
// reports whether the end was drawn.
func addTimelineBounds(p *plot.Plot, s *measure.Summary, fromFirst bool, tl timelines) (showEnd bool) {
	lim := float64(s.Limiter.Limit)
	w := s.Limiter.WindowSecs
	right := tl.xmax * 1.05
	if right <= 0 {
		right = 1
	}
	showEnd = !fromFirst && finite(w) && w > 0 && w <= 10*math.Max(tl.xmax, 1e-9)
	if showEnd {
		right = math.Max(right, w*1.02)
	}
	ymax := tl.ymax
	if lim > 0 && finite(lim) {
		addLine(p, fmt.Sprintf("the limit (%s)", count(s.Limiter.Limit)), hline(lim, tl.xmin, right, limitColor, 4, 2))
		ymax = math.Max(ymax, lim)
	}
	if !fromFirst {
		addLine(p, "window boundary", vline(0, 0, ymax*1.05, grayColor, 2, 2))
	}
	if showEnd {
		addLine(p, "", vline(w, 0, ymax*1.05, grayColor, 2, 2))
	}
	return showEnd
}

// timelineFromFirst reports whether the worst keys got their requests at
// such different points of their windows (the end of one, the start of
// another) that each is better drawn from its own first allowed request:
// when the keys' first times spread over more than ten times the longest
// burst of allowed requests.
func timelineFromFirst(keys []measure.KeyTimeline) bool {
	lo, hi, span := math.Inf(1), math.Inf(-1), 0.0
	for _, k := range keys[:min(len(keys), maxTimelines)] {
		if len(k.AllowedAtSecs) == 0 || !finite(k.WindowStartSecs) {
			continue
		}
		first, last := math.Inf(1), math.Inf(-1)
		for _, t := range k.AllowedAtSecs {
			if finite(t) {
				first, last = math.Min(first, t), math.Max(last, t)
			}
		}
		if !finite(first) {
			continue
		}
		lo, hi = math.Min(lo, first-k.WindowStartSecs), math.Max(hi, first-k.WindowStartSecs)
		span = math.Max(span, last-first)
	}
	return finite(lo) && hi-lo > 10*math.Max(span, 1e-3)
}

// tokenPopulation finds the population and client in a simulated key's
// token ("anon-p<population>-c<client>").
var tokenPopulation = regexp.MustCompile(`anon-p(\d+)(?:-c(\d+))?`)

// keyWords names a worst key-window in the reader's terms: its population
// and client when the key says them, its window's start, its trial and
// how many it allowed; the raw key only when nothing better is known.
func keyWords(s *measure.Summary, k measure.KeyTimeline) string {
	who := shortKey(k.Key)
	if m := tokenPopulation.FindStringSubmatch(k.Key); m != nil {
		if pi, err := strconv.Atoi(m[1]); err == nil && pi < len(s.Populations) && s.Populations[pi].Name != "" {
			who = s.Populations[pi].Name
			if c, err := strconv.Atoi(m[2]); err == nil {
				who += fmt.Sprintf(" client %d", c+1)
			}
		}
	}
	when := ""
	if w := s.Limiter.WindowSecs; finite(w) && w > 0 && k.Window > 0 && float64(k.Window)*w < 1e11 {
		start := time.Unix(int64(float64(k.Window)*w), 0).UTC()
		layout := "Jan 2 15:04 UTC"
		if math.Mod(w, 60) != 0 {
			layout = "Jan 2 15:04:05 UTC"
		}
		when = ", window from " + start.Format(layout)
	}
	trial := ""
	if s.Trials > 1 {
		trial = fmt.Sprintf(", trial %d", k.Trial+1)
	}
	return fmt.Sprintf("%s%s%s: %s allowed", who, when, trial, count(k.Allowed))
}

// timelineNames names each worst key-window for the timeline's legend
// (keyWords), and where two would read the same (a shared token behind
// several addresses, the same window and trial) adds what tells them
// apart: the caller of its key.
func timelineNames(s *measure.Summary) []string {
	names := make([]string, len(s.WorstKeys))
	seen := map[string]int{}
	for i, k := range s.WorstKeys {
		names[i] = keyWords(s, k)
		seen[names[i]]++
	}
	for i, k := range s.WorstKeys {
		if seen[names[i]] > 1 {
			j := strings.LastIndex(names[i], ": ") // before the count keyWords ends with
			names[i] = names[i][:j] + " (" + callerOf(k.Key) + ")" + names[i][j:]
		}
	}
	return names
}

// callerOf returns the caller part of a limiter key
// "rl:<name>:<caller>:<window>": what the key counts, without the route
// name and window the legend says otherwise.
func callerOf(key string) string {
	rest, ok := strings.CutPrefix(key, "rl:")
	if !ok {
		return shortKey(key)
	}
	if _, after, ok := strings.Cut(rest, ":"); ok {
		rest = after
	}
	if i := strings.LastIndexByte(rest, ':'); i > 0 {
		rest = rest[:i]
	}
	return shortKey(rest)
}

// shortKey keeps a legend entry short.
func shortKey(k string) string {
	if len(k) <= 36 {
		return k
	}
	return k[:16] + "..." + k[len(k)-17:]
}

// Visibility is P(a read sees the latest write) against time since that
// write (PBS t-visibility) on a log time axis; nil without reads.
func Visibility(s *measure.Summary) *Figure {
	if s.Totals.Requests <= 0 || !s.KV.Observed {
		return nil
	}
	var pts plotter.XYs
	var nonPos []string
	dropped := 0
	for _, v := range s.KV.Visibility {
		if v.Reads <= 0 {
			continue
		}
		pr := v.P
		if !finite(pr) {
			pr = float64(v.Fresh) / float64(v.Reads)
		}
		if !finite(pr) || !finite(v.SinceMs) {
			dropped++
			continue
		}
		if v.SinceMs <= 0 {
			nonPos = append(nonPos, fmt.Sprintf("%s of %s reads at %s ms saw it (P = %s)", count(v.Fresh), count(v.Reads), num(v.SinceMs), num(pr)))
			continue
		}
		pts = append(pts, plotter.XY{X: math.Log10(math.Max(v.SinceMs, 1e-9)), Y: math.Min(math.Max(pr, 0), 1)})
	}
	if len(pts) == 0 {
		return nil
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].X < pts[j].X })
	title := "How soon does a read see the latest write?"
	if allFresh(s.KV.Visibility) {
		return &Figure{Name: "visibility", Title: title, Empty: fmt.Sprintf(
			"Every one of the %s reads returned the latest write to its key, however soon after it was made: no read was stale, so there is no curve to draw.",
			count(sumReads(s.KV.Visibility)))}
	}
	p := newPlot(title,
		"time since the latest write (ms, log scale)", "P(read sees the latest write)")
	p.X.Tick.Marker = log10Ticks{}
	l := line(pts, colorAt(0), 1.6)
	addLine(p, "reads in each bin", l)
	sc, err := plotter.NewScatter(pts)
	if err == nil {
		sc.Color = colorAt(0)
		sc.Radius = 2
		p.Add(sc)
	}
	p.X.Min, p.X.Max = pts[0].X-0.15, pts[len(pts)-1].X+0.15
	cdfAxis(p, 1)
	caption := fmt.Sprintf("Of the reads made a given time after the latest write to their key (binned, the point at each bin's start), the share that returned that write (PBS t-visibility), over %s reads in %d bins.", count(sumReads(s.KV.Visibility)), len(pts))
	if len(nonPos) > 0 {
		caption += " The log time axis cannot show 0 ms, so these bins are not drawn: " + strings.Join(nonPos, "; ") + "."
	}
	caption += droppedNote(dropped, "bins")
	return &Figure{Name: "visibility", Title: p.Title.Text, Caption: caption, Plot: p}
}

// allFresh reports whether every read of every bin saw the latest write.
func allFresh(vs []measure.VisibilityPoint) bool {
	for _, v := range vs {
		if v.Reads > 0 && v.Fresh < v.Reads {
			return false
		}
	}
	return true
}

func sumReads(vs []measure.VisibilityPoint) int64 {
	var n int64
	for _, v := range vs {
		if v.Reads > 0 {
			n += v.Reads
		}
	}
	return n
}

// KVWork is the store's work per million requests (reads, writes, errors)
// and the cost at published prices; nil when there was no KV work.
func KVWork(s *measure.Summary) *Figure {
	if s.Totals.Requests <= 0 || !s.KV.Observed {
		return nil
	}
	per := 1e6 / float64(s.Totals.Requests)
	kv := s.KV
	names := []string{"reads (billed)", "writes (billed)", "read errors", "write errors", "lost updates"}
	if !s.Cost.Priced() {
		names[0], names[1] = "reads", "writes"
	}
	vals := []float64{s.Cost.ReadsPerMillionRequests, s.Cost.WritesPerMillionRequests,
		float64(kv.ReadErrors) * per, float64(kv.WriteErrors) * per, float64(kv.LostUpdates) * per}
	title := "How much KV work does a million requests cost?"
	f := valueBars(title, "operations per million requests (count)", names, vals, "")
	if f == nil {
		return nil
	}
	price := "costing " + usd(s.Cost.USDPerMillionRequests) + " per million requests on the paid plan (" + s.Cost.Basis + ")"
	if s.Cost.Basis == "" {
		// A summary from before every store was priced.
		price = "costing " + usd(s.Cost.USDPerMillionRequests) + " per million requests on the paid plan ($0.50 per million reads, $5.00 per million writes)"
	}
	if s.Cost.Priced() {
		// The price on a second title line, so that it travels with the image.
		f.Plot.Title.Text = title + "\n" + usd(s.Cost.USDPerMillionRequests) + " per million requests at paid-plan prices"
	} else {
		f.Plot.Title.Text = title + "\nnot priced: the store's prices are not in the model's sources"
		price = "not priced: " + s.Cost.NotPriced
	}
	caption := fmt.Sprintf("KV operations per million requests, at this run's mix: %s reads and %s writes, %s. Errors: %s read and %s write errors (%s rate-limited with 429, %s over quota); %s lost updates.",
		num(vals[0]), num(vals[1]), price, count(kv.ReadErrors), count(kv.WriteErrors), count(kv.WriteRateLimited), count(kv.QuotaErrors), count(kv.LostUpdates))
	f.Name, f.Caption = "kv-cost", caption
	return f
}

// FreePlan is when in the UTC day the free plan's write and read quotas
// run out at this run's rates; nil when they last the day or the store is
// not priced.
func FreePlan(s *measure.Summary) *Figure {
	if s.Totals.Requests <= 0 || !s.KV.Observed || !s.Cost.Priced() || s.Cost.Store == "durable-object" || s.Cost.Store == "per-location" {
		// The figure draws Workers KV's quotas; the terminal and the text
		// say a Durable Object's and the binding's.
		return nil
	}
	c := s.Cost
	hours := func(secs float64) float64 {
		if !finite(secs) || secs <= 0 || secs >= 86400 {
			return 0
		}
		return secs / 3600
	}
	w, r := hours(c.FreeWritesExhaustedAfterSecs), hours(c.FreeReadsExhaustedAfterSecs)
	if w == 0 && r == 0 {
		return nil
	}
	title := "When does the free plan run out?"
	p := newPlot(title, "hours after 00:00 UTC (h)", "")
	top := 24.0
	if m := math.Max(w, r); m < 1 {
		// Within the first hour: minutes, or 24 h would hide the bars.
		w, r = w*60, r*60
		top = math.Min(60, math.Max(w, r)*1.6)
		p.X.Label.Text = "minutes after 00:00 UTC (min)"
	}
	bc, err := plotter.NewBarChart(plotter.Values{w, r}, 1.2*vg.Centimeter)
	if err != nil {
		return nil
	}
	bc.Horizontal = true
	bc.Color = colorAt(1)
	bc.LineStyle.Width = 0
	p.Add(bc)
	var xys plotter.XYs
	var labels []string
	for i, secs := range []float64{c.FreeWritesExhaustedAfterSecs, c.FreeReadsExhaustedAfterSecs} {
		v := []float64{w, r}[i]
		xys = append(xys, plotter.XY{X: v, Y: float64(i)})
		if v > 0 {
			labels = append(labels, " gone at "+measure.ClockOfDay(secs))
		} else {
			labels = append(labels, " lasts the day")
		}
	}
	addLabels(p, plotter.XYLabels{XYs: xys, Labels: labels})
	p.NominalY("1,000 writes a day", "100,000 reads a day")
	p.X.Min, p.X.Max = 0, top
	if top == 24 {
		p.X.Tick.Marker = plot.ConstantTicks(hourTicks())
	}
	caption := fmt.Sprintf("Projected onto a steady day from midnight UTC at this run's rates (reads at its rate of requests, writes at its writes per key and window: the seed's limiter writes on every allowed request): %s. After that the store errors and a fail-open limiter allows everything.",
		measure.FreePlanSentence(c))
	return &Figure{Name: "free-plan", Title: title, Caption: caption, Plot: p, Height: 6 * vg.Centimeter}
}

// padRight leaves room right of the data on a linear x axis, so that a
// line ending at the largest value does not run into the frame.
func padRight(p *plot.Plot, frac float64) {
	if finite(p.X.Min) && finite(p.X.Max) && p.X.Max > p.X.Min {
		p.X.Max += frac * (p.X.Max - p.X.Min)
	}
}

func hourTicks() []plot.Tick {
	var ts []plot.Tick
	for h := 0; h <= 24; h += 3 {
		ts = append(ts, plot.Tick{Value: float64(h), Label: fmt.Sprintf("%02d:00", h)})
	}
	return ts
}

// legendLen is how many entries p's legend has.
func legendLen(p *plot.Plot) int {
	return len(LegendEntries(p))
}

// LegendEntries lists the names in p's legend, in order. gonum keeps the
// entries private, so they are read by reflection (reading only); tests use
// this to check figures by structure.
func LegendEntries(p *plot.Plot) []string {
	v := reflect.ValueOf(&p.Legend).Elem().FieldByName("entries")
	if !v.IsValid() || v.Kind() != reflect.Slice {
		return nil
	}
	var names []string
	for i := 0; i < v.Len(); i++ {
		e := v.Index(i)
		if e.Kind() == reflect.Struct {
			if f := e.FieldByName("text"); f.IsValid() && f.Kind() == reflect.String {
				names = append(names, f.String())
			}
		}
	}
	return names
}
