package report

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// figure returns the named figure of figs, failing when it is missing.
func figure(t *testing.T, figs []Figure, name string) Figure {
	t.Helper()
	for _, f := range figs {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("no figure %q among %v", name, names(figs))
	return Figure{}
}

func names(figs []Figure) []string {
	var out []string
	for _, f := range figs {
		out = append(out, f.Name)
	}
	return out
}

// lines are the plot's lines, in the order added.
func lines(p *plot.Plot) []*plotter.Line {
	var out []*plotter.Line
	for _, pl := range plotters(p) {
		if l, ok := pl.(*plotter.Line); ok {
			out = append(out, l)
		}
	}
	return out
}

// plotters reads the plot's plotters, which gonum keeps private.
func plotters(p *plot.Plot) []plot.Plotter { return plotPlotters(p) }

// plotPlotters lists p's plotters (private in gonum) by reflection, for
// tests that check a figure's structure.
func plotPlotters(p *plot.Plot) []plot.Plotter {
	v := reflect.ValueOf(p).Elem().FieldByName("plotters")
	var out []plot.Plotter
	for i := 0; v.IsValid() && i < v.Len(); i++ {
		e := v.Index(i)
		if e.IsNil() {
			continue
		}
		// Reading an unexported field's value needs its address to be
		// re-exposed; reflect.NewAt does that without unsafe writes.
		out = append(out, reflect.NewAt(e.Type(), unsafe.Pointer(e.UnsafeAddr())).Elem().Interface().(plot.Plotter))
	}
	return out
}

func TestEveryFigureIsLabelled(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    *measure.Summary
		opts Options
	}{
		{"simulate", sampleSimulate(), Options{}},
		{"attack", sampleAttack(), Options{Compare: sampleSimulate(), Extra: &Extra{LiveSeries: sampleSeries()}}},
		{"sweep", sampleSweep(), Options{}},
		{"grid", sampleGrid(), Options{}},
	} {
		for _, f := range Figures(tc.s, tc.opts) {
			p := f.Plot
			if f.Title == "" || !strings.HasPrefix(p.Title.Text, f.Title) || !strings.HasSuffix(f.Title, "?") {
				t.Errorf("%s/%s: title %q (plot %q) should state the question", tc.name, f.Name, f.Title, p.Title.Text)
			}
			if f.Caption == "" {
				t.Errorf("%s/%s: no caption", tc.name, f.Name)
			}
			// Every numeric axis names its unit in parentheses; nominal
			// axes (bar names) need no label.
			for _, ax := range []struct {
				which string
				a     plot.Axis
			}{{"x", p.X}, {"y", p.Y}} {
				if ax.a.Label.Text != "" && !strings.Contains(ax.a.Label.Text, "(") {
					t.Errorf("%s/%s: %s label %q has no unit", tc.name, f.Name, ax.which, ax.a.Label.Text)
				}
				if ax.a.Label.Text == "" && !nominal(ax.a) {
					t.Errorf("%s/%s: %s axis has no label", tc.name, f.Name, ax.which)
				}
			}
			// One style: sans everywhere.
			for _, fnt := range []font.Variant{p.Title.TextStyle.Font.Variant, p.X.Label.TextStyle.Font.Variant, p.Y.Tick.Label.Font.Variant, p.Legend.TextStyle.Font.Variant} {
				if fnt != "Sans" {
					t.Errorf("%s/%s: font variant %q, want Sans", tc.name, f.Name, fnt)
				}
			}
		}
	}
}

// nominal reports whether an axis has fixed, named ticks (a bar chart's).
func nominal(a plot.Axis) bool {
	_, ok := a.Tick.Marker.(plot.ConstantTicks)
	return ok
}

func TestRatioFigures(t *testing.T) {
	s := sampleSimulate()
	figs := Figures(s, Options{})
	if got, want := names(figs), []string{"ratio-histogram", "ratio-cdf", "trial-max-cdf", "timeline", "visibility", "kv-cost", "free-plan"}; !slices.Equal(got, want) {
		t.Fatalf("figures %v, want %v", got, want)
	}
	h := figure(t, figs, "ratio-histogram")
	if got := LegendEntries(h.Plot); !slices.Equal(got, []string{"key-windows", "the limit (ratio 1)"}) {
		t.Errorf("histogram legend %v", got)
	}
	if !strings.Contains(h.Plot.Y.Label.Text, "log scale") {
		t.Errorf("histogram over 3 decades should use a log count axis, label %q", h.Plot.Y.Label.Text)
	}
	var b *bars
	for _, pl := range plotters(h.Plot) {
		if v, ok := pl.(*bars); ok {
			b = v
		}
	}
	if b == nil || len(b.xs) != len(s.Overshoot.Histogram) || b.xs[len(b.xs)-1] != 38.0/5 {
		t.Fatalf("histogram bars: %+v", b)
	}
	// The limit line stands at ratio 1.
	if l := lines(h.Plot); len(l) != 1 || l[0].XYs[0].X != 1 || l[0].XYs[1].X != 1 {
		t.Errorf("limit marker: %+v", l)
	}

	c := figure(t, figs, "ratio-cdf")
	cl := lines(c.Plot)
	if len(cl) != 2 {
		t.Fatalf("cdf has %d lines, want the CDF and the limit", len(cl))
	}
	cdf := cl[0].XYs
	if cdf[0].Y != 0 || math.Abs(cdf[len(cdf)-1].Y-1) > 1e-12 || cdf[len(cdf)-1].X != 7.6 {
		t.Errorf("cdf runs from %v to %v, want 0 to 1 ending at 7.6", cdf[0], cdf[len(cdf)-1])
	}
	if !slices.IsSortedFunc(cdf, func(a, b plotter.XY) int { return compare(a.Y, b.Y) }) {
		t.Error("cdf is not monotone")
	}

	tm := figure(t, figs, "trial-max-cdf")
	if got := LegendEntries(tm.Plot); !slices.Equal(got, []string{"central 95% of trials", "trials' max ratio", "the limit (ratio 1)"}) {
		t.Errorf("trial max legend %v", got)
	}
	if n := len(lines(tm.Plot)[0].XYs); n != s.Trials+1 {
		t.Errorf("trial max CDF has %d points, want trials+1 = %d", n, s.Trials+1)
	}
}

func compare(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestKVWorkFigure(t *testing.T) {
	f := KVWork(sampleSimulate())
	if f == nil {
		t.Fatal("no KV figure")
	}
	if !strings.HasSuffix(f.Plot.Title.Text, "\n$0.742 per million requests at paid-plan prices") {
		t.Errorf("title does not carry the price: %q", f.Plot.Title.Text)
	}
	var bc *bars
	for _, pl := range plotters(f.Plot) {
		if v, ok := pl.(*bars); ok {
			bc = v
		}
	}
	// 1e6 reads beside 800 errors span more than 20x: a log axis, so that
	// every bar shows, each with its value written on it.
	if bc == nil || len(bc.ys) != 5 || bc.ys[0] != 6 || math.Abs(bc.ys[1]-math.Log10(48_455)) > 1e-9 {
		t.Fatalf("bars %+v", bc)
	}
	if !strings.Contains(f.Plot.Y.Label.Text, "log scale") {
		t.Errorf("y label %q: want a log scale", f.Plot.Y.Label.Text)
	}
	var labels []string
	for _, pl := range plotters(f.Plot) {
		if v, ok := pl.(*plotter.Labels); ok {
			labels = v.Labels
		}
	}
	if !slices.Equal(labels, []string{"1,000,000", "48,455", "0", "621", "4,200"}) {
		t.Errorf("values on the bars %q", labels)
	}
	ticks := f.Plot.X.Tick.Marker.Ticks(0, 4)
	if len(ticks) != 5 || ticks[0].Label != "reads (billed)" || ticks[3].Label != "write errors" {
		t.Errorf("bar names %v", ticks)
	}
}

func TestSweepFigures(t *testing.T) {
	s := sampleSweep()
	figs := SweepFigures(s)
	if len(figs) != 2 || figs[1].Name != "sweep-trials" {
		t.Fatalf("a numeric x categorical sweep gives %v, want sweep and sweep-trials (no heat map)", names(derefs(figs)))
	}
	p := figs[0].Plot
	if p.X.Label.Text != "traffic.bot.closed_loop.concurrency (value, log scale)" {
		t.Errorf("x label %q", p.X.Label.Text)
	}
	// Every point's p50 is 1x, under the limit line: not drawn, no entry.
	want := []string{"kind=kv", "kind=durable-object", "kind=per-location", "max (solid)", "p99 (dashed)", "the limit (ratio 1)"}
	if got := LegendEntries(p); !slices.Equal(got, want) {
		t.Errorf("legend %v, want %v", got, want)
	}
	// Per store: a band, a max and a p99 line; each with 7 points.
	var polys, full int
	for _, pl := range plotters(p) {
		switch v := pl.(type) {
		case *plotter.Polygon:
			polys++
		case *plotter.Line:
			if len(v.XYs) == 7 {
				full++
			}
		}
	}
	if polys != 3 || full != 6 {
		t.Errorf("%d bands and %d full lines, want 3 and 6", polys, full)
	}

	g := SweepFigures(sampleGrid())
	if len(g) != 3 || g[1].Name != "sweep-heatmap" || g[2].Name != "sweep-trials" {
		t.Fatalf("grid figures %v", g)
	}
	var hm *plotter.HeatMap
	for _, pl := range plotters(g[1].Plot) {
		if v, ok := pl.(*plotter.HeatMap); ok {
			hm = v
		}
	}
	if hm == nil {
		t.Fatal("no heat map")
	}
	if c, r := hm.GridXYZ.Dims(); c != 4 || r != 3 {
		t.Errorf("heat map is %dx%d, want 4 TTLs x 3 concurrencies", c, r)
	}
	// Values sort numerically (30s < 60s < 120s < 300s), not as text.
	ticks := g[1].Plot.X.Tick.Marker.Ticks(0, 1)
	if ticks[0].Label != "30s" || ticks[3].Label != "300s" {
		t.Errorf("heat map x ticks %v", ticks)
	}

	// A sweep over one categorical parameter: named positions.
	cat := sampleSweep()
	cat.Points = cat.Points[:0]
	for _, k := range []string{"kv", "memory"} {
		p := sampleSimulate()
		cat.Points = append(cat.Points, measure.Point{Params: []measure.Param{{Path: "store.kind", Value: k}}, Summary: p})
	}
	cf := SweepFigures(cat)
	if len(cf) != 2 || nominal(cf[0].Plot.X) == false || cf[1].Name != "sweep-trials" {
		t.Fatalf("categorical sweep: %v", cf)
	}
}

func TestParamNumber(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		unit string
		ok   bool
	}{
		{"32", 32, "", true}, {"0.5", 0.5, "", true}, {"250ms", 0.25, "s", true}, {"60s", 60, "s", true},
		{"1d", 86400, "s", true}, {"2h", 7200, "s", true}, {"10/s", 10, "requests/s", true}, {"600/m", 10, "requests/s", true},
		{"kv", 0, "", false}, {"5/x", 0, "", false}, {"", 0, "", false},
	} {
		got, unit, ok := paramNumber(tc.in)
		if ok != tc.ok || (ok && (math.Abs(got-tc.want) > 1e-9 || unit != tc.unit)) {
			t.Errorf("paramNumber(%q) = %v %q %v, want %v %q %v", tc.in, got, unit, ok, tc.want, tc.unit, tc.ok)
		}
	}
}

func TestTimelineAndLive(t *testing.T) {
	s := sampleAttack()
	f := Timeline(s)
	if f == nil {
		t.Fatal("no timeline")
	}
	ls := lines(f.Plot)
	// One key, the limit, the window's start and (10 s window, visible) end.
	if len(ls) != 4 {
		t.Fatalf("timeline has %d lines, want 4", len(ls))
	}
	key := ls[0].XYs
	if key[len(key)-1].Y != 35 || key[1].X < 0 {
		t.Errorf("cumulative line ends at %v", key[len(key)-1])
	}
	if ls[1].XYs[0].Y != 5 {
		t.Errorf("limit line at %v, want 5", ls[1].XYs[0].Y)
	}
	if ls[3].XYs[0].X != 10 {
		t.Errorf("window end at %v, want 10 s", ls[3].XYs[0].X)
	}

	day := Timeline(sampleSimulate())
	if !strings.Contains(day.Caption, "not drawn") {
		t.Errorf("a day window's end far off the plot should be said: %s", day.Caption)
	}

	live := LiveFigures(s, &Extra{LiveSeries: sampleSeries()})
	var got []string
	for _, f := range live {
		if f != nil {
			got = append(got, f.Name)
		}
	}
	if want := []string{"live-latency", "live-rate", "live-status", "live-latency-time", "live-rate-time", "live-status-time"}; !slices.Equal(got, want) {
		t.Errorf("live figures %v, want %v", got, want)
	}
	if st := LegendEntries(live[5].Plot); !slices.Equal(st, []string{"200", "429"}) {
		t.Errorf("status over time legend %v", st)
	}
	if LiveFigures(sampleSimulate(), nil) != nil {
		t.Error("a simulated run got live figures")
	}
}

// BenchmarkFigures measures building and drawing every figure of the
// sample simulate report (PNG and SVG), the bulk of Write's time.
func BenchmarkFigures(b *testing.B) {
	s := sampleSimulate()
	for b.Loop() {
		for _, f := range Figures(s, Options{}) {
			if _, _, err := render(&f); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// pointsSweep is a sweep over one parameter with the given max ratios (p50
// and p99 equal to max unless set).
func pointsSweep(path string, values []string, maxes, p50s []float64) *measure.Summary {
	s := sampleSimulate()
	s.Totals, s.Overshoot = measure.Totals{}, measure.Overshoot{}
	for i, v := range values {
		p := sampleSimulate()
		p.Overshoot.Ratio.Max, p.Overshoot.Ratio.P99, p.Overshoot.Ratio.P50 = maxes[i], maxes[i], maxes[i]
		if p50s != nil {
			p.Overshoot.Ratio.P50 = p50s[i]
		}
		p.Overshoot.PerTrial.MaxRatio = measure.Interval{Lo: maxes[i] * 0.9, Hi: maxes[i]}
		s.Points = append(s.Points, measure.Point{Params: []measure.Param{{Path: path, Value: v}}, Summary: p})
	}
	return s
}

func TestFigureScales(t *testing.T) {
	conc := "traffic.bot.closed_loop.concurrency"
	tests := []struct {
		name       string
		s          *measure.Summary
		logX, logY bool
		legend     []string
	}{
		{"multiplicative axis: log-log", pointsSweep(conc, []string{"1", "16", "256"}, []float64{10, 160, 2560}, []float64{8, 150, 2500}),
			true, true, []string{"95% of trials' max", "max = p99", "p50", "the limit (ratio 1)"}},
		{"narrow axis, narrow values: linear; p50 under the limit line", pointsSweep(conc, []string{"1", "2", "4"}, []float64{2, 3, 4}, []float64{1, 1, 1}),
			false, false, []string{"95% of trials' max", "max = p99", "the limit (ratio 1)"}},
		{"categories spanning 40x: log y", pointsSweep("store.kind", []string{"kv", "per-location", "memory"}, []float64{40, 3, 1}, nil),
			false, true, []string{"95% of trials' max", "max = p99 = p50", "the limit (ratio 1)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			figs := SweepFigures(tt.s)
			if len(figs) == 0 {
				t.Fatal("no sweep figure")
			}
			p := figs[0].Plot
			if got := strings.Contains(p.X.Label.Text, "log scale"); got != tt.logX {
				t.Errorf("x label %q: log %v, want %v", p.X.Label.Text, got, tt.logX)
			}
			if got := strings.Contains(p.Y.Label.Text, "log scale"); got != tt.logY {
				t.Errorf("y label %q: log %v, want %v", p.Y.Label.Text, got, tt.logY)
			}
			if tt.logX && !tt.logY {
				t.Error("log x over linear y")
			}
			if got := LegendEntries(p); !slices.Equal(got, tt.legend) {
				t.Errorf("legend %q, want %q", got, tt.legend)
			}
		})
	}
}

func TestFigureSaysWhenEmpty(t *testing.T) {
	// Failing open denies no user: a false-denial figure would be a flat
	// line at 0, so it says so instead.
	s := outageSweep()
	for _, p := range s.Points {
		p.Summary.Populations[1].FalseDenials = 0
	}
	figs := SweepFigures(s)
	if len(figs) != 3 || figs[0].Name != "sweep" || figs[0].Plot != nil || !strings.Contains(figs[0].Empty, "0 at every sweep point") {
		t.Fatalf("figures %v; first: %+v", names(derefs(figs)), figs[0])
	}
	if figs[1].Name != "sweep-ratio" || figs[1].Plot == nil {
		t.Errorf("the ratio figure should follow: %v", names(derefs(figs)))
	}
	v := sampleSimulate()
	v.KV.Visibility = []measure.VisibilityPoint{{SinceMs: 10, Reads: 5, Fresh: 5, P: 1}, {SinceMs: 100, Reads: 7, Fresh: 7, P: 1}}
	if f := Visibility(v); f == nil || f.Plot != nil || !strings.Contains(f.Empty, "no read was stale") {
		t.Errorf("visibility with no stale read: %+v", f)
	}
	// An empty figure is text in the report, not an image.
	dir := writeReport(t, s, Options{})
	html, _ := os.ReadFile(filepath.Join(dir, HTMLFile))
	if !bytes.Contains(html, []byte(`<p class="empty-figure">`)) {
		t.Error("report.html does not say the empty figure in words")
	}
	if _, err := os.Stat(filepath.Join(dir, "sweep.png")); err == nil {
		t.Error("an empty figure was drawn")
	}
}

func derefs(fs []*Figure) []Figure {
	var out []Figure
	for _, f := range fs {
		out = append(out, *f)
	}
	return out
}

func TestFigureResolutionAndDots(t *testing.T) {
	f := KVWork(sampleSimulate())
	png, svg, err := render(f)
	if err != nil {
		t.Fatal(err)
	}
	img, err := pngDecode(png)
	if err != nil || img.Bounds().Dx() != 2*f.ShownWidth() {
		t.Errorf("PNG is %v wide, want twice the shown %d px (err %v)", img.Bounds().Dx(), f.ShownWidth(), err)
	}
	if !bytes.Contains(svg, []byte("<svg")) {
		t.Error("no SVG")
	}
	// Percentiles of one distribution are points, not bars.
	lat := liveLatency(sampleAttack().Live)
	for _, pl := range plotters(lat.Plot) {
		if _, ok := pl.(*bars); ok {
			t.Error("latency percentiles drawn as bars")
		}
	}
}

func pngDecode(b []byte) (image.Image, error) { return png.Decode(bytes.NewReader(b)) }

// TestLatencyFigures: a live run with latency split by decision draws it
// (log scale when allowed and denied are far apart) and, with samples, a
// dot per response coloured by decision instead of percentiles per
// interval; without the split the pooled percentiles stay.
func TestLatencyFigures(t *testing.T) {
	s := sampleAttack()
	s.LatencyMs = &s.Live.LatencyMs
	s.LatencyByDecision = &measure.LatencyByDecision{
		Allowed: &measure.Stats{N: 35, P50: 100, P95: 140, P99: 150, Max: 160, Mean: 105},
		Denied:  &measure.Stats{N: 3_965, P50: 3, P95: 9, P99: 14, Max: 21, Mean: 4},
	}
	var samples []measure.LatencySample
	for i := range 40 {
		d, ms := measure.DecidedDenied, 3.0
		if i%10 == 0 {
			d, ms = measure.DecidedAllowed, 100
		}
		samples = append(samples, measure.LatencySample{AtSecs: float64(i) / 4, Ms: ms, Decision: d})
	}
	samples = append(samples, measure.LatencySample{AtSecs: 1, Ms: 0, Decision: measure.DecidedDenied})
	live := LiveFigures(s, &Extra{LiveSeries: sampleSeries(), LatencySamples: samples})
	var got []string
	for _, f := range live {
		if f != nil {
			got = append(got, f.Name)
		}
	}
	if want := []string{"live-latency-decision", "live-rate", "live-status", "live-latency-time", "live-rate-time", "live-status-time"}; !slices.Equal(got, want) {
		t.Fatalf("live figures %v, want %v", got, want)
	}
	dec := live[0]
	if _, ok := dec.Plot.Y.Tick.Marker.(log10Ticks); !ok {
		t.Error("latency from 3 to 160 ms is not on a log scale")
	}
	if st := LegendEntries(dec.Plot); !slices.Equal(st, []string{"p50", "p95", "p99", "max"}) {
		t.Errorf("latency by decision legend %v", st)
	}
	if !strings.Contains(dec.Caption, "denied: 3,965 responses, p50 3 ms") {
		t.Errorf("caption does not give the denied latency: %s", dec.Caption)
	}
	overTime := live[3]
	if st := LegendEntries(overTime.Plot); !slices.Equal(st, []string{"denied (3,965)", "allowed (35)"}) {
		t.Errorf("latency over time legend %v, want the most numerous first", st)
	}
	if !strings.Contains(overTime.Caption, "1 response that took no measurable time is") {
		t.Errorf("a 0 ms response off the log scale is not said: %s", overTime.Caption)
	}

	var rows []string
	for _, tb := range tables(s) {
		for _, r := range tb.Rows {
			rows = append(rows, strings.Join(r, ": "))
		}
	}
	if !slices.Contains(rows, "Latency of denied responses (3,965): p50, p99, max: 3, 14, 21 ms") {
		t.Errorf("the live table lacks the denied latency: %q", rows)
	}

	s.LatencyByDecision = nil
	if f := LiveFigures(s, nil); f[0] == nil || f[0].Name != "live-latency" {
		t.Errorf("without the split the first live figure is %v, want live-latency", f[0])
	}
}

// TestSweepTrials: a sweep gets each point's per-trial max ratios as a
// strip with the median; points without trials say so in words.
func TestSweepTrials(t *testing.T) {
	s := sampleSweep()
	f := SweepTrials(s)
	if f == nil || f.Plot == nil || f.Name != "sweep-trials" {
		t.Fatalf("sweep trials figure %+v", f)
	}
	if got := LegendEntries(f.Plot); !slices.Equal(got, []string{"one trial's max ratio", "median over the trials"}) {
		t.Errorf("legend %v", got)
	}
	var names []string
	for _, g := range SweepFigures(s) {
		names = append(names, g.Name)
	}
	if !slices.Contains(names, "sweep-trials") {
		t.Errorf("sweep figures %v lack sweep-trials", names)
	}
	for i := range s.Points {
		s.Points[i].Summary.Overshoot.PerTrial.MaxRatios = nil
	}
	if f := SweepTrials(s); f == nil || f.Plot != nil || !strings.Contains(f.Empty, "No sweep point has a trial") {
		t.Errorf("no trials: %+v", f)
	}
	if SweepTrials(sampleSimulate()) != nil {
		t.Error("a single run got a sweep trials figure")
	}
}

// TestReadGroupsFigure draws the worst key-window's read groups: none when
// no summary knows what its requests read, one series for one summary, the
// prediction and the measurement side by side under -compare, each bar
// the count of requests that read that count, every count of a small limit
// drawn (a summary leaves out the counts past the last one read).
func TestReadGroupsFigure(t *testing.T) {
	if f := ReadGroups(sampleSimulate(), nil, "", ""); f != nil {
		t.Errorf("read groups without any known: %+v, want nil", f)
	}
	pred, meas := sampleSimulate(), sampleAttack()
	pred.WorstKeys[0].ReadGroups = []int64{1, 16, 16, 16, 3}
	meas.WorstKeys = []measure.KeyTimeline{{Allowed: 52, ReadGroups: []int64{1, 4, 47}}}
	f := ReadGroups(pred, nil, "", "")
	if f == nil || f.Name != "read-groups" {
		t.Fatalf("read groups of one summary: %+v", f)
	}
	if got := LegendEntries(f.Plot); len(got) != 1 || !strings.Contains(got[0], "worst key-window of its") {
		t.Errorf("one summary's legend %v", got)
	}
	f = ReadGroups(pred, meas, "predicted", "measured")
	got := LegendEntries(f.Plot)
	if len(got) != 2 || !strings.HasPrefix(got[0], "predicted, ") || got[1] != "measured, the worst key-window of the live run" {
		t.Errorf("compared legend %v", got)
	}
	var heights [][]float64
	for _, pl := range plotters(f.Plot) {
		if b, ok := pl.(*bars); ok {
			heights = append(heights, b.ys)
		}
	}
	if len(heights) != 2 || !slices.Equal(heights[0], []float64{1, 16, 16, 16, 3}) || !slices.Equal(heights[1], []float64{1, 4, 47, 0, 0}) {
		t.Errorf("bar heights %v", heights)
	}
	if !strings.Contains(f.Caption, "at most 47 on one count") {
		t.Errorf("caption %q does not state the measured largest group", f.Caption)
	}
}

// TestTimelineNamesApart: worst key-windows that keyWords would name
// alike (a shared token behind several addresses, one window, one trial)
// are told apart in the legend by their callers; distinct names are kept.
func TestTimelineNamesApart(t *testing.T) {
	s := &measure.Summary{Trials: 2, Limiter: measure.LimiterRef{WindowSecs: 86400},
		Populations: []measure.Population{{Name: "botnet"}, {Name: "users"}},
		WorstKeys: []measure.KeyTimeline{
			{Key: "rl:roast:anon-p0:100.64.0.1:20454", Window: 20454, Allowed: 120},
			{Key: "rl:roast:anon-p0:100.64.0.2:20454", Window: 20454, Allowed: 120},
			{Key: "rl:roast:anon-p1-c3:10.0.0.9:20454", Window: 20454, Allowed: 7},
		}}
	got := timelineNames(s)
	want := []string{
		"botnet, window from Jan 1 00:00 UTC, trial 1 (anon-p0:100.64.0.1): 120 allowed",
		"botnet, window from Jan 1 00:00 UTC, trial 1 (anon-p0:100.64.0.2): 120 allowed",
		"users client 4, window from Jan 1 00:00 UTC, trial 1: 7 allowed",
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("name %d = %q, want %q", i, got[i], want[i])
		}
	}
}

// TestZeroWidthBandShows: a band whose edges meet (every trial alike)
// draws its edge, so that it is seen; a band with width fills only.
func TestZeroWidthBandShows(t *testing.T) {
	c := translucent(colorAt(0), 0x40)
	if b := band([]float64{1, 2}, []float64{3, 3}, []float64{3, 3}, c); b == nil || b.LineStyle.Width <= 0 {
		t.Errorf("zero-width band draws no edge: %+v", b)
	}
	if b := band([]float64{1, 2}, []float64{3, 3}, []float64{4, 5}, c); b == nil || b.LineStyle.Width != 0 {
		t.Errorf("a band with width draws an edge: %+v", b)
	}
}
