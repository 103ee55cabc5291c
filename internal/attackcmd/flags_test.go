package attackcmd

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/cli"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
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

// flagHelp maps each flag a usage text describes to its lines there.
func flagHelp(usage string) map[string]string {
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z-]+)(.*\n    \t.*)$`).FindAllStringSubmatch(usage, -1) {
		out[m[1]] = m[2]
	}
	return out
}

// TestSharedFlagsMatchSimulate: the flags both commands share (every
// flag cli.Shared registers) are in both commands' plain run, with the
// same help and default, since they are defined once.
func TestSharedFlagsMatchSimulate(t *testing.T) {
	var simUsage bytes.Buffer
	if code := simulatecmd.Main([]string{"-h"}, &bytes.Buffer{}, &simUsage); code != cli.ExitOK {
		t.Fatalf("simulate -h exit %d", code)
	}
	_, _, attackUsage := runMain(t, Env{}, "-h")
	sim, att := flagHelp(simUsage.String()), flagHelp(attackUsage)
	var v struct {
		s     string
		n     uint64
		b     bool
		sets  cli.Sets
		gates cli.Gates
		shard *plan.Shard
	}
	fs := flag.NewFlagSet("shared", flag.ContinueOnError)
	cli.Shared{Scenario: &v.s, Seed: &v.n, SeedSet: &v.b, Sets: &v.sets, Out: &v.s, JSON: &v.b, NoReport: &v.b, Gates: &v.gates, Shard: &v.shard}.Register(fs)
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		n++
		switch {
		case sim[f.Name] == "" || att[f.Name] == "":
			t.Errorf("-%s is not in both: simulate %q, attack %q", f.Name, sim[f.Name], att[f.Name])
		case f.Name != "shard" && sim[f.Name] != att[f.Name]:
			t.Errorf("-%s differs: simulate %q, attack %q", f.Name, sim[f.Name], att[f.Name])
		}
	})
	if n < 11 {
		t.Errorf("cli.Shared registers %d flags, want the 11 both commands share (with -version and the merge mode, 13)", n)
	}
}

// TestServeTakesOnlyItsFlags: attack serve refuses the flags of a run,
// naming the mode that takes them, and writes nothing.
func TestServeTakesOnlyItsFlags(t *testing.T) {
	good := cliScenario(t, sequentialYAML)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-repeat", "2", "-serve", good}, "attack serve does not take -repeat: it is a flag of attack run"},
		{[]string{"-url", "http://127.0.0.1:1/", "-serve", good}, "attack serve does not take -url: it is a flag of attack run"},
		{[]string{"serve", good, "-json"}, "attack serve does not take -json: it is a flag of attack run, attack merge"},
		{[]string{"merge", "-store", "memory", "DIR"}, "attack merge does not take -store: it is a flag of attack run, attack serve"},
	} {
		code, _, stderr := runMain(t, Env{}, tc.args...)
		if code != cli.ExitBadInput || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, cli.ExitBadInput, tc.want)
		}
	}
}
