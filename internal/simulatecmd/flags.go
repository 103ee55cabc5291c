package simulatecmd

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/overshoot-dev/overshoot/internal/cli"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// Exit codes: the ones every command shares (internal/cli).
const (
	ExitOK        = cli.ExitOK
	ExitFailure   = cli.ExitFailure
	ExitBadInput  = cli.ExitBadInput
	ExitThreshold = cli.ExitThreshold
)

// config is what the command line says. It is read once (parseFlags) and
// not changed after: what a run finds on its way is in a prediction.
type config struct {
	mode        string // the mode's name: run, advise, calibrate, compare, diff or merge
	file        string
	seed        uint64
	seedSet     bool
	trials      int
	workers     int
	out         string
	json        bool
	noReport    bool
	sets        []string
	gates       cli.Gates
	compare     string      // compare: the live run's summary.json
	force       bool        // -force: compare or calibrate even when scenario or mode differ
	calibrate   []string    // calibrate: the live summaries to fit (calibrateArgs)
	fit         string      // -fit: the paths to fit (default DefaultFit)
	shard       *plan.Shard // -shard I/N: run one shard, write its file under out
	merge       []string    // merge: the shard files or folders to merge
	sensitivity bool        // -sensitivity: the headline under the model's assumptions
	advise      bool        // advise: search the design space for the budget
	adviseSet   bool        // advise was asked for, or declined (-advise=false)
	budget      []string    // -budget: the advice's conditions
	limit       int64       // -limit: the product's limit the advice enforces (0: the scenario's)
	searchLimit bool        // -search-limit: the advice searches each design's largest limit instead
	diff        []string    // diff: the two summaries to compare
}

// Modes are simulate's modes, each also the flag form it has always had.
var Modes = []cli.Mode{
	{Name: "run", Args: "[SCENARIO.yaml]", Help: "predict a scenario (the default)"},
	{Name: "advise", Flag: "advise", Args: "[SCENARIO.yaml]", Help: "rank the designs that enforce the limit within a budget"},
	{Name: "calibrate", Flag: "calibrate", Value: true, Args: "R1.json [R2.json...] [SCENARIO.yaml]", Help: "fit the model to live runs' summaries"},
	{Name: "compare", Flag: "compare", Value: true, Args: "RUN/summary.json [SCENARIO.yaml]", Help: "predict a live run and judge it"},
	{Name: "diff", Flag: "diff", Args: "A/summary.json B/summary.json", Help: "two runs side by side"},
	{Name: "merge", Flag: "merge", Args: "DIR|SHARD.json...", Help: "merge shards into one run"},
}

// command is simulate's command line: its modes, each with its flags.
var command = &cli.Command[config]{
	Name: "simulate",
	About: `Predicts, with a discrete-event model of Workers KV, how many requests a
KV-backed rate limiter lets through under the scenario's traffic. With no
file it runs the embedded scenarios/default.yaml (the seed article's
endpoint: 5 per day per token+IP, one bot loop). A store that failed most
reads is flagged in the summary, not failed: in a model, an outage is a
result.

Sharded runs (docs/distributed.md): each of N processes runs
  simulate -shard I/N -out DIR [flags] [SCENARIO.yaml]
and writes DIR/shard-I-of-N.json; then simulate merge DIR writes the
summary and report of the whole run, byte for byte the summary one
process would have written.`,
	Modes: Modes,
	Exits: []cli.Exit{
		{Code: ExitOK, Means: "ok (also after -h and -version)"},
		{Code: ExitFailure, Means: "failure, or interrupted (the trials that finished are still written, marked incomplete)"},
		{Code: ExitBadInput, Means: "bad input: flags, scenario, summaries or shards (nothing written)"},
		{Code: ExitThreshold, Means: "a gate broken (-threshold, -max-ratio), or advise found no design meeting the budget"},
	},
	Flags: (*config).flags,
}

// flags registers mode's flags into fs: the shared ones (cli.Shared) and
// simulate's own.
func (c *config) flags(mode string, fs *flag.FlagSet) {
	sh := cli.Shared{Out: &c.out, ShardWhat: "of the run's trials"}
	if mode != "diff" && mode != "merge" {
		sh.Scenario, sh.Seed, sh.SeedSet, sh.Sets = &c.file, &c.seed, &c.seedSet, (*cli.Sets)(&c.sets)
		usage := "number of trials (default: the scenario's trials)"
		if mode == "advise" {
			usage = "number of trials for each design (default: the scenario's trials, at most 10)"
		}
		fs.IntVar(&c.trials, "trials", 0, usage)
		fs.IntVar(&c.workers, "workers", 0, "trials run at once (default: GOMAXPROCS; results do not depend on it)")
	}
	if mode != "calibrate" {
		sh.JSON, sh.NoReport = &c.json, &c.noReport
	}
	switch mode {
	case "run":
		sh.Gates, sh.Shard = &c.gates, &c.shard
		fs.BoolVar(&c.sensitivity, "sensitivity", true, "re-predict the headline with each of the model's unpublished assumptions at its alternatives (single runs; -sensitivity=false skips it)")
		c.adviceFlags(fs, "with a scenario that has an advise budget (it asks for advice): ")
	case "advise":
		fs.Func("budget", "a condition every design must meet, `METRIC OP VALUE` as -threshold (repeatable), e.g. 'allowed.p99<=120'; adds to advise.budget", func(v string) error {
			c.budget = append(c.budget, v)
			return nil
		})
		c.adviceFlags(fs, "")
	case "calibrate":
		fs.StringVar(&c.fit, "fit", "", "the `PATH[=START][,...]` to fit, each a duration (default "+strings.Join(DefaultFit, ",")+")")
		fs.BoolVar(&c.force, "force", false, "calibrate on summaries whose mode is not attack")
	case "compare":
		sh.Gates = &c.gates
		fs.BoolVar(&c.force, "force", false, "predict even when the summary's scenario (name, hash) is not the one predicted, or its mode is not attack")
	case "merge":
		sh.Gates = &c.gates
	}
	sh.Register(fs)
}

// adviceFlags registers -limit and -search-limit, their help starting
// with when.
func (c *config) adviceFlags(fs *flag.FlagSet, when string) {
	fs.Int64Var(&c.limit, "limit", 0, when+"the product's `limit` every design must enforce (default: the scenario's limiter.limit)")
	fs.BoolVar(&c.searchLimit, "search-limit", false, when+"find each design's largest limit meeting the budget instead of checking the product's limit")
}

// parseFlags reads args into a config; errors are bad input.
func parseFlags(args []string, stdout, stderr io.Writer) (*config, error) {
	p, err := command.Parse(args, stdout, stderr)
	if err != nil {
		return nil, err
	}
	c, rest := p.Config, p.Args
	c.mode, c.advise = p.Mode.Name, p.Mode.Name == "advise"
	c.adviseSet = c.advise || p.Declined == "advise"
	switch c.mode {
	case "diff":
		if len(rest) != 2 {
			return nil, fmt.Errorf("simulate diff takes two summary.json files, A and B (before and after), e.g. simulate diff reports/a/summary.json reports/b/summary.json")
		}
		c.diff = rest
		return c, nil
	case "merge":
		if len(rest) == 0 {
			return nil, fmt.Errorf("simulate merge: give the shard files, or the folder the shards wrote under (-out)")
		}
		c.merge = rest
		return c, c.gates.Validate()
	case "compare", "calibrate":
		if len(rest) == 0 {
			return nil, fmt.Errorf("simulate %s needs %s", c.mode, p.Mode.Args)
		}
		if c.mode == "compare" {
			c.compare, rest = rest[0], rest[1:]
		} else {
			c.calibrate, rest = calibrateArgs(rest, p.Given["scenario"])
		}
	}
	if err := c.scenarioArg(rest, p.Given["scenario"]); err != nil {
		return nil, err
	}
	if c.trials < 0 || c.trials == 0 && p.Given["trials"] {
		return nil, fmt.Errorf("-trials %d: give 1 or more (or leave -trials out for the scenario's)", c.trials)
	}
	if c.trials > scenario.MaxTrials {
		return nil, fmt.Errorf("-trials %d is over %d, the most a run may have (as trials: in a file): give fewer", c.trials, scenario.MaxTrials)
	}
	if c.workers < 0 {
		return nil, fmt.Errorf("-workers %d is negative: give 1 or more, or 0 for one per core", c.workers)
	}
	return c, c.gates.Validate()
}

// calibrateArgs splits calibrate's arguments into the live summaries to
// fit and what is left (the scenario file, at most one): the last argument
// is the scenario when it ends in .yaml or .yml, there is another before it
// and -scenario did not name one (given). Each other argument is one
// summary when a file has that name, else a comma-separated list of them
// (the old form, R1.json,R2.json), so that a path with a comma in it can be
// given as an argument of its own.
func calibrateArgs(args []string, given bool) (summaries, rest []string) {
	if n := len(args); n > 1 && !given && (strings.HasSuffix(args[n-1], ".yaml") || strings.HasSuffix(args[n-1], ".yml")) {
		args, rest = args[:n-1], args[n-1:]
	}
	for _, a := range args {
		if _, err := os.Stat(a); err == nil || !strings.Contains(a, ",") {
			summaries = append(summaries, a)
			continue
		}
		for _, s := range strings.Split(a, ",") {
			if s = strings.TrimSpace(s); s != "" {
				summaries = append(summaries, s)
			}
		}
	}
	return summaries, rest
}

// scenarioArg takes the scenario file from the arguments left, at most
// one, unless -scenario named it (given).
func (c *config) scenarioArg(rest []string, given bool) error {
	switch {
	case len(rest) == 0:
		return nil
	case len(rest) > 1:
		return fmt.Errorf("simulate %s takes one scenario file, got %d: %s", c.mode, len(rest), strings.Join(rest, " "))
	case given:
		return fmt.Errorf("scenario given twice, as -scenario %s and as the argument %s: give one", c.file, rest[0])
	}
	c.file = rest[0]
	return nil
}
