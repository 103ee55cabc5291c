// Package cli holds what every overshoot command shares on its command
// line: the exit codes, declared once, the repeatable -set flag, and
// -version (Parse).
package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
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

// ShardPaths lists the shard files a -merge names: each argument is a
// shard file, or a folder whose shard-*-of-*.json files are taken (where
// the shards wrote under -out).
func ShardPaths(args []string) ([]string, error) {
	var paths []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			paths = append(paths, a)
			continue
		}
		m, _ := filepath.Glob(filepath.Join(a, "shard-*-of-*.json"))
		if len(m) == 0 {
			return nil, fmt.Errorf("%s has no shard-*-of-*.json files: give the folder the shards wrote under (-out)", a)
		}
		paths = append(paths, m...)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("give the shard files, or the folder they were written under")
	}
	return paths, nil
}
