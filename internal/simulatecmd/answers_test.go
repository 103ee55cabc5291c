package simulatecmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// TestDeniedNothing is issue 25's first scenario (testdata/denied-nothing.yaml:
// bots at 120 a minute against 100 a minute per IP, fail-open on KV):
// the terminal says the limiter denied nothing and that 1.20x is capped
// by the offered load, the sensitivity rows at 1.20x say "saturated", and the
// summary's share of over-limit requests let through is 100%.
func TestDeniedNothing(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runMain(t, "-out", out, "testdata/denied-nothing.yaml")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkStderr(t, stdout, []string{"  worst key-window: a key of bots: 120 sent in", "all 120 let through, 1.20x the limit",
		"note:  the limiter denied nothing: all", "note:  1.20x is capped by the offered load",
		"1.20x (saturated: the limiter denied nothing)"}, nil)
	s := writtenSummary(t, out)
	if r := s.Overshoot.Reference; r.LetThroughShare != 1 || r.Denied == 0 || r.Excess != r.Denied {
		t.Errorf("reference %+v: want every request the exact limiter denies let through", r)
	}
	if a := s.Answer; a == nil || !a.DeniedNothing || !a.Capped || a.Population != "bots" {
		t.Errorf("summary.json's answer %+v: want denied nothing, capped, bots", a)
	}
	// Every row at the cap (all sent let through) says so; a row below it
	// (no write limit: the limiter denies again) does not.
	for _, x := range s.Sensitivity {
		if want := x.Headline >= 1.2 && x.Note == "saturated" || x.Headline < 1.2 && x.Note == ""; !want {
			t.Errorf("sensitivity %s=%s: %.2fx, note %q", x.Path, x.Value, x.Headline, x.Note)
		}
	}
	if s.Sensitivity[0].Note != "saturated" {
		t.Errorf("sensitivity's reference row: note %q, want saturated", s.Sensitivity[0].Note)
	}
	report := readReport(t, out)
	for _, want := range []string{"The worst key-window: one key of bots", "The limiter denied nothing", "(saturated: the limiter denied nothing)"} {
		if !strings.Contains(report, want) && !strings.Contains(report, strings.Replace(want, "one key", "a key", 1)) {
			t.Errorf("report does not say %q", want)
		}
	}
}

// TestOneBurst is issue 25's second scenario (testdata/one-burst.yaml: one
// key bursts 500 requests among 2,000 users, limit 60): the headline names
// the burst's population, ratio.p99<=1.5 passes with a warning (terminal
// and JUnit), burst:ratio.max<=1.5 breaks, and allowed.max<=500 passes at
// a true 500.
func TestOneBurst(t *testing.T) {
	junit := filepath.Join(t.TempDir(), "gates.xml")
	code, stdout, stderr := runMain(t, "-no-report", "-sensitivity=false", "-junit", junit, "-threshold", "ratio.p99<=1.5",
		"-threshold", "burst:ratio.max<=1.5", "-threshold", "allowed.max<=500", "testdata/one-burst.yaml")
	if code != ExitThreshold {
		t.Fatalf("exit %d, want 3 (the burst's gate): %s", code, stderr)
	}
	checkStderr(t, stdout, []string{"  worst key-window: one key of burst: 500 sent in"}, nil)
	checkStderr(t, stderr, []string{
		"the worst, one key of burst: 500 sent in",
		"simulate: threshold ✓ ratio.p99<=1.5: ",
		"simulate:   warning: ratio.p99<=1.5 holds over the pooled key-windows, but ",
		"simulate: threshold broken: ✗ burst:ratio.max<=1.5: 8.33x",
		"simulate: threshold ✓ allowed.max<=500: 500\n",
	}, nil)
	b, err := os.ReadFile(junit)
	if err != nil || !strings.Contains(string(b), `name="warning"`) || !strings.Contains(string(b), `failures="1"`) {
		t.Errorf("JUnit (%v): want the warning and one failure:\n%s", err, b)
	}
}

// writtenSummary reads the summary.json a run wrote under out.
func writtenSummary(t *testing.T, out string) measure.Summary {
	t.Helper()
	var s measure.Summary
	for _, p := range entries(t, out) {
		if filepath.Base(p) == "summary.json" {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			return s
		}
	}
	t.Fatalf("no summary.json under %s: %v", out, entries(t, out))
	return s
}

// readReport reads the report.md a run wrote under out.
func readReport(t *testing.T, out string) string {
	t.Helper()
	for _, p := range entries(t, out) {
		if filepath.Base(p) == "report.md" {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
	}
	t.Fatalf("no report.md under %s: %v", out, entries(t, out))
	return ""
}
