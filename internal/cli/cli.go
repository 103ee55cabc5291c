// Package cli holds what every overshoot command shares on its command
// line: the exit codes, declared once, the repeatable -set flag, and
// -version (Parse).
package cli

import "strings"

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
