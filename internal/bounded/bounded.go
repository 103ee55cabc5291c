// Package bounded reads the files overshoot's commands are given (scenarios,
// summaries, shard files) with a bound on what is read: a file's size as
// stat gives it is not what a read returns (/dev/zero, a pipe, a file still
// growing), so the bound is on the bytes read, checked before anything is
// parsed.
package bounded

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrTooLarge is wrapped by the error of a read that found more than its
// bound.
var ErrTooLarge = errors.New("file too large")

// Common bounds.
const (
	// MaxSummary bounds a summary.json read back (-compare, -calibrate,
	// -diff): a sweep of many points with their worst keys stays far below.
	MaxSummary = 64 << 20
	// MaxShard bounds a shard file (simulate -merge, attack -merge).
	MaxShard = 1 << 30
)

// ReadFile returns the contents of the file at path, or an error when it
// cannot be opened or read, or holds more than limit bytes (wrapping
// ErrTooLarge). what names the kind of file in that error, e.g. "a
// summary.json". It reads at most limit+1 bytes.
func ReadFile(path string, limit int64, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, path, limit, what)
}

// ReadAll is ReadFile for a file already open: r is read to its end or to
// limit+1 bytes, whichever comes first; name names it in errors.
func ReadAll(r io.Reader, name string, limit int64, what string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s is over %s, the most %s may be: give %s, not a device or a stream: %w",
			name, Size(limit), what, what, ErrTooLarge)
	}
	return b, nil
}

// Size formats n bytes for people: "1 MiB", "256 MiB", "512 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
