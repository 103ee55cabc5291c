package bounded

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	os.WriteFile(small, []byte("12345"), 0o644)
	tests := []struct {
		name, path string
		limit      int64
		want       string
		tooLarge   bool
	}{
		{"under the bound", small, 10, "12345", false},
		{"at the bound", small, 5, "12345", false},
		{"over the bound", small, 4, "", true},
		{"endless", "/dev/zero", 1 << 10, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := os.Stat(tc.path); err != nil {
				t.Skip(err)
			}
			b, err := ReadFile(tc.path, tc.limit, "a summary.json")
			if tc.tooLarge {
				if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), "a summary.json") {
					t.Errorf("err %v: want ErrTooLarge naming the file and what it should be", err)
				}
				return
			}
			if err != nil || string(b) != tc.want {
				t.Errorf("Read = %q, %v; want %q", b, err, tc.want)
			}
		})
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), 10, "x"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want ErrNotExist", err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{1 << 20: "1 MiB", 256 << 20: "256 MiB", 1 << 30: "1 GiB", 512: "512 bytes", 2048: "2 KiB", 1500: "1500 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
