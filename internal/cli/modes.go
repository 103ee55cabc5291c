package cli

import (
	"flag"
	"strings"
)

// Mode is one of a command's modes: the subcommand that names it
// (`simulate compare RUN.json`) and the flag form it has always had
// (`simulate -compare RUN.json`), which stays an alias.
type Mode struct {
	// Name is the subcommand ("compare"); Flag the old flag form
	// ("compare"), "" for the command's plain run.
	Name, Flag string
	// Value says the old flag takes a value: the mode's first argument.
	Value bool
	// Args are the mode's arguments, for its usage line ("RUN/summary.json [SCENARIO.yaml]").
	Args string
	// Help says what the mode does, in a few words.
	Help string
}

// Permute moves the flags in args that follow its arguments before them,
// so that flags work anywhere on the line (`simulate merge DIR -json`):
// Go's flag package stops at the first argument. A flag of fs that takes
// a value takes the next word unless it was written -name=value; a word
// after "--" is an argument, and so is "-" alone. An unknown flag is left
// where it is for fs to refuse.
func Permute(fs *flag.FlagSet, args []string) []string {
	var flags, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			// "--" goes before the arguments, where the flag package reads
			// it as the end of the flags, not as an argument.
			return append(append(append(flags, "--"), rest...), args[i+1:]...)
		case a == "-" || !strings.HasPrefix(a, "-"):
			rest = append(rest, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	return append(flags, rest...)
}
