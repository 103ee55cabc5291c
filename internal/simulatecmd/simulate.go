// Package simulatecmd is the simulate command: flags to scenario, scenario to
// model runs (one per sweep point), runs to summary, summary to terminal,
// summary.json and report. cmd/simulate only calls Main.
package simulatecmd

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

// String prints the values given so far, for flag's help.
func (m *multiFlag) String() string { return strings.Join(*m, " ") }

// Set adds one more value: each -set adds, none replaces.
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
	if c.workers < 0 {
		return nil, fmt.Errorf("-workers %d is negative: give 1 or more, or 0 for one per core", c.workers)
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
		// The scenario was valid (it loaded); a run that fails is not bad input.
		fmt.Fprintln(stderr, "simulate:", err)
		return ExitFailure
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
		return measuredProfile(sc, measured)
	}
	return sc, nil
}

// measuredProfile is the scenario as the live run that wrote measured ran
// it: its live profile, then what the run itself reports, which wins: the
// limit and window the target announced, how long it really ran (a run
// stopped early covers less), and the store the built-in target used.
func measuredProfile(sc *scenario.Scenario, measured *measure.Summary) (*scenario.Scenario, error) {
	sc, err := sc.LiveProfile()
	if err != nil {
		return nil, err
	}
	var sets []string
	if l := measured.Limiter; l.Limit > 0 && l.WindowSecs > 0 {
		sets = append(sets, fmt.Sprintf("limiter.limit=%d", l.Limit),
			"limiter.window="+scenario.Duration(time.Duration(l.WindowSecs*float64(time.Second)).Round(time.Millisecond)).String())
	}
	switch measured.Limiter.Store {
	case "eventual": // the simulator's KV model on the wall clock
		sets = append(sets, "store.kind="+scenario.KindKV)
	case "memory":
		sets = append(sets, "store.kind="+scenario.KindMemory)
	}
	out := sc
	if len(sets) > 0 {
		if out, err = sc.With(sets...); err != nil {
			return nil, fmt.Errorf("-compare: the measured run's settings do not fit the scenario: %w", err)
		}
	}
	// The run may have been shorter than planned (interrupted, -duration):
	// predict that long, with the populations that had started by then.
	if lv := measured.Live; lv != nil && lv.DurationSecs > 0 {
		d := max(time.Duration(lv.DurationSecs*float64(time.Second)).Round(time.Millisecond), time.Millisecond)
		if d < out.Duration.D() {
			out = shortened(out, d)
			if len(out.Traffic) == 0 {
				return nil, fmt.Errorf("-compare: the measured run lasted %v, before any population of the scenario started: there is nothing to predict", d)
			}
		}
	}
	return out, nil
}

// shortened returns a copy of sc that lasts d, without the populations
// that start at or after d (they sent nothing in the measured run).
func shortened(sc *scenario.Scenario, d time.Duration) *scenario.Scenario {
	out := *sc
	out.Duration = scenario.Duration(d)
	out.Traffic = nil
	for _, p := range sc.Traffic {
		if p.Start.D() < d {
			out.Traffic = append(out.Traffic, p)
		}
	}
	return &out
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
	measure.SetWorst(&out)
	return out, runErr
}

// ref identifies a scenario in a summary.
func ref(sc *scenario.Scenario) measure.ScenarioRef {
	return measure.ScenarioRef{Name: sc.Name, File: sc.Source(), Hash: sc.Hash(), Question: sc.Question,
		Params: sc.Overrides(), Traffic: report.DescribeTraffic(sc), Headline: sc.Report.Headline}
}

// finish prints the summary, writes the report and applies the threshold.
// The summary is printed before the report is written, so that a report
// that cannot be written (a full disk, a bad -out) loses nothing measured.
func finish(c *config, sc *scenario.Scenario, s measure.Summary, measured *measure.Summary, stdout, stderr io.Writer) int {
	if c.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(&s); err != nil {
			fmt.Fprintln(stderr, "simulate:", err)
			return ExitFailure
		}
	} else if err := measure.WriteText(stdout, &s); err != nil {
		fmt.Fprintln(stderr, "simulate:", err)
		return ExitFailure
	}
	if !c.noReport {
		opts := report.Options{Compare: measured, Traffic: s.Scenario.Traffic}
		dir, err := report.WriteNew(c.out, &s, time.Now(), opts)
		if err != nil {
			fmt.Fprintln(stderr, "simulate: the summary is above, but the report was not written:", err)
			return ExitFailure
		}
		if c.json {
			fmt.Fprintf(stderr, "report: %s\n", dir)
		} else {
			fmt.Fprintf(stdout, "\nreport: %s/report.html (summary.json, report.md and figures beside it)\n", dir)
		}
	}
	if measured != nil && !measured.Complete {
		fmt.Fprintln(stderr, "simulate: note: the measured run was interrupted; it covers less than its scenario planned")
	}
	if !s.Complete {
		// Interrupted: what finished is written, but an incomplete run is
		// not a success and cannot pass a gate (as attack).
		return ExitFailure
	}
	if broken := c.threshold.Check(&s); len(broken) > 0 {
		for _, b := range broken {
			fmt.Fprintln(stderr, "simulate: threshold broken:", b)
		}
		return ExitThreshold
	}
	return ExitOK
}
