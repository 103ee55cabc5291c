package cli

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
)

// testConfig is a command's configuration in these tests.
type testConfig struct {
	json, force bool
	out         string
	seed        uint64
	seedSet     bool
	gates       Gates
}

var testCommand = &Command[testConfig]{
	Name:  "sim",
	About: "Sim simulates.",
	Modes: []Mode{
		{Name: "run", Args: "[SCENARIO.yaml]", Help: "predict"},
		{Name: "compare", Flag: "compare", Value: true, Args: "RUN.json [SCENARIO.yaml]", Help: "predict a live run"},
		{Name: "merge", Flag: "merge", Args: "DIR", Help: "merge shards"},
	},
	Exits: []Exit{{ExitOK, "ok"}, {ExitBadInput, "bad input"}, {ExitThreshold, "a gate broken"}},
	Flags: func(c *testConfig, mode string, fs *flag.FlagSet) {
		sh := Shared{Out: &c.out, JSON: &c.json, Gates: &c.gates}
		switch mode {
		case "run":
			sh.Seed, sh.SeedSet = &c.seed, &c.seedSet
		case "compare":
			fs.BoolVar(&c.force, "force", false, "judge anyway")
		}
		sh.Register(fs)
	},
}

// TestCommandParse: the mode comes from the first word, or from its old
// flag form anywhere on the line (its value first among the arguments);
// each mode parses only its own flags, anywhere on the line.
func TestCommandParse(t *testing.T) {
	for _, tc := range []struct {
		in       []string
		mode     string
		args     []string
		given    []string
		declined string
	}{
		{nil, "run", nil, nil, ""},
		{[]string{"x.yaml", "-seed", "3"}, "run", []string{"x.yaml"}, []string{"seed"}, ""},
		{[]string{"run", "x.yaml"}, "run", []string{"x.yaml"}, nil, ""},
		{[]string{"compare", "r.json", "-json"}, "compare", []string{"r.json"}, []string{"json"}, ""},
		{[]string{"compare", "-force", "r.json", "x.yaml"}, "compare", []string{"r.json", "x.yaml"}, []string{"force"}, ""},
		{[]string{"-compare", "r.json", "-force"}, "compare", []string{"r.json"}, []string{"force"}, ""},
		{[]string{"x.yaml", "-compare", "r.json"}, "compare", []string{"r.json", "x.yaml"}, nil, ""},
		{[]string{"-json", "--compare=r.json", "x.yaml"}, "compare", []string{"r.json", "x.yaml"}, []string{"json"}, ""},
		{[]string{"merge", "DIR", "-json"}, "merge", []string{"DIR"}, []string{"json"}, ""},
		{[]string{"-json", "-merge", "DIR"}, "merge", []string{"DIR"}, []string{"json"}, ""},
		{[]string{"-merge", "DIR", "-json"}, "merge", []string{"DIR"}, []string{"json"}, ""},
		{[]string{"-merge=true", "DIR"}, "merge", []string{"DIR"}, nil, ""},
		{[]string{"-merge=false", "x.yaml"}, "run", []string{"x.yaml"}, nil, "merge"},
		{[]string{"x.yaml", "--", "-merge"}, "run", []string{"x.yaml", "-merge"}, nil, ""},
	} {
		p, err := testCommand.Parse(tc.in, io.Discard, io.Discard)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		var given []string
		for g := range p.Given {
			given = append(given, g)
		}
		slices.Sort(given)
		if p.Mode.Name != tc.mode || !slices.Equal(p.Args, tc.args) || !slices.Equal(given, tc.given) || p.Declined != tc.declined {
			t.Errorf("Parse(%q) = mode %s, args %q, given %q, declined %q; want %s, %q, %q, %q",
				tc.in, p.Mode.Name, p.Args, given, p.Declined, tc.mode, tc.args, tc.given, tc.declined)
		}
	}
}

// TestCommandParseErrors: a flag another mode takes is refused naming the
// modes that take it; two modes, or an old form without its value, are
// refused too.
func TestCommandParseErrors(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{[]string{"merge", "DIR", "-seed", "3"}, "sim merge does not take -seed: it is a flag of sim run"},
		{[]string{"-merge", "DIR", "-force"}, "sim merge does not take -force: it is a flag of sim compare"},
		{[]string{"-seed=3", "-force"}, "sim run does not take -force: it is a flag of sim compare"},
		{[]string{"-compare", "r.json", "-merge"}, "-compare and -merge are two modes"},
		{[]string{"-compare"}, "-compare needs a value"},
		{[]string{"-compare", "-json"}, "-compare needs a value"},
		{[]string{"-merge=maybe"}, "give -merge alone"},
		{[]string{"-seed", "x"}, "must be a whole number"},
		{[]string{"-nosuch"}, "flag provided but not defined: -nosuch"},
	} {
		_, err := testCommand.Parse(tc.in, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q): error %v, want one saying %q", tc.in, err, tc.want)
		}
	}
}

// TestCommandHelp: -h prints the mode's own flags in groups, the modes
// and every exit code, and returns flag.ErrHelp; a mode's help lists
// only its flags.
func TestCommandHelp(t *testing.T) {
	var run, cmp bytes.Buffer
	if _, err := testCommand.Parse([]string{"-h"}, io.Discard, &run); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v, want flag.ErrHelp", err)
	}
	if _, err := testCommand.Parse([]string{"compare", "-h"}, io.Discard, &cmp); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("compare -h: %v, want flag.ErrHelp", err)
	}
	for _, want := range []string{"usage: sim [run] [flags] [SCENARIO.yaml]", "Sim simulates.", "  sim compare", "run flags:\n  -seed seed",
		"output flags:\n  -json", "  -out folder", "(default reports)", "gate flags", "  -threshold", "exit codes of sim:\n  0    ok\n  2    bad input\n  3    a gate broken"} {
		if !strings.Contains(run.String(), want) {
			t.Errorf("sim -h lacks %q:\n%s", want, run.String())
		}
	}
	if strings.Contains(run.String(), "-force") {
		t.Errorf("sim -h lists compare's -force:\n%s", run.String())
	}
	for _, want := range []string{"usage: sim compare [flags] RUN.json [SCENARIO.yaml]", "Old form, still accepted: sim -compare RUN.json.", "compare flags:\n  -force", "exit codes of sim:"} {
		if !strings.Contains(cmp.String(), want) {
			t.Errorf("sim compare -h lacks %q:\n%s", want, cmp.String())
		}
	}
	if strings.Contains(cmp.String(), "-seed") {
		t.Errorf("sim compare -h lists run's -seed:\n%s", cmp.String())
	}
}
