package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

var when = time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)

// writeReport writes s into a new folder under t.TempDir and returns it.
func writeReport(t *testing.T, s *measure.Summary, opts Options) string {
	t.Helper()
	dir, err := WriteNew(t.TempDir(), s, when, opts)
	if err != nil {
		t.Fatalf("WriteNew: %v", err)
	}
	return dir
}

func TestWriteFiles(t *testing.T) {
	tests := []struct {
		name    string
		s       *measure.Summary
		opts    Options
		figures []string
	}{
		{"simulate", sampleSimulate(), Options{}, []string{"ratio-histogram", "ratio-cdf", "trial-max-cdf", "timeline", "visibility", "kv-cost", "free-plan"}},
		{"attack+compare", sampleAttack(), Options{Compare: sampleSimulate(), Extra: &Extra{LiveSeries: sampleSeries()}},
			[]string{"ratio-histogram", "ratio-cdf", "compare-cdf", "timeline", "kv-cost", "free-plan", "live-latency", "live-rate", "live-status", "live-latency-time", "live-rate-time", "live-status-time"}},
		// A sweep's report has its base run's figures, then its own: the
		// base draws two here, as the simulate case draws all seven.
		{"sweep", twoFigures(sampleSweep()), Options{}, []string{"ratio-histogram", "ratio-cdf", "sweep", "sweep-trials"}},
		{"grid", twoFigures(sampleGrid()), Options{}, []string{"ratio-histogram", "ratio-cdf", "sweep", "sweep-heatmap", "sweep-trials"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := writeReport(t, tc.s, tc.opts)
			want := []string{SummaryFile, HTMLFile, MarkdownFile}
			if tc.opts.Compare != nil {
				want = append(want, CompareSummaryFile)
			}
			for _, f := range tc.figures {
				want = append(want, f+".png", f+".svg")
			}
			var got []string
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				got = append(got, e.Name())
			}
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("files in report folder:\n got %v\nwant %v", got, want)
			}
			for _, f := range tc.figures {
				b, _ := os.ReadFile(filepath.Join(dir, f+".png"))
				img, err := png.Decode(bytes.NewReader(b))
				if err != nil || img.Bounds().Dx() < 100 || img.Bounds().Dy() < 100 {
					t.Errorf("%s.png: decode err %v, size %v", f, err, img)
				}
				svg, _ := os.ReadFile(filepath.Join(dir, f+".svg"))
				if !bytes.Contains(svg, []byte("<svg")) {
					t.Errorf("%s.svg is not SVG", f)
				}
			}
			checkSafeReport(t, dir, tc.s)
			// summary.json is indented, and report.html holds every figure inline.
			b, _ := os.ReadFile(filepath.Join(dir, SummaryFile))
			if !bytes.Contains(b, []byte("\n  \"mode\"")) {
				t.Errorf("summary.json is not indented")
			}
			var back measure.Summary
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatalf("summary.json: %v", err)
			}
			if len(back.Points) != len(tc.s.Points) || (len(tc.s.Points) == 0 && back.Overshoot.MaxAllowed != tc.s.Overshoot.MaxAllowed) {
				t.Errorf("summary.json does not hold the summary")
			}
			// report.html holds every figure inline.
			html, _ := os.ReadFile(filepath.Join(dir, HTMLFile))
			if n := bytes.Count(html, []byte(`src="data:image/png;base64,`)); n != len(tc.figures) {
				t.Errorf("report.html has %d inline figures, want %d", n, len(tc.figures))
			}
			md, _ := os.ReadFile(filepath.Join(dir, MarkdownFile))
			for _, f := range tc.figures {
				if !bytes.Contains(md, []byte("]("+f+".png)")) {
					t.Errorf("report.md does not link %s.png", f)
				}
			}
			// No temporary files are left behind.
			if tmp, _ := filepath.Glob(filepath.Join(dir, "*.partial*")); len(tmp) > 0 {
				t.Errorf("temporary files left: %v", tmp)
			}
		})
	}
}

var (
	networkRef = regexp.MustCompile(`(?i)(src|href)=["'](https?:)?//`) // in escaped text the quotes are entities
	scriptTag  = regexp.MustCompile(`(?i)<script`)
)

// checkSafeReport checks what every report in dir must hold, whatever the
// summary s it was written from: summary.json parses back to s's mode and
// most allowed, and report.html has no script and refers to nothing on the
// network.
func checkSafeReport(t testing.TB, dir string, s *measure.Summary) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var back measure.Summary
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("summary.json does not parse: %v", err)
	}
	if back.Mode != s.Mode || len(s.Points) == 0 && back.Overshoot.MaxAllowed != s.Overshoot.MaxAllowed {
		t.Errorf("summary.json holds mode %q, most allowed %d: want %q and %d", back.Mode, back.Overshoot.MaxAllowed, s.Mode, s.Overshoot.MaxAllowed)
	}
	html, err := os.ReadFile(filepath.Join(dir, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	if m := networkRef.Find(html); m != nil {
		t.Errorf("report.html refers to the network: %s", m)
	}
	if m := scriptTag.Find(html); m != nil {
		t.Errorf("report.html has a script: %s", m)
	}
}

func TestHeadline(t *testing.T) {
	noReq := &measure.Summary{Scenario: measure.ScenarioRef{Name: "x"}, Limiter: measure.LimiterRef{Limit: 5, WindowSecs: 60}}
	within := sampleSimulate()
	within.Overshoot.MaxAllowed = 5
	within.Trials = 1
	sweepOnly := sampleSweep()
	sweepOnly.Totals = measure.Totals{}
	sweepWho := sampleSweep()
	sweepWho.Totals = measure.Totals{}
	for i := range sweepWho.Points {
		p := *sweepWho.Points[i].Summary
		p.Answer = &measure.Answer{Who: "a key of bot: 38 sent in 2s, all 38 let through, 7.60x the limit"}
		sweepWho.Points[i].Summary = &p
	}
	who := sampleSimulate()
	who.Answer = &measure.Answer{Who: "one key of burst: 500 sent in 1s, all 500 let through, 100.00x the limit",
		Notes: []string{"the limiter denied nothing: all 500 requests were let through"}}
	tests := []struct {
		name    string
		s       *measure.Summary
		traffic string
		want    string
	}{
		{"simulate", sampleSimulate(), "32 concurrent requests from one location",
			"With 32 concurrent requests from one location, a limit of 5 per day keyed by token and IP (fixed-window on kv) let through up to 38 (7.6x, ratio.max); in 95% of 200 trials at most 36 (7.2x)."},
		{"simulate, populations named", sampleSimulate(), "",
			"With 6,440 requests per trial over 1 min from bot and users, a limit of 5 per day keyed by token and IP (fixed-window on kv) let through up to 38 (7.6x, ratio.max); in 95% of 200 trials at most 36 (7.2x)."},
		{"attack", sampleAttack(), "",
			"With 4,000 requests over 10 s from bot, a limit of 5 per 10 s keyed by token and IP (fixed-window on eventual) was measured letting through up to 35 (7.0x, ratio.max)."},
		{"within the limit", within, "one user",
			"With one user, a limit of 5 per day keyed by token and IP (fixed-window on kv) let through up to 5 (1.0x, ratio.max): no key-window went over the limit."},
		{"who and why lead", who, "one burst",
			"The worst key-window: one key of burst: 500 sent in 1s, all 500 let through, 100.00x the limit. The limiter denied nothing: all 500 requests were let through. With one burst, a limit of 5 per day keyed by token and IP"},
		{"sweep names who", sweepWho, "", "Across 21 sweep points, most allowed in one key-window / limit (ratio.max) was highest at store.kind=kv, traffic.bot.closed_loop.concurrency=32: 7.6x; lowest at store.kind=durable-object, traffic.bot.closed_loop.concurrency=1: 1.2x. A limit of 5 per day let through up to 38 in one key-window (7.6x) at store.kind=kv, traffic.bot.closed_loop.concurrency=32. There, the worst key-window: a key of bot: 38 sent in 2s, all 38 let through, 7.60x the limit."},
		{"no requests", noReq, "", "No requests were made in this run, so there is nothing to measure: no key-window, no overshoot, no figures."},
		{"sweep only", sweepOnly, "", "Across 21 sweep points, most allowed in one key-window / limit (ratio.max) was highest at store.kind=kv, traffic.bot.closed_loop.concurrency=32: 7.6x; lowest at store.kind=durable-object, traffic.bot.closed_loop.concurrency=1: 1.2x. A limit of 5 per day let through up to 38 in one key-window (7.6x) at store.kind=kv, traffic.bot.closed_loop.concurrency=32."},
		{"sweep led by another metric", outageSweep(), "", "Across 2 sweep points, legitimate requests falsely denied (false_denials.rate) was highest at limiter.error_policy=fail-closed: 25.0%; lowest at limiter.error_policy=fail-open: 0.0%. A limit of 5 per day let through up to 38 in one key-window (7.6x) at limiter.error_policy=fail-open."},
		{"one run led by another metric", natOffice(), "20 users behind 2 addresses",
			"Legitimate requests falsely denied (false_denials.rate): 0.1%. With 20 users behind 2 addresses, a limit of 5 per day"},
		{"sweep with a base run", sampleSweep(), "32 concurrent requests from one location",
			"With 32 concurrent requests from one location, a limit of 5 per day keyed by token and IP (fixed-window on kv) let through up to 38 (7.6x, ratio.max); in 95% of 200 trials at most 36 (7.2x). Across 21 sweep points, most allowed in one key-window / limit (ratio.max) was highest at store.kind=kv, traffic.bot.closed_loop.concurrency=32: 7.6x;"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Headline(tc.s, tc.traffic)
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("Headline:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestNoRequestsReport(t *testing.T) {
	s := &measure.Summary{Mode: "simulate", Scenario: measure.ScenarioRef{Name: "empty"}, Trials: 10, Complete: true,
		Limiter: measure.LimiterRef{Algorithm: "fixed-window", Limit: 5, WindowSecs: 86400, Store: "kv"}}
	if figs := Figures(s, Options{}); len(figs) != 0 {
		t.Fatalf("a run with no requests got %d figures", len(figs))
	}
	dir := writeReport(t, s, Options{})
	html, _ := os.ReadFile(filepath.Join(dir, HTMLFile))
	if !bytes.Contains(html, []byte("No requests were made")) {
		t.Error("report.html does not say that no requests were made")
	}
	if pngs, _ := filepath.Glob(filepath.Join(dir, "*.png")); len(pngs) != 0 {
		t.Errorf("empty figures written: %v", pngs)
	}
}

func TestNeverOverwrite(t *testing.T) {
	root := t.TempDir()
	d1, err := NewDir(root, "a/b c", when)
	if err != nil {
		t.Fatal(err)
	}
	d2, err := NewDir(root, "a/b c", when)
	if err != nil {
		t.Fatal(err)
	}
	if d1 == d2 || filepath.Dir(d1) != filepath.Join(root, "a-b-c") || filepath.Base(d2) != "20261130T080000Z-2" {
		t.Fatalf("NewDir gave %s then %s", d1, d2)
	}
	s := sampleTwoFigures()
	if err := Write(d1, s, Options{}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(d1, HTMLFile))
	s2 := sampleAttack()
	if err := Write(d1, s2, Options{}); err == nil {
		t.Fatal("a second Write into the same folder succeeded")
	}
	after, _ := os.ReadFile(filepath.Join(d1, HTMLFile))
	if !bytes.Equal(before, after) {
		t.Fatal("report.html was overwritten")
	}
	if err := writeAtomic(filepath.Join(d1, "ratio-cdf.png"), []byte("x")); err == nil {
		t.Fatal("writeAtomic replaced an existing file")
	}
	if err := Write(filepath.Join(root, "missing"), s, Options{}); err == nil {
		t.Fatal("Write into a missing folder succeeded")
	}
}

func TestNonFiniteAndLogAxes(t *testing.T) {
	t.Parallel()
	s := sampleSimulate()
	s.KV.Visibility = []measure.VisibilityPoint{
		{SinceMs: -5, Reads: 10, Fresh: 1, P: 0.1}, {SinceMs: 0, Reads: 10, Fresh: 2, P: 0.2},
		{SinceMs: math.NaN(), Reads: 10, Fresh: 2, P: 0.2}, {SinceMs: math.Inf(1), Reads: 1, Fresh: 1, P: 1},
		{SinceMs: 50, Reads: 10, Fresh: 5, P: math.NaN()}, {SinceMs: 500, Reads: 10, Fresh: 9, P: 0.9},
	}
	s.Overshoot.PerTrial.MaxRatios = append(s.Overshoot.PerTrial.MaxRatios, math.NaN(), math.Inf(1))
	s.Overshoot.Ratio.P99 = math.NaN()
	f := Visibility(s)
	if f == nil {
		t.Fatal("no visibility figure")
	}
	if !strings.Contains(f.Caption, "cannot show 0 ms") || !strings.Contains(f.Caption, "-5 ms") || !strings.Contains(f.Caption, "left out") {
		t.Errorf("caption does not say what was filtered: %s", f.Caption)
	}
	if tm := TrialMaxCDF(s); tm == nil || !strings.Contains(tm.Caption, "2 trials were left out") {
		t.Errorf("trial-max caption does not say NaN trials were left out")
	}
	dir := writeReport(t, s, Options{})
	html, _ := os.ReadFile(filepath.Join(dir, HTMLFile))
	if !bytes.Contains(html, []byte("NaN or infinite")) {
		t.Error("report does not warn of non-finite numbers")
	}
}

func TestCompare(t *testing.T) {
	pred, meas := sampleSimulate(), sampleAttack()
	p, m, pl, ml := compareRoles(meas, pred)
	if p != pred || m != meas || pl != "predicted" || ml != "measured" {
		t.Fatal("compareRoles did not take simulate as the prediction")
	}
	cmp := measure.Compare(p, m)
	got := compareSentence(p, m, pl, ml, &cmp)
	if !strings.Contains(got, "7.0x, is inside the predicted 95% band") {
		t.Errorf("sentence: %s", got)
	}
	hi := sampleAttack()
	hi.Overshoot.Ratio.Max = 12
	if got := compareSentence(pred, hi, pl, ml, &measure.Comparison{Verdict: measure.VerdictFails, Why: "outside"}); !strings.Contains(got, "is above") || !strings.Contains(got, "under-predicts") {
		t.Errorf("sentence for a measurement above the band: %s", got)
	}
	tab := compareTable(pred, meas, pl, ml)
	if len(tab.Rows) != 4 || tab.Rows[3][0] != "max" || tab.Rows[3][1] != "7.6x" || tab.Rows[3][2] != "7.0x" || tab.Rows[3][3] != "-0.60" || tab.Rows[3][4] != "-7.9%" {
		t.Errorf("quantile table: %v", tab.Rows)
	}
}

// TestMarkdownGolden checks report.md of the sample attack compared with
// its prediction against testdata/attack-compare.md (go test -update).
func TestMarkdownGolden(t *testing.T) {
	d := build(sampleAttack(), Options{Compare: sampleSimulate(), Traffic: "one bot with 32 requests in flight from one location", Generated: when})
	got, err := d.markdown()
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "attack-compare.md")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("report.md differs from %s (run go test -update if the change is intended):\n%s", golden, got)
	}
}

// FuzzWrite fills a summary with arbitrary numbers and text and writes its
// report: it must never panic, and the report must hold what TestWriteFiles
// holds of every report (checkSafeReport), whatever the text says.
func FuzzWrite(f *testing.F) {
	f.Add(int64(5), 86400.0, int64(100), int64(38), 7.6, 0.0, 10.0, 0.5, int64(3), 1.0, 2.0, "kv", "10")
	f.Add(int64(0), 0.0, int64(0), int64(0), math.NaN(), math.Inf(1), -1.0, math.NaN(), int64(-1), 1e300, -1e300, "", "")
	f.Add(int64(-3), -1.0, int64(1), int64(math.MaxInt64), 1e-300, 5e-324, 1e15, 2.0, int64(math.MinInt64), 0.0, 0.0, "x", "1e309")
	f.Add(int64(5), 60.0, int64(10), int64(7), 1.4, 1.0, 2.0, 0.5, int64(2), 1.0, 2.0, "<script>alert(1)</script>", `"><SCRIPT src="//evil.example/x.js">`)
	f.Add(int64(5), 60.0, int64(10), int64(7), 1.4, 1.0, 2.0, 0.5, int64(2), 1.0, 2.0, `<img src="https://evil.example/x.png">`, `<a href=//evil.example>`)
	f.Fuzz(func(t *testing.T, limit int64, window float64, requests, allowed int64, r, since, t0, p float64, kws int64, a, b float64, store, val string) {
		s := &measure.Summary{Mode: "simulate", Scenario: measure.ScenarioRef{Name: store}, Trials: int(kws % 1000), Complete: kws%2 == 0,
			Limiter: measure.LimiterRef{Limit: limit, WindowSecs: window, Store: store},
			Totals:  measure.Totals{Requests: requests, Allowed: allowed, SimulatedSeconds: t0},
			Overshoot: measure.Overshoot{KeyWindows: kws, MaxAllowed: allowed, OverLimitShare: p,
				Ratio:     measure.Stats{N: kws, Max: r, P50: a, P99: b, P95: p},
				PerTrial:  measure.PerTrial{MaxRatio: measure.Interval{Mean: r, Lo: a, Hi: b, P95: p}, MaxRatios: []float64{r, a, b, p, since}},
				Histogram: []measure.Bin{{Allowed: allowed, KeyWindows: kws}, {Allowed: limit, KeyWindows: requests}, {Allowed: kws, KeyWindows: 1}}},
			KV: measure.KVWork{Observed: true, Reads: requests, ReadErrors: kws, Visibility: []measure.VisibilityPoint{
				{SinceMs: since, Reads: kws, Fresh: allowed, P: p}, {SinceMs: a, Reads: requests, P: b}, {SinceMs: b, Reads: 1, P: r}}},
			Cost: measure.Cost{ReadsPerMillionRequests: a, WritesPerMillionRequests: b, USDPerMillionRequests: r,
				FreeWritesExhaustedAfterSecs: since, FreeReadsExhaustedAfterSecs: t0},
			WorstKeys: []measure.KeyTimeline{{Key: store, Allowed: allowed, AllowedAtSecs: []float64{since, t0, a, b}, WindowStartSecs: p}},
			Live:      &measure.Live{OfferedRate: a, AchievedRate: b, LatencyMs: measure.Stats{Max: r, P50: p}, Status: map[string]int64{val: kws}},
			Points: []measure.Point{
				{Params: []measure.Param{{Path: "x", Value: val}, {Path: "y", Value: store}}, Summary: &measure.Summary{Totals: measure.Totals{Requests: requests}, Overshoot: measure.Overshoot{KeyWindows: kws, Ratio: measure.Stats{Max: r, P50: a, P99: b}}}},
				{Params: []measure.Param{{Path: "x", Value: "7"}, {Path: "y", Value: "2"}}, Summary: &measure.Summary{Totals: measure.Totals{Requests: 1}, Overshoot: measure.Overshoot{KeyWindows: 1, Ratio: measure.Stats{Max: a}, PerTrial: measure.PerTrial{MaxRatio: measure.Interval{Lo: b, Hi: r}}}}},
				{Params: []measure.Param{{Path: "x", Value: "1"}, {Path: "y", Value: val}}, Summary: nil},
			},
		}
		extra := &Extra{LiveSeries: []LivePoint{{AtSecs: since, OfferedRate: a, AchievedRate: b, LatencyP50Ms: r, Status: map[string]int64{val: kws}}, {AtSecs: t0, LatencyP99Ms: p}}}
		dir := t.TempDir()
		if err := Write(dir, s, Options{Compare: s, Extra: extra, NoFigures: raceEnabled}); err != nil {
			t.Fatalf("Write: %v", err)
		}
		checkSafeReport(t, dir, s)
	})
}

// TestWriteSamples writes the sample reports under testdata/out (ignored
// by git) for a person to open: OVERSHOOT_REPORT_SAMPLES=1 go test -run
// TestWriteSamples ./internal/report/
func TestWriteSamples(t *testing.T) {
	if os.Getenv("OVERSHOOT_REPORT_SAMPLES") != "1" {
		t.Skip("set OVERSHOOT_REPORT_SAMPLES=1 to write sample reports under testdata/out")
	}
	cat := sampleSweep()
	cat.Scenario.Name = "store-sweep"
	cat.Points = nil
	for _, k := range []string{"kv", "durable-object", "memory"} {
		p := sampleSimulate()
		if k != "kv" {
			p.Overshoot.Ratio = measure.Stats{N: 6400, Max: 1, Mean: 0.8, P50: 1, P95: 1, P99: 1}
			p.Overshoot.PerTrial.MaxRatio = measure.Interval{Mean: 1, Lo: 1, Hi: 1, P95: 1}
		}
		cat.Points = append(cat.Points, measure.Point{Params: []measure.Param{{Path: "store.kind", Value: k}}, Summary: p})
	}
	for _, c := range []struct {
		s    *measure.Summary
		opts Options
	}{
		{sampleSimulate(), Options{Traffic: "32 concurrent requests from one location"}},
		{sampleAttack(), Options{Compare: sampleSimulate(), Extra: &Extra{LiveSeries: sampleSeries()}}},
		{sampleSweep(), Options{}}, {sampleGrid(), Options{}}, {cat, Options{}},
	} {
		dir, err := WriteNew(filepath.Join("testdata", "out"), c.s, time.Now(), c.opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Log(dir)
	}
}

// TestCompareReportShowsComparison: simulate -compare's report holds the
// summary's comparison (verdict, band, median, relative error, key-windows)
// and the live runs' repeats as tables, and draws the runs against the
// predicted band.
func TestCompareReportShowsComparison(t *testing.T) {
	pred, meas := sampleSimulate(), sampleAttack()
	meas.Repeats = measure.NewRepeats([]measure.RepeatRun{
		{RunID: "a-r1", MaxRatio: 6, Allowed: 30, MaxAllowed: 30, Complete: true},
		{RunID: "a-r2", MaxRatio: 7.2, Allowed: 36, MaxAllowed: 36, Complete: true},
		{RunID: "a-r3", MaxRatio: 4.2, Allowed: 21, MaxAllowed: 21, Complete: true},
	})
	cmp := measure.Compare(pred, meas)
	pred.Comparison = &cmp
	d := build(pred, Options{Compare: meas, NoFigures: true})
	var titles []string
	for _, tb := range d.CompareTables {
		titles = append(titles, tb.Title)
	}
	if want := []string{"Verdict", "Ratio allowed/limit across key-windows", "Repeated live runs (3)"}; !slices.Equal(titles, want) {
		t.Fatalf("compare tables %v, want %v", titles, want)
	}
	if v := d.CompareTables[0].Rows[0]; !strings.Contains(v[0], "median of 3 live runs") || v[1] != "6.0x" {
		t.Errorf("verdict's measured row %v", v)
	}
	if !strings.Contains(d.Compare, "median max ratio over its 3 runs, 6.0x") {
		t.Errorf("the sentence does not hold the runs' median against the band: %s", d.Compare)
	}
	if rows := d.CompareTables[2].Rows; len(rows) != 6 || rows[3][0] != "median" || rows[3][1] != "6.0x" {
		t.Errorf("repeats table rows %v", rows)
	}
	html, err := d.html()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<h3>Verdict</h3>", "Measured inside the predicted band?", "a-r2"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	f := RepeatsFigure(pred, meas)
	if f == nil {
		t.Fatal("no repeats figure")
	}
	if got := LegendEntries(f.Plot); !slices.Equal(got, []string{"predicted band (95% of trials)", "predicted median", "median of the runs", "one run's max ratio"}) {
		t.Errorf("repeats legend %v", got)
	}
	plain := pred.Overshoot.PerTrial.MaxRatio
	pred.Overshoot.PerTrial.Misfit = []float64{0.5, 2}
	_, band, _, widened := repeatsValues(pred, meas)
	if want := measure.WidenedBand([2]float64{plain.Lo, plain.Hi}, pred.Overshoot.PerTrial.Misfit); !widened || band.Lo != want[0] || band.Hi != want[1] {
		t.Errorf("a calibrated prediction's repeats band %v to %v (widened %v), want the trials' %v to %v widened by its misfit: %v", band.Lo, band.Hi, widened, plain.Lo, plain.Hi, want)
	}
	f = RepeatsFigure(pred, meas)
	if !strings.Contains(f.Caption, "widened by the calibration's miss on its own runs (x0.5 to x2") {
		t.Errorf("the caption does not say the band is widened: %s", f.Caption)
	}
	if got := LegendEntries(f.Plot); len(got) == 0 || got[0] != "predicted band, widened by the misfit" {
		t.Errorf("a widened band's legend %v, want it to say so first", got)
	}
	if RepeatsFigure(nil, sampleAttack()) != nil {
		t.Error("a single run got a repeats figure")
	}
	if f := RepeatsFigure(nil, meas); f == nil || f.Title != "How much did the repeated live runs differ?" {
		t.Errorf("an attack report's repeats figure: %+v", f)
	}
}

// TestVerdictBox: the report's verdict box is green (class holds) and
// says the prediction holds only when the comparison's verdict is holds;
// a comparison that is not like for like says it cannot judge, with what
// to do, and one whose mechanism disagrees says it does not hold.
func TestVerdictBox(t *testing.T) {
	pred, meas := sampleSimulate(), sampleAttack()
	for _, tc := range []struct {
		cmp   measure.Comparison
		class string
		says  []string
	}{
		{measure.Comparison{Verdict: measure.VerdictHolds, Why: "like for like"}, "holds", []string{"The prediction holds for this run"}},
		{measure.Comparison{Verdict: measure.VerdictCannotJudge, Why: "the live run saw 2 key-windows", Do: "start the run"},
			"cannot-judge", []string{"Cannot judge whether the prediction holds: the live run saw 2 key-windows", "What to do: start the run"}},
		{measure.Comparison{Verdict: measure.VerdictFails, Why: "outside their bands are write_429.rate", Do: "find what differs", InsideBand: true},
			"fails", []string{"does not hold for this run: outside their bands are write_429.rate"}},
	} {
		p := *pred
		cmp := tc.cmp
		p.Comparison = &cmp
		d := build(&p, Options{Compare: meas, NoFigures: true})
		html, err := d.html()
		if err != nil {
			t.Fatal(err)
		}
		if want := `<p class="verdict ` + tc.class + `" id="verdict">`; !strings.Contains(string(html), want) {
			t.Errorf("%s: the verdict box is not %q", tc.cmp.Verdict, want)
		}
		for _, w := range tc.says {
			if !strings.Contains(d.Compare, w) {
				t.Errorf("%s: the verdict sentence does not say %q: %s", tc.cmp.Verdict, w, d.Compare)
			}
		}
		if tc.class != "holds" && strings.Contains(d.Compare, "prediction holds for") {
			t.Errorf("%s: the sentence says the prediction holds: %s", tc.cmp.Verdict, d.Compare)
		}
	}
}

// TestCompareNoKeyWindows: a live run with no key-window gets no error
// figure anywhere in the report's comparison: not in the sentence, not in
// the verdict table, not in the quantile table.
func TestCompareNoKeyWindows(t *testing.T) {
	pred, meas := sampleSimulate(), sampleAttack()
	meas.Overshoot = measure.Overshoot{}
	cmp := measure.Compare(pred, meas)
	pred.Comparison = &cmp
	d := build(pred, Options{Compare: meas, NoFigures: true})
	if !strings.HasPrefix(d.Compare, "Cannot judge") || !strings.Contains(d.Compare, "What to do: check that the target answered") ||
		strings.Contains(d.Compare, "%") || d.VerdictClass != "cannot-judge" {
		t.Errorf("sentence %q (box %q), want cannot judge with no error", d.Compare, d.VerdictClass)
	}
	for _, tb := range d.CompareTables {
		for _, row := range tb.Rows {
			for _, cell := range row[1:] {
				if strings.HasSuffix(cell, "%") || strings.HasPrefix(cell, "+") || strings.HasPrefix(cell, "-") && len(cell) > 1 {
					t.Errorf("%s: row %v gives an error figure", tb.Title, row)
				}
			}
		}
	}
}
