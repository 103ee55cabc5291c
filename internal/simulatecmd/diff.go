package simulatecmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/overshoot-dev/overshoot/internal/escape"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/report"
)

// diffJSON is diff.json: the two runs and every metric side by side.
type diffJSON struct {
	A       diffSide               `json:"a"`
	B       diffSide               `json:"b"`
	Metrics []measure.MetricChange `json:"metrics"`
}

// diffSide identifies one run of a diff.
type diffSide struct {
	File     string              `json:"file"`
	Mode     string              `json:"mode"`
	Scenario measure.ScenarioRef `json:"scenario"`
	Limiter  measure.LimiterRef  `json:"limiter"`
}

// describeRun names a run of a diff for people.
func describeRun(path string, s *measure.Summary) string {
	l := s.Limiter
	return escape.Line(fmt.Sprintf("%s (%s of %s: %s, %d per %s on %s, %s)", path, s.Mode, s.Scenario.Name, l.AlgorithmText(), l.Limit, l.Window, l.Store, l.ErrorPolicy))
}

// fence is a Markdown code fence that text cannot close: longer than any
// run of backticks in it.
func fence(text string) string {
	f := "```"
	for strings.Contains(text, f) {
		f += "`"
	}
	return f
}

// runDiff is simulate -diff A B: every metric of two summaries side by
// side, the change and which is better, on the terminal and, unless
// -no-report, as diff.md and diff.json under -out.
func runDiff(c *config, stdout, stderr io.Writer) int {
	var sums [2]*measure.Summary
	for i, p := range c.diff {
		s, err := readSummary(p)
		if err != nil {
			fmt.Fprintf(stderr, "simulate: -diff: %v\n", err)
			return ExitBadInput
		}
		sums[i] = s
	}
	cs, err := measure.Diff(sums[0], sums[1])
	if err != nil {
		fmt.Fprintf(stderr, "simulate: -diff %s %s: %v\n", c.diff[0], c.diff[1], err)
		return ExitBadInput
	}
	doc := diffJSON{Metrics: cs}
	for i, s := range sums {
		side := diffSide{File: c.diff[i], Mode: s.Mode, Scenario: s.Scenario, Limiter: s.Limiter}
		if i == 0 {
			doc.A = side
		} else {
			doc.B = side
		}
	}
	if sums[0].Scenario.Hash != sums[1].Scenario.Hash {
		fmt.Fprintln(stderr, "simulate: note: the two runs are of different scenarios (or overrides): the change is the change of everything that differs")
	}
	var text bytes.Buffer
	nameA, nameB := describeRun(c.diff[0], sums[0]), describeRun(c.diff[1], sums[1])
	if err := measure.WriteDiff(&text, nameA, nameB, cs); err != nil {
		fmt.Fprintln(stderr, "simulate:", err)
		return ExitFailure
	}
	b, _ := json.MarshalIndent(&doc, "", "  ")
	if c.json {
		stdout.Write(append(b, '\n'))
	} else {
		stdout.Write(text.Bytes())
	}
	if c.noReport {
		return ExitOK
	}
	dir, err := report.NewDir(c.out, sums[0].Scenario.Name+"-diff", time.Now())
	if err != nil {
		fmt.Fprintln(stderr, "simulate:", err)
		return ExitFailure
	}
	md := fmt.Sprintf("# Diff\n\nA: %s\n\nB: %s\n\n%s\n%s%s\n", escape.Markdown(nameA), escape.Markdown(nameB), fence(text.String()), text.String(), fence(text.String()))
	for name, data := range map[string][]byte{"diff.json": append(b, '\n'), "diff.md": []byte(md)} {
		if err := report.WriteFile(dir, name, data); err != nil {
			fmt.Fprintln(stderr, "simulate: the diff is above, but it was not written:", err)
			return ExitFailure
		}
	}
	if c.json {
		fmt.Fprintf(stderr, "diff: %s\n", dir)
	} else {
		fmt.Fprintf(stdout, "\ndiff: %s (diff.json beside it)\n", filepath.Join(dir, "diff.md"))
	}
	return ExitOK
}
