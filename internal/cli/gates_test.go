package cli

import (
	"bytes"
	"encoding/xml"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// gates parses command-line gates.
func gates(t *testing.T, args ...string) (*Gates, error) {
	t.Helper()
	var g Gates
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g.Register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return &g, g.Validate()
}

// TestGatesValidate refuses gates that cannot be read, naming them.
func TestGatesValidate(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"-threshold", "ratio.p99<=1.5", "-threshold", "interval.max<2"}, ""},
		{[]string{"-max-ratio", "2", "-at", "p99"}, ""},
		{[]string{"-threshold", "ratio.p90<=1"}, `-threshold "ratio.p90<=1": unknown metric`},
		{[]string{"-threshold", "fast"}, "write METRIC OP VALUE"},
		{[]string{"-max-ratio", "-1"}, "-max-ratio"},
		{[]string{"-junit", "x.xml"}, "no gate to report"},
	} {
		_, err := gates(t, tc.args...)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%v: err %v, want %q", tc.args, err, tc.err)
		}
	}
}

// TestGatesApply: each verdict is a line with its mark and value, a broken
// gate is reported, and the JUnit file and the GitHub step summary hold a
// case per threshold and point.
func TestGatesApply(t *testing.T) {
	dir := t.TempDir()
	junit, summary := filepath.Join(dir, "gates.xml"), filepath.Join(dir, "step.md")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	g, err := gates(t, "-threshold", "interval.max<2", "-threshold", "false_denials.rate<=1%", "-max-ratio", "3", "-junit", junit)
	if err != nil {
		t.Fatal(err)
	}
	pt := func(interval float64) *measure.Summary {
		return &measure.Summary{Limiter: measure.LimiterRef{Limit: 5}, Overshoot: measure.Overshoot{KeyWindows: 2, MaxInIntervalRatio: interval,
			Ratio: measure.Stats{Max: interval}}, Populations: []measure.Population{{Legitimate: true, Requests: 1000, FalseDenials: 5}}}
	}
	s := &measure.Summary{Scenario: measure.ScenarioRef{Name: "wb"}, Points: []measure.Point{
		{Params: []measure.Param{{Path: "limiter.algorithm", Value: "fixed-window"}}, Summary: pt(2)},
		{Params: []measure.Param{{Path: "limiter.algorithm", Value: "token-bucket"}}, Summary: pt(1.8)},
	}}
	var out bytes.Buffer
	broken, err := g.Apply(s, "simulate", &out)
	if err != nil || !broken {
		t.Fatalf("broken %v, err %v", broken, err)
	}
	for _, want := range []string{
		"simulate: threshold ✓ ratio.max<=3 at limiter.algorithm=fixed-window: 2.00x",
		"simulate: threshold broken: ✗ interval.max<2 at limiter.algorithm=fixed-window: 2.00x",
		"simulate: threshold ✓ interval.max<2 at limiter.algorithm=token-bucket: 1.80x",
		"simulate: threshold ✓ false_denials.rate<=1% at limiter.algorithm=token-bucket: 0.5%",
	} {
		if !strings.Contains(out.String(), want+"\n") {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("JUnit file: %v\n%s", err, b)
	}
	if doc.Tests != 6 || doc.Failures != 1 || len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 6 {
		t.Errorf("JUnit: %d tests, %d failures, %d suites", doc.Tests, doc.Failures, len(doc.Suites))
	}
	md, err := os.ReadFile(summary)
	if err != nil || strings.Count(string(md), "| ✅ |")+strings.Count(string(md), "| ❌ |") != 6 || !strings.Contains(string(md), "❌ | `interval.max<2` | limiter.algorithm=fixed-window | 2.00x |") {
		t.Errorf("step summary (%v):\n%s", err, md)
	}
	// Passing gates say so too, and report nothing broken.
	g, _ = gates(t, "-threshold", "interval.max<=2")
	out.Reset()
	if broken, _ := g.Apply(s, "attack", &out); broken || !strings.Contains(out.String(), "attack: threshold ✓ interval.max<=2") {
		t.Errorf("passing gates: broken %v, output %q", broken, out.String())
	}
}

// TestGatesWarn: a pooled quantile that holds while a key-window breaks
// the same bound passes, with a warning under it on the terminal, in the
// JUnit case (its output and a warning property) and in the step summary.
func TestGatesWarn(t *testing.T) {
	dir := t.TempDir()
	junit, summary := filepath.Join(dir, "gates.xml"), filepath.Join(dir, "step.md")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	g, err := gates(t, "-threshold", "ratio.p99<=1.5", "-junit", junit)
	if err != nil {
		t.Fatal(err)
	}
	s := &measure.Summary{Scenario: measure.ScenarioRef{Name: "burst"}, Limiter: measure.LimiterRef{Limit: 60},
		Overshoot: measure.Overshoot{KeyWindows: 1001, Ratio: measure.Stats{N: 1001, P99: 0.05, Max: 500.0 / 60},
			Allowed:   measure.CountStats{N: 1001, P99: 3, Max: 500},
			Histogram: []measure.Bin{{Allowed: 3, KeyWindows: 1000}, {Allowed: 500, KeyWindows: 1}}}}
	var out bytes.Buffer
	broken, err := g.Apply(s, "simulate", &out)
	if err != nil || broken {
		t.Fatalf("broken %v, err %v", broken, err)
	}
	want := "simulate:   warning: ratio.p99<=1.5 holds over the pooled key-windows, but 1 key-window of 1,001 broke the same bound, ratio.max is 8.33x"
	if !strings.Contains(out.String(), "simulate: threshold ✓ ratio.p99<=1.5: 0.05x\n"+want) {
		t.Errorf("output lacks the warning under the gate:\n%s", out.String())
	}
	b, _ := os.ReadFile(junit)
	var doc junitSuites
	if err := xml.Unmarshal(b, &doc); err != nil || doc.Failures != 0 || len(doc.Suites[0].Cases) != 1 {
		t.Fatalf("JUnit (%v):\n%s", err, b)
	}
	c := doc.Suites[0].Cases[0]
	if !strings.Contains(c.Output, "warning: ratio.p99<=1.5 holds") || c.Properties == nil || len(c.Properties.Props) != 1 ||
		c.Properties.Props[0].Name != "warning" {
		t.Errorf("JUnit case %+v: want the warning in its output and properties", c)
	}
	if md, _ := os.ReadFile(summary); !strings.Contains(string(md), "| ⚠️ | `ratio.p99<=1.5` |") {
		t.Errorf("step summary:\n%s", md)
	}
}

// TestStepSummaryEscapes: a scenario name and a sweep point from the
// scenario file land in GITHUB_STEP_SUMMARY as text, not as a heading or
// HTML, and reach the terminal without their escape sequences.
func TestStepSummaryEscapes(t *testing.T) {
	summary := filepath.Join(t.TempDir(), "step.md")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	g, err := gates(t, "-max-ratio", "3")
	if err != nil {
		t.Fatal(err)
	}
	evil := "x\n# Injected <img src=x onerror=alert(1)> \x1b]0;title\x07"
	s := &measure.Summary{Scenario: measure.ScenarioRef{Name: evil}, Limiter: measure.LimiterRef{Limit: 5},
		Points: []measure.Point{{Params: []measure.Param{{Path: "traffic.bot.name", Value: evil}},
			Summary: &measure.Summary{Limiter: measure.LimiterRef{Limit: 5}, Overshoot: measure.Overshoot{KeyWindows: 1, Ratio: measure.Stats{Max: 1}}}}}}
	var out bytes.Buffer
	if _, err := g.Apply(s, "simulate", &out); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(line, "# ") {
			t.Errorf("step summary has an injected heading: %q", line)
		}
	}
	if strings.Count(string(md), "<img") != strings.Count(string(md), `\<img`) || strings.ContainsRune(string(md), 0x1b) {
		t.Errorf("step summary holds raw HTML or an escape sequence:\n%s", md)
	}
	if strings.ContainsRune(out.String(), 0x1b) || strings.ContainsRune(out.String(), 0x07) {
		t.Errorf("terminal output holds control characters: %q", out.String())
	}
}

// TestJUnitPathCheckedFirst: a -junit that is a folder, or in a folder
// that does not exist, is refused before any run.
func TestJUnitPathCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ path, want string }{
		{dir, "is a folder"},
		{filepath.Join(dir, "missing", "j.xml"), "does not exist"},
	} {
		_, err := gates(t, "-max-ratio", "3", "-junit", c.path)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
			t.Errorf("-junit %s: %v, want an error saying it %s", c.path, err, c.want)
		}
	}
	if _, err := gates(t, "-max-ratio", "3", "-junit", filepath.Join(dir, "j.xml")); err != nil {
		t.Errorf("-junit in an existing folder: %v", err)
	}
}
