package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWidthNotTerminal: anything but a terminal is 80 columns wide.
func TestWidthNotTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, w := range map[string]io.Writer{"buffer": &bytes.Buffer{}, "file": f} {
		if got := Width(w); got != 80 {
			t.Errorf("%s: width %d, want 80", name, got)
		}
	}
}
