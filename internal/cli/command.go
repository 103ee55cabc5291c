package cli

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Command is a command of several modes (`simulate compare`), each with a
// FlagSet of its own: a flag that a mode does not take is unknown to it,
// and the error says which mode takes it. C is the command's parsed
// configuration.
type Command[C any] struct {
	// Name is the command ("simulate").
	Name string
	// About says what the command does, for its help.
	About string
	// Modes are its modes; the first is the plain run.
	Modes []Mode
	// Exits are every exit code the command returns, with what each means.
	Exits []Exit
	// Flags registers mode's flags into fs, bound to c.
	Flags func(c *C, mode string, fs *flag.FlagSet)
}

// Exit is an exit code and what it means for one command.
type Exit struct {
	Code  int
	Means string
}

// Parsed is a command line read by Command.Parse.
type Parsed[C any] struct {
	// Config is what the flags say.
	Config *C
	// Mode is the mode asked for: its subcommand, its old flag form, or
	// the plain run.
	Mode Mode
	// Args are the arguments; a mode with a Value has it first.
	Args []string
	// Given holds the names of the flags given on the line.
	Given map[string]bool
	// Declined names the mode whose old flag form was given false
	// (-advise=false): the line runs the plain run, without that mode.
	Declined string
}

// Parse reads args: it picks the mode (Mode), then parses the rest with
// that mode's own FlagSet, flags anywhere (Permute), with -h (the mode's
// help, on stderr) and -version (Parse). An error is bad input; after -h
// or -version it matches flag.ErrHelp.
func (cmd *Command[C]) Parse(args []string, stdout, stderr io.Writer) (*Parsed[C], error) {
	mode, rest, declined, err := cmd.pick(args)
	if err != nil {
		return nil, err
	}
	c := new(C)
	fs := cmd.flagSet(c, mode)
	fs.SetOutput(stderr)
	fs.Usage = func() { cmd.WriteHelp(stderr, mode, fs) }
	if err := cmd.checkFlags(mode, fs, rest); err != nil {
		return nil, err
	}
	if err := Parse(fs, rest, stdout); err != nil {
		return nil, err
	}
	p := &Parsed[C]{Config: c, Mode: mode, Args: fs.Args(), Given: map[string]bool{}, Declined: declined}
	fs.Visit(func(f *flag.Flag) { p.Given[f.Name] = true })
	return p, nil
}

// flagSet is mode's FlagSet, bound to c.
func (cmd *Command[C]) flagSet(c *C, mode Mode) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd.Name, flag.ContinueOnError)
	cmd.Flags(c, mode.Name, fs)
	return fs
}

// Title is how a mode is named to users: "simulate compare".
func (cmd *Command[C]) Title(mode Mode) string { return cmd.Name + " " + mode.Name }

// pick finds the mode: the first word when it names one, else the old
// flag form of one anywhere before "--" (its value becomes the first
// argument), else the plain run. It returns the rest of the line.
func (cmd *Command[C]) pick(args []string) (mode Mode, rest []string, declined string, err error) {
	if len(args) > 0 {
		for _, m := range cmd.Modes {
			if args[0] == m.Name {
				return m, args[1:], "", nil
			}
		}
	}
	mode = cmd.Modes[0]
	var value []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		m, v, hasV, ok := cmd.oldForm(a)
		if !ok {
			rest = append(rest, a)
			continue
		}
		if !m.Value && hasV {
			on, perr := strconv.ParseBool(v)
			if perr != nil {
				return mode, nil, "", fmt.Errorf("%s: give -%s alone (or %s %s)", a, m.Flag, cmd.Name, m.Name)
			}
			if !on {
				declined = m.Name
				continue
			}
		}
		if mode.Name != cmd.Modes[0].Name {
			return mode, nil, "", fmt.Errorf("-%s and -%s are two modes: give one (%s %s or %s %s)", mode.Flag, m.Flag, cmd.Name, mode.Name, cmd.Name, m.Name)
		}
		mode = m
		if m.Value && !hasV {
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "-") {
				return mode, nil, "", fmt.Errorf("-%s needs a value: %s", m.Flag, m.Help)
			}
			i++
			v = args[i]
		}
		if m.Value {
			value = []string{v}
		}
	}
	return mode, append(value, rest...), declined, nil
}

// oldForm reports whether word is the old flag form of a mode (-compare,
// --compare=X), with the value written after "=".
func (cmd *Command[C]) oldForm(word string) (m Mode, value string, hasValue, ok bool) {
	if !strings.HasPrefix(word, "-") {
		return m, "", false, false
	}
	name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(word, "-"), "-"), "=")
	for _, m := range cmd.Modes {
		if m.Flag != "" && m.Flag == name {
			return m, value, hasValue, true
		}
	}
	return m, "", false, false
}

// checkFlags refuses a flag on the line that mode's FlagSet does not
// have but another mode's has, naming the modes that take it. Flags no
// mode has are left to the flag package's own error.
func (cmd *Command[C]) checkFlags(mode Mode, fs *flag.FlagSet, args []string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return nil
		}
		if a == "-" || !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if f := fs.Lookup(name); f != nil {
			if !isBool(f) && !hasValue {
				i++ // its value
			}
			continue
		}
		if takers := cmd.takers(name); len(takers) > 0 {
			return fmt.Errorf("%s does not take -%s: it is a flag of %s (%s -h lists the flags it takes)",
				cmd.Title(mode), name, strings.Join(takers, ", "), cmd.Title(mode))
		}
	}
	return nil
}

// takers names the modes whose FlagSet has the flag name.
func (cmd *Command[C]) takers(name string) []string {
	var out []string
	for _, m := range cmd.Modes {
		if cmd.flagSet(new(C), m).Lookup(name) != nil {
			out = append(out, cmd.Title(m))
		}
	}
	return out
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
