package report

import (
	"bytes"
	"image/color"
	"image/png"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure is one figure of a report: a gonum plot and the words around it.
type Figure struct {
	// Name is the file base name (Name.png, Name.svg) and the HTML anchor.
	Name string
	// Title is the figure's title, also the plot's: it states the question.
	Title string
	// Caption says what the figure shows and what was left out of it.
	Caption string
	// Plot is the figure; tests inspect it.
	Plot *plot.Plot
	// Width and Height are the drawing's size.
	Width, Height vg.Length
	// Empty, when set, replaces the figure: it says in words why there is
	// nothing to draw (every read saw the latest write, no point measured
	// the metric). Plot is then nil and no image is written.
	Empty string

	png []byte // rendered, for the HTML
}

// Sans is the typeface of every figure: Liberation Sans, which gonum/plot
// embeds (its default is Liberation Serif), so figures look the same on
// every machine without system fonts.
var Sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// Figure size and resolution: 16 cm x 10 cm is shown at 756 x 472 CSS
// pixels (120 dpi) and drawn at twice that (240 dpi), so that it stays
// sharp on high-density screens.
const (
	figWidth  = 16 * vg.Centimeter
	figHeight = 10 * vg.Centimeter
	figDPI    = 240
	shownDPI  = 120
)

// ShownWidth is the width in CSS pixels report.html shows the figure at:
// half its PNG's, so that the PNG is sharp on high-density screens.
func (f Figure) ShownWidth() int {
	w := f.Width
	if w <= 0 {
		w = figWidth
	}
	return int(w.Points()/vg.Inch.Points()*shownDPI + 0.5)
}

// Colours: the Okabe-Ito palette, distinguishable with colour-blindness.
var palette = []color.Color{
	color.RGBA{0x00, 0x72, 0xB2, 0xff}, // blue
	color.RGBA{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	color.RGBA{0x00, 0x9E, 0x73, 0xff}, // bluish green
	color.RGBA{0xE6, 0x9F, 0x00, 0xff}, // orange
	color.RGBA{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	color.RGBA{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	color.RGBA{0x00, 0x00, 0x00, 0xff}, // black
	color.RGBA{0xF0, 0xE4, 0x42, 0xff}, // yellow
}

var (
	limitColor = color.RGBA{0xC0, 0x00, 0x00, 0xff}
	gridColor  = color.Gray{0xE0}
	grayColor  = color.Gray{0x70}
)

func colorAt(i int) color.Color { return palette[i%len(palette)] }

// translucent is c with alpha a (premultiplied, as image/color wants).
func translucent(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	f := float64(a) / 255
	return color.RGBA{uint8(float64(r>>8) * f), uint8(float64(g>>8) * f), uint8(float64(b>>8) * f), a}
}

// newPlot is a plot in the report's one style: sans text, a light grid,
// the title and axis labels given (labels carry units).
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(Sans, 13)
	p.Title.Padding = 6
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(Sans, 11)
		a.Tick.Label.Font = font.From(Sans, 9)
		a.Tick.Marker = niceTicks{}
	}
	p.Legend.TextStyle.Font = font.From(Sans, 9)
	p.Legend.Top = true
	p.Legend.ThumbnailWidth = 0.6 * vg.Centimeter
	g := plotter.NewGrid()
	g.Vertical.Color = gridColor
	g.Horizontal.Color = gridColor
	p.Add(g)
	return p
}

// line is a styled line over the given points; nil when no point remains.
func line(xys plotter.XYs, c color.Color, width vg.Length, dashes ...vg.Length) *plotter.Line {
	if len(xys) == 0 {
		return nil
	}
	l, err := plotter.NewLine(xys)
	if err != nil {
		return nil
	}
	l.Color = c
	l.Width = width
	l.Dashes = dashes
	return l
}

// stepLine is a line that holds each value until the next point (a CDF or
// a cumulative count).
func stepLine(xys plotter.XYs, c color.Color) *plotter.Line {
	l := line(xys, c, 1.6)
	if l != nil {
		l.StepStyle = plotter.PostStep
	}
	return l
}

// vline is a vertical marker at x from y0 to y1.
func vline(x, y0, y1 float64, c color.Color, dashes ...vg.Length) *plotter.Line {
	return line(plotter.XYs{{X: x, Y: y0}, {X: x, Y: y1}}, c, 1.2, dashes...)
}

// hline is a horizontal marker at y from x0 to x1.
func hline(y, x0, x1 float64, c color.Color, dashes ...vg.Length) *plotter.Line {
	return line(plotter.XYs{{X: x0, Y: y}, {X: x1, Y: y}}, c, 1.2, dashes...)
}

// band is a filled area between lo and hi along x.
func band(xs, lo, hi []float64, c color.Color) *plotter.Polygon {
	if len(xs) == 0 {
		return nil
	}
	var pts plotter.XYs
	for i := range xs {
		pts = append(pts, plotter.XY{X: xs[i], Y: lo[i]})
	}
	for i := len(xs) - 1; i >= 0; i-- {
		pts = append(pts, plotter.XY{X: xs[i], Y: hi[i]})
	}
	poly, err := plotter.NewPolygon(pts)
	if err != nil {
		return nil
	}
	poly.Color = c
	poly.LineStyle.Width = 0
	if zeroWidth(lo, hi) {
		// A band of no width (every trial alike) fills nothing: draw its
		// edge instead, in the band's colour made opaque, so that it shows.
		r, g, b, _ := c.RGBA()
		poly.LineStyle.Width = vg.Points(2)
		poly.LineStyle.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0xff}
	}
	return poly
}

// zeroWidth reports whether a band's upper edge is its lower one
// everywhere.
func zeroWidth(lo, hi []float64) bool {
	for i := range lo {
		if hi[i] != lo[i] {
			return false
		}
	}
	return true
}

// addLine adds l (when not nil) to p, with a legend entry when name is set.
func addLine(p *plot.Plot, name string, l plot.Plotter) {
	if l == nil || isNilPlotter(l) {
		return
	}
	p.Add(l)
	if th, ok := l.(plot.Thumbnailer); ok && name != "" {
		p.Legend.Add(name, th)
	}
}

func isNilPlotter(l plot.Plotter) bool {
	switch v := l.(type) {
	case *plotter.Line:
		return v == nil
	case *plotter.Polygon:
		return v == nil
	case *plotter.Scatter:
		return v == nil
	case *plotter.BarChart:
		return v == nil
	case *bars:
		return v == nil
	}
	return false
}

// bars draws bars of the given heights centred at xs, from floor up, so
// that a log y axis (floor > 0) works; gonum's Histogram starts at 0.
type bars struct {
	xs, ys []float64
	width  float64
	floor  float64
	color  color.Color
}

// Plot implements plot.Plotter.
func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i := range b.xs {
		if b.ys[i] <= b.floor {
			continue
		}
		x0, x1 := trX(b.xs[i]-b.width/2), trX(b.xs[i]+b.width/2)
		y0, y1 := trY(b.floor), trY(b.ys[i])
		if x1-x0 < 1 {
			x1 = x0 + 1 // always visible
		}
		pts := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
		c.FillPolygon(b.color, c.ClipPolygonXY(pts))
	}
}

// DataRange implements plot.DataRanger.
func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = math.Inf(1), math.Inf(-1), b.floor, b.floor
	for i := range b.xs {
		xmin = math.Min(xmin, b.xs[i]-b.width/2)
		xmax = math.Max(xmax, b.xs[i]+b.width/2)
		ymax = math.Max(ymax, b.ys[i])
	}
	return xmin, xmax, ymin, ymax
}

// Thumbnail implements plot.Thumbnailer for the legend.
func (b *bars) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}}
	c.FillPolygon(b.color, c.ClipPolygonY(pts))
}

// render draws a figure as PNG and SVG.
func render(f *Figure) (pngData, svgData []byte, err error) {
	w, h := f.Width, f.Height
	if w <= 0 {
		w = figWidth
	}
	if h <= 0 {
		h = figHeight
	}
	svg := vgsvg.New(w, h) // white background by default
	f.Plot.Draw(draw.New(svg))
	var sb bytes.Buffer
	if _, err := svg.WriteTo(&sb); err != nil {
		return nil, nil, err
	}
	// The SVG names the font without embedding it (that would add 400 kB
	// per file); Liberation Sans is metric-compatible with Arial, so fall
	// back to it, then to any sans-serif, rather than the browser's serif.
	svgData = bytes.ReplaceAll(sb.Bytes(), []byte("font-family:Liberation Sans;"),
		[]byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
	drawPNG := func() ([]byte, error) {
		img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(figDPI), vgimg.UseBackgroundColor(color.White))
		f.Plot.Draw(draw.New(img))
		var pb bytes.Buffer
		// The fastest deflate: at twice the shown resolution, compressing
		// harder took most of a report's time for a few percent of its size.
		if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&pb, img.Image()); err != nil {
			return nil, err
		}
		return pb.Bytes(), nil
	}
	if testHookPNG != nil {
		pngData, err = testHookPNG(svgData, drawPNG)
	} else {
		pngData, err = drawPNG()
	}
	if err != nil {
		return nil, nil, err
	}
	return pngData, svgData, nil
}

// testHookPNG, when set (by the tests), rasterizes a figure whose SVG is
// svg: the tests draw the same figures many times, and keep each PNG by
// its SVG (same drawing, same pixels) instead of rasterizing it again.
var testHookPNG func(svg []byte, draw func() ([]byte, error)) ([]byte, error)

// niceTicks labels about five round values (1, 2, 2.5 or 5 times a power
// of ten) with thousands separators, and puts minor ticks between them;
// gonum's default labels only about three.
type niceTicks struct{}

// Ticks implements plot.Ticker.
func (niceTicks) Ticks(min, max float64) []plot.Tick {
	if !finite(min) || !finite(max) || !(max > min) {
		return []plot.Tick{{Value: min, Label: tickLabel(min, 1)}}
	}
	raw := (max - min) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	start := math.Ceil(min/step) * step
	if start+step == start {
		return []plot.Tick{{Value: min, Label: tickLabel(min, step)}, {Value: max, Label: tickLabel(max, step)}}
	}
	var ts []plot.Tick
	for i := 0; i < 60; i++ {
		v := start + float64(i)*step
		if v > max+step*1e-9 {
			break
		}
		ts = append(ts, plot.Tick{Value: v, Label: tickLabel(v, step)})
		for k := 1; k < 5; k++ {
			if m := v + float64(k)*step/5; m <= max {
				ts = append(ts, plot.Tick{Value: m})
			}
		}
	}
	if first := start - step/5; first >= min {
		for m := start - step/5; m >= min && len(ts) < 400; m -= step / 5 {
			ts = append(ts, plot.Tick{Value: m})
		}
	}
	return ts
}

// tickLabel formats a tick value with as many decimals as the step needs
// (2.5 needs one), and thousands separators on whole numbers.
func tickLabel(v, step float64) string {
	if math.Abs(v) < step*1e-9 {
		return "0"
	}
	dec := 0
	for ; dec < 12; dec++ {
		x := step * math.Pow(10, float64(dec))
		if math.Abs(x-math.Round(x)) <= 1e-6*x {
			break
		}
	}
	if dec == 0 {
		return count(int64(math.Round(v)))
	}
	return strconv.FormatFloat(v, 'f', dec, 64)
}

// padTop leaves headroom above the data on a linear y axis so that lines
// and labels do not touch the frame (or the legend).
func padTop(p *plot.Plot, frac float64) {
	if finite(p.Y.Min) && finite(p.Y.Max) && p.Y.Max > p.Y.Min {
		p.Y.Max += frac * (p.Y.Max - p.Y.Min)
	}
}

// Logarithmic axes: gonum's LogScale panics on values <= 0 and places the
// axis label's glyph box by the arithmetic midpoint, which squeezes the
// plot; so figures plot log10 of the value on a linear axis and label the
// ticks with the values (logTicks). Callers drop values <= 0 first and say
// so in the caption.

// log10Ticks labels powers of ten (as values) and marks 2..9 between them,
// for an axis that holds log10 of the data.
type log10Ticks struct{}

// Ticks implements plot.Ticker.
func (log10Ticks) Ticks(min, max float64) []plot.Tick {
	if !finite(min) || !finite(max) || !(max > min) {
		return []plot.Tick{{Value: min, Label: num(math.Pow(10, min))}}
	}
	var ts []plot.Tick
	for e := math.Floor(min); e <= math.Ceil(max) && len(ts) < 400; e++ {
		if e >= min-1e-9 && e <= max+1e-9 {
			ts = append(ts, plot.Tick{Value: e, Label: powLabel(e)})
		}
		for k := 2; k < 10; k++ {
			if v := e + math.Log10(float64(k)); v >= min && v <= max {
				ts = append(ts, plot.Tick{Value: v})
			}
		}
	}
	if len(ts) == 0 || countLabels(ts) < 2 {
		// Less than a decade: label the ends.
		ts = append(ts, plot.Tick{Value: min, Label: num(math.Pow(10, min))}, plot.Tick{Value: max, Label: num(math.Pow(10, max))})
	}
	return ts
}

func countLabels(ts []plot.Tick) int {
	n := 0
	for _, t := range ts {
		if t.Label != "" {
			n++
		}
	}
	return n
}

// powLabel is 10^e written out: 0.01, 1, 1,000.
func powLabel(e float64) string {
	v := math.Pow(10, e)
	if e >= 0 {
		return count(int64(math.Round(v)))
	}
	return strconv.FormatFloat(v, 'f', int(-e), 64)
}

// probTicks labels 0, 0.25, 0.5, 0.75 and 1 only, so that a probability
// axis may extend above 1 to leave room for the legend.
func probTicks() plot.Ticker {
	var ts []plot.Tick
	for i := 0; i <= 20; i++ {
		v := float64(i) / 20
		t := plot.Tick{Value: v}
		if i%5 == 0 {
			t.Label = strconv.FormatFloat(v, 'f', -1, 64)
		}
		ts = append(ts, t)
	}
	return plot.ConstantTicks(ts)
}

// cdfAxis sets a 0..1 axis with headroom for n legend entries at the top.
func cdfAxis(p *plot.Plot, entries int) {
	p.Y.Min, p.Y.Max = 0, 1.04+0.065*float64(entries)
	p.Y.Tick.Marker = probTicks()
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs = 4
}

// addLabels writes each label beside its point in the report's sans font,
// centred on the point's height, and returns the labels (nil when there
// are none to draw) so that a caller can restyle some of them.
func addLabels(p *plot.Plot, l plotter.XYLabels) *plotter.Labels {
	lb, err := plotter.NewLabels(l)
	if err != nil {
		return nil
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Font.Typeface = Sans.Typeface
		lb.TextStyle[i].Font.Variant = Sans.Variant
		lb.TextStyle[i].YAlign = -0.5
	}
	p.Add(lb)
	return lb
}

// addValueLabels writes each label centred just above its point, raised by
// pad (in the y axis's units), in the report's sans font: a value on top
// of its bar. It returns the labels, nil when there are none to draw.
func addValueLabels(p *plot.Plot, l plotter.XYLabels, pad float64) *plotter.Labels {
	for i := range l.XYs {
		l.XYs[i].Y += pad
	}
	lb := addLabels(p, l)
	if lb != nil {
		for i := range lb.TextStyle {
			lb.TextStyle[i].XAlign, lb.TextStyle[i].YAlign = -0.5, 0 // centred, standing on the point
		}
	}
	return lb
}

// valueScale gives p's y axis the scale its data asks for: logarithmic
// (decade ticks, the label saying so) when the positive values from lo to
// hi span more than 20x, else linear. It returns whether it chose log, and
// where a value goes on that axis (false: it cannot be drawn there).
func valueScale(p *plot.Plot, lo, hi float64, label string) (bool, func(float64) (float64, bool)) {
	p.Y.Label.Text = label
	if hi/lo > 20 {
		p.Y.Tick.Marker = log10Ticks{}
		p.Y.Label.Text = label + " (log scale)"
		return true, logValue
	}
	return false, func(v float64) (float64, bool) { return v, finite(v) && v >= 0 }
}
