package simulatecmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// stamp is a report folder's time, as report.NewDir names it.
var stamp = regexp.MustCompile(`\d{8}T\d{6}Z`)

// TestModesAsSubcommands: each mode's subcommand, with flags after its
// arguments, runs as its old flag form does: run, diff and compare.
func TestModesAsSubcommands(t *testing.T) {
	common := []string{"-json", "-no-report", "-trials", "2", "-sensitivity=false"}
	code, old, stderr := runMain(t, common...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, sub, stderr := runMain(t, append([]string{"run"}, common...)...)
	if code != ExitOK || sub != old {
		t.Fatalf("simulate run: exit %d, its summary differs from simulate's (%d vs %d bytes): %s", code, len(sub), len(old), stderr)
	}
	dir := t.TempDir()
	a := filepath.Join(dir, "a.json")
	if err := os.WriteFile(a, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	// diff A B, with its flags after the arguments.
	code, diffOld, _ := runMain(t, "-diff", "-out", filepath.Join(dir, "r1"), a, a)
	code2, diffSub, stderr := runMain(t, "diff", a, a, "-out", filepath.Join(dir, "r2"))
	// Each names the folder it wrote, r1 or r2 and the second it began in:
	// the two runs may fall in two seconds.
	same := func(out string) string { return stamp.ReplaceAllString(strings.ReplaceAll(out, "r2", "r1"), "TIME") }
	if code != ExitOK || code2 != ExitOK || same(diffSub) != same(diffOld) {
		t.Errorf("simulate diff A B -out: exit %d, output differs from -diff's:\n%s\n---\n%s\n%s", code2, diffSub, diffOld, stderr)
	}
	// compare takes its value from the word after it; a simulate run's
	// summary is refused the same way either form.
	c1, _, e1 := runMain(t, "-compare", a, "-no-report")
	c2, _, e2 := runMain(t, "compare", a, "-no-report")
	if c1 != ExitBadInput || c2 != c1 || e2 != e1 {
		t.Errorf("compare of a simulation: -compare exit %d %q; compare exit %d %q: want the same refusal", c1, e1, c2, e2)
	}
}
