package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckRoot: -out folders NewDir could not use are refused before any
// run, naming the reason, and nothing is left behind.
func TestCheckRoot(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ root, want string }{
		{dir, ""},
		{filepath.Join(dir, "new", "deeper"), ""},
		{file, "is not a folder"},
		{filepath.Join(file, "under"), "is not a folder"},
		{dangling, "symbolic link to " + filepath.Join(dir, "nowhere") + ", which does not exist"},
		{filepath.Join(dangling, "reports"), "symbolic link"},
	} {
		err := CheckRoot(c.root)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "-out "+c.root)) {
			t.Errorf("CheckRoot(%s) = %v, want %q", c.root, err, c.want)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("CheckRoot left %v behind", entries)
	}
	if _, err := NewDir(dangling, "x", when); err == nil {
		t.Errorf("NewDir under a dangling link worked: CheckRoot's refusal is not needed")
	}
}
