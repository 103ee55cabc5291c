package attackcmd

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/cli"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/simulatecmd"
)

// TestMainHelpAndVersion: -h and -version exit 0 and write nothing; -h
// prints the usage on stderr, -version the version on stdout.
func TestMainHelpAndVersion(t *testing.T) {
	for _, tc := range []struct {
		args           []string
		stdout, stderr string // prefixes; "" means empty
	}{
		{[]string{"-h"}, "", "usage: attack"},
		{[]string{"-help"}, "", "usage: attack"},
		{[]string{"-version"}, "attack ", ""},
		{[]string{"-store", "memory", "-version", "some.yaml"}, "attack ", ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out := t.TempDir()
			code, stdout, stderr := runMain(t, Env{}, append([]string{"-out", out}, tc.args...)...)
			if code != cli.ExitOK {
				t.Errorf("exit %d, want %d", code, cli.ExitOK)
			}
			if !strings.HasPrefix(stdout, tc.stdout) || (tc.stdout == "") != (stdout == "") {
				t.Errorf("stdout %q, want it to start %q", stdout, tc.stdout)
			}
			if !strings.HasPrefix(stderr, tc.stderr) || (tc.stderr == "") != (stderr == "") {
				t.Errorf("stderr %.80q, want it to start %q", stderr, tc.stderr)
			}
			if f := files(t, out); len(f) > 0 {
				t.Errorf("wrote %v", f)
			}
		})
	}
}

// TestMainNoReport: -no-report writes nothing at all (no folder, no
// summary.json, no results file) and still prints the summary, as
// simulate -no-report does.
func TestMainNoReport(t *testing.T) {
	sc := cliScenario(t, strings.Replace(sequentialYAML, "1600ms", "300ms", 1))
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"text", nil},
		{"json", []string{"-json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			args := append([]string{"-no-report", "-store", "memory", "-out", out}, tc.args...)
			code, stdout, stderr := runMain(t, Env{}, append(args, sc)...)
			if code != cli.ExitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if entries, _ := os.ReadDir(out); len(entries) > 0 {
				t.Errorf("-no-report wrote %v under -out", entries)
			}
			if tc.args == nil {
				if !strings.Contains(stdout, "let through") || strings.Contains(stdout, "summary  ") {
					t.Errorf("stdout %q: want the summary, and no file named", stdout)
				}
				return
			}
			var s measure.Summary
			if err := json.Unmarshal([]byte(stdout), &s); err != nil || s.Totals.Requests == 0 || s.Live.ResultsFile != "" {
				t.Errorf("stdout is not the run's summary (%v), or names a results file %q", err, s.Live.ResultsFile)
			}
		})
	}
}

// flagNames lists the flags a usage text (flag.PrintDefaults) describes.
func flagNames(usage string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z-]+)`).FindAllStringSubmatch(usage, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestFlagsMatchSimulate: every flag simulate has that is not about the
// model's trials is an attack flag of the same name, and the other way
// round every flag they share is listed here, so the two commands cannot
// drift apart.
func TestFlagsMatchSimulate(t *testing.T) {
	var simUsage bytes.Buffer
	if code := simulatecmd.Main([]string{"-h"}, &bytes.Buffer{}, &simUsage); code != cli.ExitOK {
		t.Fatalf("simulate -h exit %d", code)
	}
	_, _, attackUsage := runMain(t, Env{}, "-h")
	sim, att := flagNames(simUsage.String()), flagNames(attackUsage)
	simulateOnly := []string{"advise", "budget", "calibrate", "compare", "diff", "fit", "force", "limit", "search-limit", "sensitivity", "trials", "workers"}
	shared := []string{"at", "json", "junit", "max-ratio", "merge", "no-report", "out", "scenario", "seed", "set", "shard", "threshold", "version"}
	for _, f := range sim {
		if !slices.Contains(simulateOnly, f) && !slices.Contains(att, f) {
			t.Errorf("simulate has -%s and attack does not", f)
		}
	}
	for _, f := range shared {
		if !slices.Contains(sim, f) || !slices.Contains(att, f) {
			t.Errorf("-%s is not in both: simulate %v, attack %v", f, sim, att)
		}
	}
}
