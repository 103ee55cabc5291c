package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestReplaceAndCreate: Replace writes and replaces; Create writes once and
// refuses an existing path, leaving it as it was; neither leaves a
// temporary file behind, and both fail in a missing folder.
func TestReplaceAndCreate(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.json")
	for _, want := range []string{"one", "two"} {
		if err := Replace(p, []byte(want)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != want {
			t.Errorf("after Replace %q: %q", want, b)
		}
	}
	if err := Create(p, []byte("three")); !errors.Is(err, ErrExists) {
		t.Errorf("Create over a file: %v, want ErrExists", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "two" {
		t.Errorf("Create changed an existing file: %q", b)
	}
	q := filepath.Join(dir, "b.json")
	if err := Create(q, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(q); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("created %v, %v: want mode 0644", fi, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.partial-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	for _, f := range []func(string, []byte) error{Replace, Create} {
		if err := f(filepath.Join(dir, "missing", "x"), nil); err == nil {
			t.Error("a write into a missing folder succeeded")
		}
	}
}
