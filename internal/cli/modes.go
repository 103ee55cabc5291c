package cli

import (
	"flag"
	"strings"
)

// Mode is a subcommand: a first word on the command line that names one of
// a command's modes, and the flag that has always asked for it, so that
// `simulate compare RUN.json` and `simulate -compare RUN.json` run the
// same. A mode whose flag takes a value takes it from the word after the
// mode's name.
type Mode struct {
	// Name is the subcommand ("compare"); Flag the flag it stands for
	// ("compare"), "" for the command's plain run.
	Name, Flag string
	// Value says the flag takes the next argument as its value.
	Value bool
	// Help says what the mode does, in a few words, for the usage text.
	Help string
}

// Subcommand rewrites args whose first word names one of modes into the
// flag form: the mode's flag, with its value when it takes one, and the
// rest as given. Args that do not start with a mode's name are returned as
// they are; so are args after "--".
func Subcommand(args []string, modes []Mode) []string {
	if len(args) == 0 {
		return args
	}
	for _, m := range modes {
		if args[0] != m.Name {
			continue
		}
		rest := args[1:]
		if m.Flag == "" {
			return rest
		}
		if m.Value {
			if len(rest) == 0 || strings.HasPrefix(rest[0], "-") {
				return append([]string{"-" + m.Flag}, rest...) // flag's own error: it needs a value
			}
			return append([]string{"-" + m.Flag, rest[0]}, rest[1:]...)
		}
		return append([]string{"-" + m.Flag}, rest...)
	}
	return args
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
			return append(append(flags, rest...), args[i:]...)
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

// ModesUsage is the usage text's list of modes, one a line.
func ModesUsage(command string, modes []Mode) string {
	var b strings.Builder
	b.WriteString("modes (each also its old flag form, e.g. -" + firstFlag(modes) + "):\n")
	for _, m := range modes {
		line := "  " + command + " " + m.Name
		b.WriteString(line + strings.Repeat(" ", max(1, 30-len(line))) + m.Help + "\n")
	}
	return b.String()
}

func firstFlag(modes []Mode) string {
	for _, m := range modes {
		if m.Flag != "" {
			return m.Flag
		}
	}
	return "h"
}
