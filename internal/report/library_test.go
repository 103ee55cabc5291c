package report

import (
	"html"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/model"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// simulateLibrary runs a scenario file as simulate does (every sweep point,
// the top level of a sweep left empty, worst set), with two trials so that
// the whole library runs in seconds.
func simulateLibrary(t *testing.T, file string) *measure.Summary {
	t.Helper()
	sc, err := scenario.LoadWithOverrides(file, []string{"trials=2"})
	if err != nil {
		t.Fatal(err)
	}
	points, err := sc.Expand()
	if err != nil {
		t.Fatal(err)
	}
	ref := func(sc *scenario.Scenario) measure.ScenarioRef {
		return measure.ScenarioRef{Name: sc.Name, File: file, Hash: sc.Hash(), Question: sc.Question,
			Traffic: DescribeTraffic(sc), Headline: sc.Report.Headline}
	}
	var out measure.Summary
	for i, p := range points {
		pl, err := plan.Compile(p.Scenario)
		if err != nil {
			t.Fatal(err)
		}
		s, err := model.Run(pl, model.Options{Seed: sc.Seed})
		if err != nil {
			t.Fatal(err)
		}
		s.Scenario = ref(p.Scenario)
		if len(points) == 1 && len(p.Params) == 0 {
			return &s
		}
		if i == 0 {
			out = measure.Summary{Schema: s.Schema, Mode: s.Mode, Scenario: ref(sc), Seed: s.Seed, Trials: s.Trials, Complete: true, Limiter: s.Limiter}
		}
		pt := measure.Point{Summary: &s}
		for _, q := range p.Params {
			pt.Params = append(pt.Params, measure.Param{Path: q.Path, Value: q.Value})
		}
		out.Points = append(out.Points, pt)
	}
	measure.SetWorst(&out)
	return &out
}

var (
	domHeadline = regexp.MustCompile(`(?s)<p class="headline" id="headline">(.*?)</p>`)
	domRow      = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	domCell     = regexp.MustCompile(`(?s)<t[hd]>(.*?)</t[hd]>`)
)

// domTable returns the cells of the table under the heading title.
func domTable(dom, title string) [][]string {
	_, rest, ok := strings.Cut(dom, "<h2>"+title+"</h2>")
	if !ok {
		return nil
	}
	body, _, _ := strings.Cut(rest, "</table>")
	var rows [][]string
	for _, r := range domRow.FindAllStringSubmatch(body, -1) {
		var cells []string
		for _, c := range domCell.FindAllStringSubmatch(r[1], -1) {
			cells = append(cells, html.UnescapeString(c[1]))
		}
		rows = append(rows, cells)
	}
	return rows
}

// TestLibraryReportsInChromium opens the report of every library scenario
// (simulated with two trials) in headless Chromium and checks that the
// metric the scenario names (report.headline) leads: its name and value in
// the headline, and in the sweep table's first column after the point (or
// the results table's first row for a single run), with each point's value.
func TestLibraryReportsInChromium(t *testing.T) {
	bin := chromiumPath(t)
	t.Parallel()
	files, err := filepath.Glob("../../scenarios/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no library scenarios: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := simulateLibrary(t, file)
			m := s.Scenario.HeadlineMetric()
			if s.Scenario.Headline != m.Name {
				t.Fatalf("scenario names headline %q, report leads with %s", s.Scenario.Headline, m.Name)
			}
			// The headline and tables are text: the figures (drawn and
			// checked in TestHTMLInChromium) would only add minutes.
			dir := writeReport(t, s, Options{Traffic: s.Scenario.Traffic, NoFigures: true})
			dom, _ := runChromium(t, bin, filepath.Join(dir, HTMLFile), "--dump-dom")
			hm := domHeadline.FindSubmatch(dom)
			if hm == nil {
				t.Fatalf("no headline in the page")
			}
			headline := html.UnescapeString(string(hm[1]))
			if !strings.Contains(headline, m.Name) {
				t.Errorf("headline does not name %s: %s", m.Name, headline)
			}
			// The value the headline leads with: the run's, or a sweep's
			// highest.
			v, ok := m.Value(s)
			if s.Worst != nil {
				v, ok = s.Worst.Value, true
			}
			if ok && !strings.Contains(headline, metricText(m, v)) && !(m.Unit == "ratio" && strings.Contains(headline, ratio(v))) {
				t.Errorf("headline does not give %s = %s: %s", m.Name, metricText(m, v), headline)
			}
			if len(s.Points) == 0 {
				rows := domTable(string(dom), "Results")
				if len(rows) < 2 || !strings.Contains(rows[1][0], m.Name) || rows[1][1] != metricCell(m, s) {
					t.Errorf("results table does not open with %s = %s: %q", m.Name, metricCell(m, s), rows)
				}
				return
			}
			rows := domTable(string(dom), "Sweep points")
			if len(rows) != len(s.Points)+1 {
				t.Fatalf("sweep table has %d rows, want a header and %d points", len(rows), len(s.Points))
			}
			if !strings.Contains(rows[0][1], m.Name) {
				t.Errorf("sweep table's first column after the point is %q, want %s", rows[0][1], m.Name)
			}
			for i, p := range s.Points {
				if got, want := rows[i+1][1], metricCell(m, p.Summary); got != want {
					t.Errorf("sweep table at %s: %s = %q, want %q", paramList(p.Params), m.Name, got, want)
				}
			}
		})
	}
}
