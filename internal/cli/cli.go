// Package cli holds what every overshoot command shares on its command
// line: the exit codes, declared once, the repeatable -set flag, and
// -version (Parse).
package cli

import (
	"io"
	"os"
	"strings"
)

// Exit codes, the same for every command.
const (
	// ExitOK: the run finished and every gate passed.
	ExitOK = 0
	// ExitFailure: anything that is not the user's input went wrong, or
	// the run was interrupted (what was measured is still written).
	ExitFailure = 1
	// ExitBadInput: bad flags, a bad scenario, an unreachable URL, a port
	// in use; nothing was written.
	ExitBadInput = 2
	// ExitThreshold: the result breaks a threshold (-max-ratio).
	ExitThreshold = 3
	// ExitInterruptedTwice: a second Ctrl-C quit at once, writing nothing.
	ExitInterruptedTwice = 130
)

// Sets is a repeatable -set flag: each use adds one path=value override,
// none replaces another.
type Sets []string

// String lists the overrides given, for flag's help.
func (s *Sets) String() string { return strings.Join(*s, " ") }

// Set adds one override, for flag.
func (s *Sets) Set(v string) error { *s = append(*s, v); return nil }

// IsTerminal reports whether w is a terminal (a character device), where a
// progress line rewritten with \r belongs; in a pipe or a log file it
// would be noise, so commands draw it only on a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
