package cli

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// outputFlags and gateFlags are the flags of the help's output and gates
// groups; the others of a mode are its own (the run group for the plain run).
var (
	outputFlags = []string{"out", "json", "no-report"}
	gateFlags   = []string{"threshold", "max-ratio", "at", "junit"}
)

// WriteHelp writes mode's help: its usage line, what it does, the
// command's modes, mode's flags grouped (the mode's own, output, gates)
// and every exit code of the command.
func (cmd *Command[C]) WriteHelp(w io.Writer, mode Mode, fs *flag.FlagSet) {
	line := cmd.Title(mode)
	if mode.Name == cmd.Modes[0].Name {
		line = cmd.Name + " [" + mode.Name + "]"
	}
	fmt.Fprintf(w, "usage: %s [flags] %s   (flags may follow the arguments)\n\n", line, mode.Args)
	if mode.Name == cmd.Modes[0].Name {
		fmt.Fprint(w, strings.TrimSpace(cmd.About), "\n\n")
	} else {
		fmt.Fprintf(w, "%s: %s.\n", cmd.Title(mode), mode.Help)
		if mode.Flag != "" {
			fmt.Fprintf(w, "Old form, still accepted: %s -%s%s.\n", cmd.Name, mode.Flag, oldValue(mode))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "modes (each also its old flag form, e.g. -"+cmd.Modes[len(cmd.Modes)-1].Flag+"; MODE -h for its flags):")
	for _, m := range cmd.Modes {
		name := cmd.Title(m)
		fmt.Fprintf(w, "  %-22s %s\n", name, m.Help)
	}
	var own, output, gates []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) {
		switch {
		case f.Name == "version":
		case slices.Contains(outputFlags, f.Name):
			output = append(output, f)
		case slices.Contains(gateFlags, f.Name):
			gates = append(gates, f)
		default:
			own = append(own, f)
		}
	})
	writeGroup(w, mode.Name+" flags", own)
	writeGroup(w, "output flags", output)
	writeGroup(w, "gate flags (exit 3 when one breaks)", gates)
	fmt.Fprintf(w, "\nalso: -h (this help), -version\n\nexit codes of %s:\n", cmd.Name)
	for _, e := range cmd.Exits {
		fmt.Fprintf(w, "  %-4d %s\n", e.Code, e.Means)
	}
}

// oldValue is the placeholder of an old flag form's value.
func oldValue(m Mode) string {
	if !m.Value {
		return ""
	}
	return " " + strings.Fields(m.Args)[0]
}

// writeGroup writes one group of flags as flag.PrintDefaults does.
func writeGroup(w io.Writer, title string, flags []*flag.Flag) {
	if len(flags) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s:\n", title)
	for _, f := range flags {
		name, usage := flag.UnquoteUsage(f)
		line := "  -" + f.Name
		if name != "" {
			line += " " + name
		}
		usage = strings.ReplaceAll(usage, "\n", "\n    \t")
		if !zeroDefault(f) {
			usage += " (default " + f.DefValue + ")"
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", line, usage)
	}
}

// zeroDefault reports whether f's default is its type's zero, which the
// help does not state.
func zeroDefault(f *flag.Flag) bool {
	switch f.DefValue {
	case "", "0", "0s", "false", "[]":
		return true
	}
	return false
}
