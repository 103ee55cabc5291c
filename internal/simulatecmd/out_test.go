package simulatecmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutAndJUnitCheckedFirst: a -out that is a dangling symbolic link and a
// -junit that is a folder are refused before the run (exit 2, nothing on
// stdout, where the run's header would be, nothing written), not found
// after it.
func TestOutAndJUnitCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	dangling := filepath.Join(dir, "reports")
	if err := os.Symlink(filepath.Join(dir, "gone"), dangling); err != nil {
		t.Fatal(err)
	}
	junitDir := filepath.Join(dir, "junit")
	os.Mkdir(junitDir, 0o755)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-out", dangling}, "symbolic link to " + filepath.Join(dir, "gone")},
		{[]string{"-out", filepath.Join(dir, "ok"), "-max-ratio", "100", "-junit", junitDir}, "-junit " + junitDir + " is a folder"},
	} {
		code, stdout, stderr := runMain(t, append(c.args, "-trials", "200", "-sensitivity=false")...)
		if code != ExitBadInput || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %.100q: want 2 and %q before the run", c.args, code, stderr, stdout, c.want)
		}
	}
	if got := entries(t, dir); len(got) != 2 {
		t.Errorf("wrote %v", got)
	}
}

// TestCalibrateNamesItself: a summary -calibrate cannot read is named as
// -calibrate's, not as -compare's.
func TestCalibrateNamesItself(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.json")
	os.WriteFile(empty, nil, 0o644)
	missing := filepath.Join(t.TempDir(), "missing.json")
	for _, p := range []string{empty, missing} {
		code, _, stderr := runMain(t, "-calibrate", p)
		if code != ExitBadInput || strings.Contains(stderr, "-compare") || !strings.Contains(stderr, "-calibrate "+p+": ") {
			t.Errorf("-calibrate %s: exit %d, stderr %q", p, code, stderr)
		}
	}
}

// TestCalibrateChecksOutFirst: -calibrate with a -out it cannot write in is
// refused before the fit, not after it.
func TestCalibrateChecksOutFirst(t *testing.T) {
	dir := t.TempDir()
	scPath := filepath.Join(dir, "cmp.yaml")
	os.WriteFile(scPath, []byte(compareScenario), 0o644)
	run := writeMeasured(t, dir, scPath, nil)
	dangling := filepath.Join(dir, "cal")
	os.Symlink(filepath.Join(dir, "gone"), dangling)
	code, stdout, stderr := runMain(t, "-calibrate", run, "-out", dangling, "-trials", "2")
	if code != ExitBadInput || !strings.Contains(stderr, "symbolic link") || stdout != "" {
		t.Errorf("exit %d, stdout %.200q, stderr %q: want 2 before the fit", code, stdout, stderr)
	}
}
