// Package simulate is the simulate command: flags to scenario, scenario to
// model runs (one per sweep point), runs to summary, summary to terminal,
// summary.json and report. cmd/simulate only calls Main.
package simulate

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"time"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/model"
	"github.com/overshoot-dev/overshoot/internal/report"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// Exit codes, the same for both commands.
const (
	ExitOK        = 0
	ExitFailure   = 1 // something went wrong that is not the user's input
	ExitBadInput  = 2 // bad flags or scenario: nothing was written
	ExitThreshold = 3 // the prediction breaks -max-ratio
)

// config is what the flags say.
type config struct {
	file      string
	seed      uint64
	seedSet   bool
	trials    int
	workers   int
	out       string
	json      bool
	noReport  bool
	sets      []string
	threshold measure.Threshold
	compare   string
}

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

const usage = `usage: simulate [flags] [SCENARIO.yaml]

Predicts, with a discrete-event model of Workers KV, how many requests a
KV-backed rate limiter lets through under the scenario's traffic. With no
file it runs the embedded scenarios/default.yaml (the seed article's
endpoint: 5 per day per token+IP, one bot loop).

Exit status: 0 ok, 1 failure, 2 bad input (nothing written), 3 the
prediction breaks -max-ratio.

flags:
`

// parseFlags reads args into a config; errors are bad input.
func parseFlags(args []string, stderr io.Writer) (*config, error) {
	c := &config{}
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	seed := fs.Uint64("seed", 0, "seed of every random draw (default: the scenario's seed)")
	fs.IntVar(&c.trials, "trials", 0, "number of trials (default: the scenario's trials)")
	fs.IntVar(&c.workers, "workers", 0, "trials run at once (default: GOMAXPROCS; results do not depend on it)")
	fs.StringVar(&c.out, "out", "reports", "folder the report is written under, as OUT/<scenario>/<time>/")
	fs.BoolVar(&c.json, "json", false, "print summary.json on stdout and nothing else there")
	fs.BoolVar(&c.noReport, "no-report", false, "write no report folder (the summary is still printed)")
	fs.Var((*multiFlag)(&c.sets), "set", "override a scenario field, path=value (repeatable), e.g. -set limiter.limit=10")
	fs.Float64Var(&c.threshold.Max, "max-ratio", 0, "exit 3 when the overshoot ratio (allowed/limit) exceeds this")
	fs.StringVar(&c.threshold.At, "at", "max", "statistic -max-ratio applies to: "+strings.Join(measure.ThresholdStats, ", "))
	fs.StringVar(&c.compare, "compare", "", "a live run's summary.json: predict for its scenario and report both side by side")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "seed" {
			c.seed, c.seedSet = *seed, true
		}
	})
	switch fs.NArg() {
	case 0:
	case 1:
		c.file = fs.Arg(0)
	default:
		return nil, fmt.Errorf("simulate takes one scenario file, got %d: %s", fs.NArg(), strings.Join(fs.Args(), " "))
	}
	if c.trials < 0 {
		return nil, fmt.Errorf("-trials %d is negative: give 1 or more", c.trials)
	}
	if err := c.threshold.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// Main runs the simulate command and returns its exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	c, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, "simulate:", err)
		return ExitBadInput
	}
	var measured *measure.Summary
	if c.compare != "" {
		if measured, err = readSummary(c.compare); err != nil {
			fmt.Fprintln(stderr, "simulate:", err)
			return ExitBadInput
		}
		if c.file == "" && measured.Scenario.File != "" {
			c.file = measured.Scenario.File
		}
	}
	sc, err := load(c, measured)
	if err != nil {
		fmt.Fprintln(stderr, "simulate:", err)
		return ExitBadInput
	}
	points, err := sc.Expand()
	if err != nil {
		fmt.Fprintln(stderr, "simulate:", err)
		return ExitBadInput
	}

	// The model allocates little that lives long: collecting less often is
	// about 10% faster and memory stays small (see model's benchmarks).
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	prog := newProgress(stderr, len(points))
	s, err := run(ctx, c, sc, points, prog)
	prog.done()
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "simulate:", err)
		return ExitBadInput
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "simulate: interrupted: writing what finished, marked incomplete")
	}
	return finish(c, sc, s, measured, stdout, stderr)
}

// load reads the scenario: the file named, or the embedded default.
func load(c *config, measured *measure.Summary) (*scenario.Scenario, error) {
	sets := c.sets
	if measured != nil {
		// Predict for exactly what the live run ran: its overrides first,
		// then the live profile (window, duration) it used.
		sets = append(append([]string(nil), measured.Scenario.Params...), sets...)
	}
	var sc *scenario.Scenario
	var err error
	if c.file == "" {
		sc, err = scenario.Default(sets...)
	} else {
		sc, err = scenario.LoadWithOverrides(c.file, sets)
	}
	if err != nil {
		return nil, err
	}
	if measured != nil {
		return sc.LiveProfile()
	}
	return sc, nil
}

// readSummary reads a summary.json to compare with.
func readSummary(path string) (*measure.Summary, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-compare: %w", err)
	}
	var s measure.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("-compare %s: not a summary.json: %v", path, err)
	}
	if s.Schema != measure.SchemaVersion {
		return nil, fmt.Errorf("-compare %s: summary schema %d, this simulate reads schema %d", path, s.Schema, measure.SchemaVersion)
	}
	return &s, nil
}

// run simulates every point, in order, and returns the run's summary: the
// point's own for a single scenario, one entry per point for a sweep.
func run(ctx context.Context, c *config, sc *scenario.Scenario, points []scenario.Point, prog *progress) (measure.Summary, error) {
	seed := sc.Seed
	if c.seedSet {
		seed = c.seed
	}
	var out measure.Summary
	var runErr error
	for i, p := range points {
		opts := model.Options{Seed: seed, Trials: c.trials, Workers: c.workers, Context: ctx,
			Progress: func(done, total int) { prog.update(i, done, total) }}
		s, err := model.Run(p.Scenario, opts)
		if err != nil && !errors.Is(err, context.Canceled) {
			if len(points) > 1 {
				err = fmt.Errorf("sweep point %s: %w", p.Label(), err)
			}
			return measure.Summary{}, err
		}
		runErr = err
		s.Scenario = ref(p.Scenario)
		if len(points) == 1 && len(p.Params) == 0 {
			out = s
			break
		}
		if i == 0 {
			out = s
			out.Scenario = ref(sc)
			out.Totals, out.Overshoot, out.Populations = measure.Totals{}, measure.Overshoot{}, nil
			out.KV, out.Cost, out.WorstKeys = measure.KVWork{}, measure.Cost{}, nil
		}
		pt := measure.Point{Summary: &s}
		for _, q := range p.Params {
			pt.Params = append(pt.Params, measure.Param{Path: q.Path, Value: q.Value})
		}
		out.Points = append(out.Points, pt)
		out.Complete = err == nil
		if err != nil {
			break
		}
	}
	return out, runErr
}

// ref identifies a scenario in a summary.
func ref(sc *scenario.Scenario) measure.ScenarioRef {
	return measure.ScenarioRef{Name: sc.Name, File: sc.Source(), Hash: sc.Hash(), Question: sc.Question,
		Params: sc.Overrides(), Traffic: report.DescribeTraffic(sc)}
}

// finish prints the summary, writes the report and applies the threshold.
func finish(c *config, sc *scenario.Scenario, s measure.Summary, measured *measure.Summary, stdout, stderr io.Writer) int {
	dir := ""
	if !c.noReport {
		var err error
		opts := report.Options{Compare: measured, Traffic: s.Scenario.Traffic}
		dir, err = report.WriteNew(c.out, &s, time.Now(), opts)
		if err != nil {
			fmt.Fprintln(stderr, "simulate:", err)
			return ExitFailure
		}
	}
	if c.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(&s); err != nil {
			fmt.Fprintln(stderr, "simulate:", err)
			return ExitFailure
		}
	} else {
		if err := measure.WriteText(stdout, &s); err != nil {
			fmt.Fprintln(stderr, "simulate:", err)
			return ExitFailure
		}
		if dir != "" {
			fmt.Fprintf(stdout, "\nreport: %s/report.html (summary.json, report.md and figures beside it)\n", dir)
		}
	}
	if dir != "" && c.json {
		fmt.Fprintf(stderr, "report: %s\n", dir)
	}
	if broken := c.threshold.Check(&s); len(broken) > 0 {
		for _, b := range broken {
			fmt.Fprintln(stderr, "simulate: threshold broken:", b)
		}
		return ExitThreshold
	}
	if !s.Complete {
		return ExitFailure
	}
	return ExitOK
}
