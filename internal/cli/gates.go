package cli

import (
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/overshoot-dev/overshoot/internal/escape"
	"github.com/overshoot-dev/overshoot/internal/measure"
)

// Gates are a command's CI gates: repeatable -threshold 'METRIC OP VALUE'
// (measure.ParseCondition's grammar), -max-ratio X with -at STAT as a
// shorthand for ratio.STAT<=X, and -junit FILE. Every gate is printed with
// a pass or fail mark and its value; a sweep is checked at every point.
type Gates struct {
	texts []string
	max   measure.Threshold
	junit string
	conds []measure.Condition
}

// Register adds -threshold, -max-ratio, -at and -junit to fs.
func (g *Gates) Register(fs *flag.FlagSet) {
	fs.Func("threshold", "exit 3 unless `[POPULATION:]METRIC OP VALUE` holds, e.g. 'ratio.max<=1.5', 'burst:ratio.max<=1.5' (one population's), "+
		"'interval.max<2', 'false_denials.rate<0.1%', 'latency.p99<=50ms' (repeatable; a pooled quantile that holds while some key-window "+
		"breaks its bound is warned of; metrics: "+strings.Join(measure.MetricNames(), ", ")+")", func(v string) error {
		g.texts = append(g.texts, v)
		return nil
	})
	fs.Float64Var(&g.max.Max, "max-ratio", 0, "shorthand for -threshold ratio.<at><=`X`: exit 3 when the overshoot ratio (allowed/limit per key-window) exceeds X (0: no gate)")
	fs.StringVar(&g.max.At, "at", "max", "statistic -max-ratio applies to: "+strings.Join(measure.ThresholdStats, ", "))
	fs.StringVar(&g.junit, "junit", "", "write the gates' verdicts as JUnit XML to `FILE` (a testcase per threshold and sweep point)")
}

// Validate parses the gates; an error names the one that cannot be read.
// Gates never registered (a mode without gates) are valid: there is none.
func (g *Gates) Validate() error {
	if g.max != (measure.Threshold{}) {
		if err := g.max.Validate(); err != nil {
			return err
		}
	}
	g.conds = nil
	if g.max.Max > 0 {
		g.conds = append(g.conds, g.max.Condition())
	}
	for _, t := range g.texts {
		c, err := measure.ParseCondition(t)
		if err != nil {
			return fmt.Errorf("-threshold %v", err)
		}
		g.conds = append(g.conds, c)
	}
	if err := checkJUnitPath(g.junit); err != nil {
		return err
	}
	if g.junit != "" && len(g.conds) == 0 {
		return fmt.Errorf("-junit %s: there is no gate to report: add -threshold or -max-ratio", g.junit)
	}
	return nil
}

// CheckPopulations refuses a gate on a population the scenario does not
// have (a typo), before the run, rather than breaking it after: names are
// the scenario's populations.
func (g *Gates) CheckPopulations(names []string) error {
	for _, c := range g.conds {
		if c.Population != "" && !slices.Contains(names, c.Population) {
			return fmt.Errorf("-threshold %s: the scenario has no population %q: it has %s", c.Text, c.Population, strings.Join(names, ", "))
		}
	}
	return nil
}

// checkJUnitPath refuses a -junit path that cannot be written after the
// run: a folder, or a file in a folder that does not exist. It writes
// nothing.
func checkJUnitPath(path string) error {
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("-junit %s is a folder: give the path of a file to write, e.g. %s", path, filepath.Join(path, "overshoot.xml"))
	}
	parent := filepath.Dir(path)
	fi, err := os.Stat(parent)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("-junit %s: the folder %s does not exist: create it first", path, parent)
	case err != nil:
		return fmt.Errorf("-junit %s: %v", path, err)
	case !fi.IsDir():
		return fmt.Errorf("-junit %s: %s is not a folder", path, parent)
	}
	return nil
}

// Any reports whether there is a gate.
func (g *Gates) Any() bool { return len(g.conds) > 0 }

// Apply checks the gates against s and says each verdict on w, prefixed
// with the command's name; it writes -junit's file and, when the
// GITHUB_STEP_SUMMARY variable names a file, appends a Markdown table to
// it. It reports whether a gate is broken; err is a file that could not be
// written.
func (g *Gates) Apply(s *measure.Summary, command string, w io.Writer) (broken bool, err error) {
	if !g.Any() {
		return false, nil
	}
	vs := measure.Check(s, g.conds)
	for _, v := range vs {
		if v.Pass {
			fmt.Fprintf(w, "%s: threshold %s\n", command, escape.Line(v.String()))
		} else {
			broken = true
			fmt.Fprintf(w, "%s: threshold broken: %s\n", command, escape.Line(v.String()))
		}
		if v.Warning != "" {
			fmt.Fprintf(w, "%s:   warning: %s\n", command, escape.Line(v.Warning))
		}
	}
	if g.junit != "" {
		err = writeJUnit(g.junit, command, s.Scenario.Name, vs)
	}
	if p := os.Getenv("GITHUB_STEP_SUMMARY"); p != "" {
		err = errors.Join(err, appendStepSummary(p, command, s.Scenario.Name, vs))
	}
	return broken, err
}

// junitSuites is a JUnit XML report: one suite, a testcase per verdict.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name       string           `xml:"name,attr"`
	ClassName  string           `xml:"classname,attr"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Failure    *junitFailure    `xml:"failure,omitempty"`
	Output     string           `xml:"system-out,omitempty"`
}

// junitProperties carry a passing gate's warning, which JUnit has no
// element for (it is also in the case's output).
type junitProperties struct {
	Props []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// writeJUnit writes the verdicts as JUnit XML.
func writeJUnit(path, command, scenario string, vs []measure.Verdict) error {
	suite := junitSuite{Name: command + " thresholds: " + scenario}
	for _, v := range vs {
		name := v.Condition.Text
		if v.Where != "" {
			name += " at " + v.Where
		}
		c := junitCase{Name: name, ClassName: "overshoot." + command + "." + scenario, Output: v.String()}
		if v.Warning != "" {
			c.Output += "\nwarning: " + v.Warning
			c.Properties = &junitProperties{Props: []junitProperty{{Name: "warning", Value: v.Warning}}}
		}
		if !v.Pass {
			suite.Failures++
			c.Failure = &junitFailure{Message: v.String(), Type: "threshold", Text: v.String()}
		}
		suite.Cases = append(suite.Cases, c)
	}
	suite.Tests = len(suite.Cases)
	doc := junitSuites{Name: "overshoot", Tests: suite.Tests, Failures: suite.Failures, Suites: []junitSuite{suite}}
	b, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("-junit %s: %v", path, err)
	}
	if err := os.WriteFile(path, append([]byte(xml.Header), append(b, '\n')...), 0o644); err != nil {
		return fmt.Errorf("-junit: %v", err)
	}
	return nil
}

// appendStepSummary appends the verdicts to a GitHub Actions job summary.
func appendStepSummary(path, command, scenario string, vs []measure.Verdict) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### overshoot %s: %s\n\n| | threshold | where | value |\n|---|---|---|---|\n", command, escape.MarkdownCell(scenario))
	for _, v := range vs {
		mark, value := "✅", "not measured"
		if !v.Pass {
			mark = "❌"
		} else if v.Warning != "" {
			mark = "⚠️"
		}
		if v.Measured {
			value = v.Condition.Metric.Format(v.Value)
		}
		where := v.Where
		if where == "" {
			where = "run"
		}
		if v.Warning != "" {
			value += " (" + v.Warning + ")"
		}
		// The condition's text is measure.ParseCondition's grammar: no
		// backtick or bar can end its code span.
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", mark, v.Condition.Text, escape.MarkdownCell(where), escape.MarkdownCell(value))
	}
	b.WriteString("\n")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("GITHUB_STEP_SUMMARY %s: %v", path, err)
	}
	_, err = f.WriteString(b.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("GITHUB_STEP_SUMMARY %s: %v", path, err)
	}
	return nil
}
