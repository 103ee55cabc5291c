package cli

import (
	"io"
	"os"
)

// Width is the number of columns to wrap text written to w at: the
// terminal's width when w is a terminal that says it, else 80 (a pipe, a
// log file, a test's buffer), so that what a command prints does not
// depend on where it runs unless a person is reading it.
func Width(w io.Writer) int {
	if f, ok := w.(*os.File); ok && IsTerminal(w) {
		if n := termWidth(f); n > 0 {
			return n
		}
	}
	return 80
}
