package attackcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutAndJUnitCheckedFirst: a -out that is a dangling symbolic link and a
// -junit that is a folder are refused before the target starts (exit 2,
// nothing on stdout, nothing written).
func TestOutAndJUnitCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	dangling := filepath.Join(dir, "reports")
	if err := os.Symlink(filepath.Join(dir, "gone"), dangling); err != nil {
		t.Fatal(err)
	}
	junitDir := filepath.Join(dir, "junit")
	os.Mkdir(junitDir, 0o755)
	file := cliScenario(t, sequentialYAML)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-out", dangling}, "symbolic link to " + filepath.Join(dir, "gone")},
		{[]string{"-out", dangling, "-shard", "0/2", "-url", "http://127.0.0.1:1/", "-start-at", "2099-01-01T00:00:00Z", "-run-id", "r"}, "symbolic link"},
		{[]string{"-out", filepath.Join(dir, "ok"), "-max-ratio", "100", "-junit", junitDir}, "-junit " + junitDir + " is a folder"},
	} {
		code, stdout, stderr := runMain(t, Env{}, append(c.args, "-store", "memory", file)...)
		if code != 2 || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %.100q: want 2 and %q before the run", c.args, code, stderr, stdout, c.want)
		}
	}
	if got := files(t, dir); len(got) != 1 || got[0] != dangling {
		t.Errorf("wrote %v", got)
	}
}
