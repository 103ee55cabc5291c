package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostile is text a scenario file or an edited summary may hold: a line
// break that would start a heading, HTML that would run, a link, a table
// cell break and a terminal escape.
const hostile = "evil\n# Injected heading <img src=x onerror=alert(1)> [click](http://evil.example) | cell \x1b[2J"

// checkSafeMarkdown fails the test when report.md in dir holds hostile's
// heading on a line of its own, its raw HTML or link, or a control byte.
func checkSafeMarkdown(t testing.TB, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " "), "# Injected") {
			t.Errorf("report.md has an injected heading: %q", line)
		}
	}
	for _, bad := range []string{"<img", "[click](", "\x1b"} {
		if strings.Count(md, bad) > strings.Count(md, `\`+bad) {
			t.Errorf("report.md holds %q raw", bad)
		}
	}
}

// TestReportEscapesText writes a report whose scenario name, question,
// population and store name are hostile: report.md shows them as text,
// and report.html escapes them.
func TestReportEscapesText(t *testing.T) {
	t.Parallel()
	s := sampleAttack()
	s.Scenario.Name, s.Scenario.Question = hostile, hostile
	s.Populations[0].Name = hostile
	s.Limiter.Store = hostile
	dir := writeReport(t, s, Options{Compare: sampleSimulate(), Traffic: hostile})
	checkSafeMarkdown(t, dir)
	b, err := os.ReadFile(filepath.Join(dir, MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `\<img src=x onerror=alert(1)\>`) {
		t.Errorf("report.md does not show the name as text:\n%s", b)
	}
	html, err := os.ReadFile(filepath.Join(dir, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(html), "<img src=x") || !strings.Contains(string(html), "&lt;img src=x") {
		t.Errorf("report.html does not escape the name")
	}
}

// TestReportRedactsOldURL: a summary written before URLs were redacted
// still gets a report without the URL's secrets.
func TestReportRedactsOldURL(t *testing.T) {
	s := sampleAttack()
	s.Live.URL = "https://alice:pa55word@api.example.com/check?api_key=S3CRET-value"
	// No figure shows the URL (only the text does): they are left out.
	dir := writeReport(t, s, Options{NoFigures: true})
	for _, f := range []string{MarkdownFile, HTMLFile} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "pa55word") || strings.Contains(string(b), "S3CRET-value") || !strings.Contains(string(b), "api.example.com/check?api") {
			t.Errorf("%s shows the URL's secrets, or not its host", f)
		}
	}
}
