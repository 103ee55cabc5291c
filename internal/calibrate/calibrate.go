// Package calibrate fits a scenario's free latencies to live runs: simulate
// -calibrate. Given the live summaries, each with the scenario that predicts
// it, and the -fit paths, it searches the scales of those latencies by
// Nelder-Mead over the model, so that the model's predictions match what
// the runs measured (their max ratio, latencies and largest read group). It
// finds the parameters the runs cannot identify, the spread of the fit over
// the runs' repeats and each run's leave-one-out prediction, and writes the
// calibrated scenario (calibrated.yaml) with the report of the fit beside
// it. It also settles what -compare predicts with when a live run's own
// -set names a latency a calibration fitted (FittedOrRun, Varied).
//
// It reads no flags and exits nothing: notes and reports go to the
// io.Writer it is given or come back as text.
package calibrate

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/overshoot-dev/overshoot/internal/atomicfile"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/model"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/redact"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// DefaultFit is what -calibrate fits when -fit is not given: the server
// thread's CPU before the read and after the write as one scale (their
// split kept), the write (between) on its own, the proxy thread's CPU, the
// round trip and the threads' wake-up (docs/serving-side.md: no published
// value, calibrate them). Runs at two concurrencies give the numbers that
// move them: at concurrency 1 the median latency (a denied request:
// everything but the write) and an allowed request's (the write too); at a
// higher one the same two (the busier thread's throughput), the overshoot
// and the largest read group (how much of a request's time is off the
// server's thread, which splits batches, and how long an idle thread lets
// requests gather before it takes them). The spread of the server's
// lognormal latencies is fitted to each run's p99 latency: it sets how much
// one trial differs from the next, so the band.
//
// It also probes the client's send spacing (server.send, probe:): the runs
// at concurrency 1 and 8 cannot tell it (at C = 8 the first requests leave
// over a third of a millisecond, and the runs' first groups are few), so
// it stays at its measured value, and the band is widened by what it could
// do at half and at twice that.
//
// The threads' stalls (server.stall) make the live runs' p99 latency: the
// fit scales how often they come (server.stall.every) to it, and probes
// how long they last.
var DefaultFit = []string{"server.cpu.before_read+server.cpu.after_write", "server.cpu.between", "server.proxy", "server.rtt", "server.wake", "spread:server",
	"server.stall.every", "probe:server.stall.lasts", "probe:server.send"}

// DefaultRedisFit is what -calibrate fits when -fit is not given and the
// first run's scenario is on store.kind redis with no serving side: the
// command's round trip, its time at the host's thread and the request's
// own time there (each started at scenario.RedisServiceStart when the
// scenario sets none), the replication lag (which only runs reading from
// a replica can move) and the spread of the first three, as one: the
// host's variance is in all of them (the Redis validation's matrix of
// 2026-12-02: 12 of 20 held-out cells inside their bands with it, 8 with
// the round trip's alone). A run at concurrency 1 gives the round trip,
// one at a higher concurrency the thread's throughput and the race, one
// with replica reads the lag.
var DefaultRedisFit = []string{"store.redis.latency", "store.redis.service", "store.redis.request_service", "store.redis.replication_lag",
	"spread:store.redis.latency+store.redis.service+store.redis.request_service"}

// CalibratedFile is the scenario -calibrate writes under -out.
const CalibratedFile = "calibrated.yaml"

// ReportFile is the file beside CalibratedFile that keeps what
// -calibrate printed: the fitted values, the fit per run, leave-one-out.
const ReportFile = "calibration.md"

// Trials is the trials per evaluation unless -trials says.
const Trials = 40

// MaxEvals bounds the loss evaluations of one fit.
const MaxEvals = 160

// refineStep and refineEvals are the first simplex's size (in ln of the
// scale) and the evaluations of a fit that refines the full fit's point:
// to one repeat alone, or leaving one run out. It starts near its answer,
// and a calibration of two runs makes five of them.
const (
	refineStep  = 0.2
	refineEvals = 30
)

// Run is one measured summary to fit, with the scenario that predicts it.
// The caller fills in Path, Measured, Scenario, File and Notes; Inputs
// sets Keep and Start.
type Run struct {
	Path     string           // the summary's path, as the user gave it
	Measured *measure.Summary // the live run
	// Scenario predicts the run: its scenario file with the user's and
	// the run's -set, as -compare builds it.
	Scenario *scenario.Scenario
	// File is the run's scenario file as written, with the user's -set
	// and what the run reported about its target, but not the run's own
	// -set overrides: what calibrated.yaml is written from, with the
	// fitted values.
	File *scenario.Scenario
	// Notes are what loading the run noted, which Inputs prints first.
	Notes []string
	// Keep are the fitted latencies that the run's own -set gave a value
	// its target ran with (keepRunValues): known, so the fit leaves them
	// at the run's value when it predicts this run.
	Keep map[string]bool
	// Start says what of the serving side the default fit added to the
	// run's scenario, and from where (startingServer); "" when nothing.
	Start string
}

// Param is one parameter -calibrate fits: the scale of the latencies
// under a scenario path (one latency, or a section such as server.cpu whose
// latencies keep their shapes and proportions), searched in log space.
type Param struct {
	Path   string
	spread bool // spread:PATH: x scales the lognormals' sigma, not their durations
	// probe (probe:PATH) holds the latencies at their value: the fit does
	// not search them, the identifiability probes move them, and the band
	// is widened by what they could do when the runs cannot tell them.
	probe bool
	// held: a fitted parameter the runs could not identify, held at its
	// start as a probe (holdUnidentified).
	held   bool
	Leaves []string           // the latency paths it scales
	base   []scenario.Latency // their values at scale 1
	Init   float64            // ln of the starting scale
	kept   []string           // the runs that keep their own value of a leaf, for the printout
}

// mean is the mean of the param's latencies (summed) at scale exp(x).
func (p Param) Mean(x float64) time.Duration {
	var sum time.Duration
	for _, l := range p.base {
		sum += l.Scaled(math.Exp(x)).MeanDuration()
	}
	return sum
}

// target is what a fit matches for one live run: its max ratio, latencies
// and largest read group (each the median over the run's repeats, or one
// repeat's own).
type target struct {
	ratio, latencyP50, latencyP99, allowedP50, readGroup float64
	// rate is the requests answered per second (0: unknown): of a live
	// run, its achieved rate over all its repeats (every repeat's target
	// has it too); of a prediction, the trials' requests over their time.
	rate float64
	// spread is how far the max ratios of the run's repeats spread
	// (relSpread of their range), -1 when it has fewer than two; in a
	// prediction, the range that as many of its trials are expected to
	// span (expectedRange), on the same scale.
	spread float64
	// repeats is how many repeats spread is over (0: none).
	repeats int
}

// targetOf is run m's target: the median over its repeats, or repeat i's
// values (i >= 0).
func targetOf(m *measure.Summary, i int) target {
	t := target{ratio: m.Overshoot.Ratio.Max, allowedP50: allowedP50(m), readGroup: float64(m.Overshoot.LargestReadGroup), spread: -1}
	if m.LatencyMs != nil {
		t.latencyP50, t.latencyP99 = m.LatencyMs.P50, m.LatencyMs.P99
	}
	if m.Live != nil {
		t.rate = m.Live.AchievedRate
	}
	if r := m.Repeats; r != nil && len(r.Runs) > 0 {
		if i >= 0 {
			run := r.Runs[i]
			t.ratio, t.latencyP50, t.latencyP99, t.readGroup = run.MaxRatio, run.LatencyP50Ms, run.LatencyP99Ms, float64(run.ReadGroup)
		} else {
			t.ratio, t.latencyP50, t.latencyP99 = r.MaxRatio.Median, r.LatencyP50Ms.Median, r.LatencyP99Ms.Median
			groups := make([]float64, len(r.Runs))
			for j, run := range r.Runs {
				groups[j] = float64(run.ReadGroup)
			}
			t.readGroup = measure.Median(groups)
			if n := len(r.Runs); n >= 2 {
				t.spread, t.repeats = relSpread(r.MaxRatio.Max-r.MaxRatio.Min, r.MaxRatio.Median), n
			}
		}
	}
	return t
}

// allowedP50 is the median latency of s's allowed requests (pooled over
// repeats), 0 when it has none.
func allowedP50(s *measure.Summary) float64 {
	if a := s.LatencyByDecision.Of(measure.DecidedAllowed); a != nil {
		return a.P50
	}
	return 0
}

// Settings are how a fit evaluates its loss: the trials per evaluation,
// their seed and workers, and what to tell of its progress.
type Settings struct {
	Trials  int    // trials per evaluation (0: Trials)
	Seed    uint64 // the seed of every evaluation
	Workers int    // the model's workers (0: its default)
	// Stage, when set, is told the name of each fit as it starts.
	Stage func(name string)
	// OnEval, when set, is called at each evaluation of the loss.
	OnEval func()
}

// Result is what Fit found: the fitted point, its loss, the parameters the
// runs cannot identify (with the points that widen the band), the fits to
// each repeat alone and each run's leave-one-out prediction.
type Result struct {
	X      []float64 // ln of each parameter's scale at the fit
	Loss   float64
	Probes []probe
	Told   []probe     // the probes that the runs did tell apart from the fit
	Xs     [][]float64 // the fits to each repeat of every run alone
	Loo    []measure.Comparison
	Held   [][]string // per run, the parameters its leave-one-out held
	// Misfit is how far the fit missed its runs' median max ratios
	// (misfitOf), nil when it met them.
	Misfit []float64
	fitter *Fitter
	fits   []runFit // each run predicted at X, for Misfit and Report
}

// runFit is one run predicted at the fit: the comparison and the
// prediction's own figures.
type runFit struct {
	c measure.Comparison
	p target
}

// Fit fits params to the live runs by Nelder-Mead over the model: the fit
// to the runs' medians over their repeats, the probes of what they cannot
// identify, the fit to each repeat alone (when every run has as many) and
// each run's leave-one-out prediction.
func Fit(runs []Run, params []Param, s Settings) (*Result, error) {
	if s.Trials == 0 {
		s.Trials = Trials
	}
	f := &Fitter{Runs: runs, Params: params, Trials: s.Trials, Seed: s.Seed, Workers: s.Workers, OnEval: s.OnEval}
	stage := func(name string) {
		if s.Stage != nil {
			s.Stage(name)
		}
	}
	stage("fit")
	x, loss, err := f.Fit(nil, nil)
	if err != nil {
		return nil, err
	}
	stage("identifiability")
	probes, told, err := unidentified(func(x []float64) (float64, error) { return f.Loss(x, nil) }, x, loss)
	if err != nil {
		return nil, err
	}
	if slices.ContainsFunc(probes, func(pr probe) bool { return !f.Params[pr.param].probe }) {
		stage("holding the unidentified at their start")
		if x, loss, probes, told, err = f.holdUnidentified(x, loss, probes, told); err != nil {
			return nil, err
		}
	}
	// The spread: the same fit to each repeat on its own (repeat i of every
	// run), when every run has as many repeats.
	reps := commonRepeats(runs)
	var xs [][]float64
	for i := 0; i < reps; i++ {
		stage(fmt.Sprintf("fit to repeat %d of %d", i+1, reps))
		xi, _, err := f.Fit(x, targetsAt(runs, i))
		if err != nil {
			return nil, err
		}
		xs = append(xs, xi)
	}
	loo, held, err := f.leaveOneOut(x, stage)
	if err != nil {
		return nil, err
	}
	var fits []runFit
	var cmps []measure.Comparison
	for _, r := range runs {
		c, p, err := f.compare(r, x)
		if err != nil {
			return nil, err
		}
		fits, cmps = append(fits, runFit{c, p}), append(cmps, c)
	}
	return &Result{X: x, Loss: loss, Probes: probes, Told: told, Xs: xs, Loo: loo, Held: held, Misfit: misfitOf(cmps), fitter: f, fits: fits}, nil
}

// holdUnidentified holds the fitted parameters the runs cannot identify
// (probes) at their start, as probe: parameters are held, and fits the
// others again: where the loss cannot tell a value from twice or half of
// it, the value the search ended at is not the runs' but the search's
// walk (a replication lag fitted to runs that never read a replica went
// to x3.6 its start), and a calibrated file must not carry it as
// measured. It keeps that fit when its loss is within identifyTol of the
// first (the runs cannot tell it from the fit either), and probes again
// there, so the band is still widened by what the held ones could do;
// else it returns the first fit as it was. Fit calls it when a probe is
// of a parameter it searched (a probe: one is held already).
func (f *Fitter) holdUnidentified(x []float64, loss float64, probes, told []probe) ([]float64, float64, []probe, []probe, error) {
	params := slices.Clone(f.Params)
	xh := slices.Clone(x)
	for _, pr := range probes {
		if !params[pr.param].probe {
			params[pr.param].probe, params[pr.param].held = true, true
			xh[pr.param] = params[pr.param].Init
		}
	}
	g := *f
	g.Params = params
	xh, lh, err := g.Fit(xh, nil)
	if err != nil {
		return nil, 0, nil, nil, err
	}
	if lh-loss >= identifyTol {
		return x, loss, probes, told, nil
	}
	ph, th, err := unidentified(func(x []float64) (float64, error) { return g.Loss(x, nil) }, xh, lh)
	if err != nil {
		return nil, 0, nil, nil, err
	}
	f.Params = params
	return xh, lh, ph, th, nil
}

// misfitOf is how far the fit's predictions missed the runs it was fitted
// to: the least and the most of the live median max ratio over the
// predicted median, the first at most 1 and the second at least 1 (to
// three places), nil when every run's median was met. The model missed
// those runs by that much with every number it has fitted to them, so it
// can miss traffic it was not fitted to by as much: -compare widens a
// calibrated band by it (calibrated.misfit). A fitted run the model cannot
// reproduce is the model's error made visible, not noise to hide.
func misfitOf(fits []measure.Comparison) []float64 {
	lo, hi := 1.0, 1.0
	for _, c := range fits {
		if c.KeyWindows == 0 || !(c.MeasuredMaxRatio > 0) || !(c.PredictedMedian > 0) {
			continue
		}
		r := c.MeasuredMaxRatio / c.PredictedMedian
		if math.IsInf(r, 0) || math.IsNaN(r) {
			continue
		}
		lo, hi = min(lo, r), max(hi, r)
	}
	lo, hi = math.Floor(lo*1000)/1000, math.Ceil(hi*1000)/1000
	if lo >= 1 && hi <= 1 {
		return nil
	}
	return []float64{max(lo, 0.001), hi}
}

// Report is the text of the calibration: the fitted values with their
// spread over the repeats, the parameters the runs cannot identify, the
// fit per run and each run's leave-one-out prediction.
func (res *Result) Report() (string, error) {
	f, x := res.fitter, res.X
	runs, params := f.Runs, f.Params
	var text strings.Builder
	fmt.Fprintf(&text, "calibrated on %d live run(s), %d trials per evaluation, seed %d; loss %.4g (sum over runs of squared log errors of the median max ratio, the median latency, the allowed requests' median latency, the largest read group%s)\n",
		len(runs), f.Trials, f.Seed, res.Loss, lossRest(f.fitsSpread(), f.fitsServer(), f.fitsStalls()))
	if runs[0].Start != "" {
		fmt.Fprintf(&text, "  %s\n", runs[0].Start)
	}
	for i, p := range params {
		fmt.Fprintf(&text, "  %-14s %s%s\n", p.Path, describeAt(params, i, x), spreadText(params, i, x, res.Xs))
		for _, k := range p.kept {
			fmt.Fprintf(&text, "    %s\n", k)
		}
	}
	printUnidentified(&text, params, res.Probes, res.Told)
	if m := res.Misfit; m != nil {
		fmt.Fprintf(&text, "  misfit: the fit's median max ratio missed its own runs' by x%.3g to x%.3g (live over predicted); the model cannot do better on these runs, so every band predicted from this calibration is widened by that (calibrated.misfit)\n", m[0], m[1])
	}
	fmt.Fprintln(&text, "\nfit per run: measured (median over repeats) against the prediction")
	for i, r := range runs {
		cmp, p := res.fits[i].c, res.fits[i].p
		printFitLine(&text, r, cmp, &p)
		if t := targetOf(r.Measured, -1); t.spread > 0 && cmp.PredictedBand[0] == cmp.PredictedBand[1] {
			fmt.Fprintf(&text, "    the band is a point while the live repeats spread from %.3g to %.3g: these trials do not spread (fit a spread, spread:server, or widen it)\n",
				r.Measured.Repeats.MaxRatio.Min, r.Measured.Repeats.MaxRatio.Max)
		}
	}
	if len(res.Loo) > 0 {
		fmt.Fprintln(&text, "\nleave-one-out: each run predicted from a fit to the others")
		for i, r := range runs {
			printFitLine(&text, r, res.Loo[i], nil)
			if len(res.Held[i]) > 0 {
				fmt.Fprintf(&text, "    %s held at the full fit's value: every other run keeps its own value of what it scales, so they cannot fit it\n", strings.Join(res.Held[i], ", "))
			}
		}
	}
	return text.String(), nil
}

// lossRest names the loss's terms beyond the four every fit has, as
// runLoss adds them.
func lossRest(spread, server, stalls bool) string {
	switch {
	case server && stalls && spread:
		return ", the requests per second, the p99 latency and the spread of the max ratio over the repeats"
	case server && stalls:
		return ", the requests per second and the p99 latency"
	case server && spread:
		return ", the requests per second and the spread of the max ratio over the repeats"
	case server:
		return " and the requests per second"
	case spread:
		return ", the p99 latency and the spread of the max ratio over the repeats"
	}
	return ""
}

// Write writes calibrated.yaml (WriteCalibrated) and, beside it, the
// report's text as the calibration's report (ReportFile) under out, and
// returns their paths.
func (res *Result) Write(out, text string) (calibrated, report string, err error) {
	f := res.fitter
	calibrated, err = WriteCalibrated(out, f.Runs, f.Params, res.X, res.Xs, widening(res.Probes), res.Loo, res.Misfit)
	if err != nil {
		return "", "", err
	}
	report = filepath.Join(out, ReportFile)
	if err := writeAtomic(report, []byte("# simulate -calibrate\n\n```\n"+text+"```\n")); err != nil {
		return "", "", err
	}
	return calibrated, report, nil
}

// writeAtomic writes b to path whole (atomicfile.Replace), making its
// folder: a calibration into the same -out replaces the files there.
func writeAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Replace(path, b)
}

// leaveOneOut predicts each run from a fit to the others (refining x),
// with the parameters no other run constrains held at x; held names those,
// per run. With one run there is nothing to leave out.
func (f *Fitter) leaveOneOut(x []float64, stage func(string)) (loo []measure.Comparison, held [][]string, err error) {
	if len(f.Runs) < 2 {
		return nil, make([][]string, len(f.Runs)), nil
	}
	held = make([][]string, len(f.Runs))
	for i := range f.Runs {
		stage(fmt.Sprintf("leave-one-out %d of %d", i+1, len(f.Runs)))
		g := *f
		g.Runs = append(append([]Run(nil), f.Runs[:i]...), f.Runs[i+1:]...)
		xi, _, err := g.Fit(x, nil)
		if err != nil {
			return nil, nil, err
		}
		for pi, p := range f.Params {
			if unconstrained(g.Runs, p) {
				xi[pi] = x[pi]
				held[i] = append(held[i], p.Path)
			}
		}
		cmp, _, err := f.compare(f.Runs[i], xi)
		if err != nil {
			return nil, nil, err
		}
		loo = append(loo, cmp)
	}
	return loo, held, nil
}

// printUnidentified says, for each parameter the runs cannot identify,
// where it was probed and how little the loss rose; the band is widened
// by the predictions there (widening). Of the others (told) it names the
// probe: parameters held at their value, which the runs did tell apart
// there, so the band is not widened by them.
func printUnidentified(w io.Writer, params []Param, probes, told []probe) {
	for _, pr := range probes {
		p := params[pr.param]
		of := "its fit"
		if p.held {
			of = "its start, where it is held"
		}
		fmt.Fprintf(w, "  %s cannot be identified from these runs: at %s and %s (x0.5 and x2 of %s) the loss rises by %.2g and %.2g, less than (ln 1.15)^2; the band is widened by the predictions there\n",
			p.Path, valueAt(params, pr.param, pr.low), valueAt(params, pr.param, pr.high), of, pr.rise[0], pr.rise[1])
	}
	for _, pr := range told {
		if p := params[pr.param]; p.probe {
			fmt.Fprintf(w, "  %s is told by these runs: at %s and %s (x0.5 and x2 of its value) the loss rises by %.2g and %.2g, one of them (ln 1.15)^2 or more; it is held at its value and the band is not widened by it\n",
				p.Path, valueAt(params, pr.param, pr.low), valueAt(params, pr.param, pr.high), pr.rise[0], pr.rise[1])
		}
	}
}

// widening are the probe points of the parameters the runs cannot
// identify, which widen the band.
func widening(probes []probe) [][]float64 {
	var widen [][]float64
	for _, pr := range probes {
		widen = append(widen, pr.low, pr.high)
	}
	return widen
}

// spreadText says how far the fits to single repeats (xs) moved parameter
// i from the fit to the medians (x), as the range of all of them.
func spreadText(params []Param, i int, x []float64, xs [][]float64) string {
	if len(xs) < 2 {
		return "; one repeat per run, so no spread"
	}
	lo, hi := x, x
	for _, xr := range xs {
		if lessAt(params, i, xr, lo) {
			lo = xr
		}
		if lessAt(params, i, hi, xr) {
			hi = xr
		}
	}
	return fmt.Sprintf("; %s to %s over this fit and fits to each of %d repeats alone", valueAt(params, i, lo), valueAt(params, i, hi), len(xs))
}

// lessAt reports whether parameter i's value at a is below its value at b.
func lessAt(params []Param, i int, a, b []float64) bool {
	if params[i].spread {
		return a[i] < b[i]
	}
	return meanAt(params, i, a) < meanAt(params, i, b)
}

// meanAt is the mean of parameter i's latencies (summed) with every
// parameter at x, as the fit runs them (latenciesAt): a spread fitted
// beside a scale moves a lognormal's mean, though not its median, so the
// mean a reader is shown must include it.
func meanAt(params []Param, i int, x []float64) time.Duration {
	cur, _ := latenciesAt(params, x, nil)
	var sum time.Duration
	for _, leaf := range params[i].Leaves {
		sum += cur[leaf].MeanDuration()
	}
	return sum
}

// startOf is the parameters' starting point.
func startOf(params []Param) []float64 {
	x := make([]float64, len(params))
	for i, p := range params {
		x[i] = p.Init
	}
	return x
}

// valueAt is parameter i at x in a reader's terms: the mean of its
// latencies, or for a spread the factor on their sigma.
func valueAt(params []Param, i int, x []float64) string {
	if params[i].spread {
		return fmt.Sprintf("x%.3g", math.Exp(x[i]))
	}
	return scenario.Duration(meanAt(params, i, x).Round(time.Microsecond)).String()
}

// describeAt says what the fit made of parameter i, against its start.
func describeAt(params []Param, i int, x []float64) string {
	if params[i].spread {
		return fmt.Sprintf("sigma %s the scenario's (each lognormal's p99 at median x (p99/median)^%.3g)", valueAt(params, i, x), math.Exp(x[i]))
	}
	if params[i].held {
		return fmt.Sprintf("mean %s, its start, held there: these runs cannot identify it, so it is not fitted", valueAt(params, i, x))
	}
	if params[i].probe {
		return fmt.Sprintf("mean %s, held there (probe:): probed, not fitted", valueAt(params, i, x))
	}
	start := startOf(params)
	return fmt.Sprintf("mean %s (x%.3g the start's %s)", valueAt(params, i, x),
		float64(meanAt(params, i, x))/float64(max(1, meanAt(params, i, start))), valueAt(params, i, start))
}

// commonRepeats is the number of repeats every run has (0 when a run has
// none or they differ in number).
func commonRepeats(runs []Run) int {
	n := -1
	for _, r := range runs {
		k := 0
		if r.Measured.Repeats != nil {
			k = len(r.Measured.Repeats.Runs)
		}
		if n >= 0 && k != n {
			return 0
		}
		n = k
	}
	return max(n, 0)
}

// targetsAt is repeat i of every run, as fit targets.
func targetsAt(runs []Run, i int) []target {
	ts := make([]target, len(runs))
	for j, r := range runs {
		ts[j] = targetOf(r.Measured, i)
	}
	return ts
}

// printFitLine prints one run's comparison: the max ratio against the
// band, and with p the latencies measured and predicted.
func printFitLine(w io.Writer, r Run, c measure.Comparison, p *target) {
	in := "inside"
	if !c.InsideBand {
		in = "OUTSIDE"
	}
	e, _ := c.RelErr()
	fmt.Fprintf(w, "  %s: max ratio measured %.3g (%d run(s)), predicted median %.3g, band [%.3g, %.3g]: %s, relative error %.1f%%",
		r.Path, c.MeasuredMaxRatio, c.Repeats, c.PredictedMedian, c.PredictedBand[0], c.PredictedBand[1], in, 100*e)
	if t := targetOf(r.Measured, -1); p != nil {
		if t.latencyP50 > 0 {
			fmt.Fprintf(w, "; latency p50 measured %.3gms, predicted %.3gms", t.latencyP50, p.latencyP50)
		}
		if t.allowedP50 > 0 {
			fmt.Fprintf(w, "; allowed p50 measured %.3gms, predicted %.3gms", t.allowedP50, p.allowedP50)
		}
		if t.latencyP99 > 0 {
			fmt.Fprintf(w, "; latency p99 measured %.3gms, predicted %.3gms", t.latencyP99, p.latencyP99)
		}
		if t.readGroup > 0 {
			fmt.Fprintf(w, "; largest read group measured %.3g, predicted %.3g (mean over trials)", t.readGroup, p.readGroup)
		}
	}
	fmt.Fprintln(w)
}

// Options say what Inputs fits and to whom it speaks.
type Options struct {
	// Fit are the -fit paths, each PATH[=START]; none: DefaultFit, with
	// the serving side the default fit needs added where a run lacks it.
	Fit []string
	// UserSets are the paths the user's -set names: the user's, for every
	// run, never a run's own value to keep.
	UserSets map[string]bool
	// Notes gets the notes on what was added, kept or left out.
	Notes io.Writer
}

// Inputs prepares the live runs (each with its summary, the scenario that
// predicts it as -compare builds it, its scenario file and the notes its
// loading made) and the parameters to fit: the notes are printed, each
// run gets the serving side the fit needs (addServer), and each -fit path
// becomes a parameter over the latencies it scales.
func Inputs(loaded []Run, o Options) ([]Run, []Param, error) {
	byDefault := len(o.Fit) == 0
	fit := o.Fit
	server := byDefault // the default fit adds a serving side
	if byDefault {
		fit = DefaultFit
		if len(loaded) > 0 && onRedis(loaded[0].Scenario) {
			fit, server = DefaultRedisFit, false
		}
	}
	stderr := o.Notes
	if stderr == nil {
		stderr = io.Discard
	}
	var runs []Run
	said := map[string]bool{} // a note that several runs make is printed once
	for _, r := range loaded {
		for _, n := range r.Notes {
			if !said[n] {
				fmt.Fprintln(stderr, "simulate: note:", n)
			}
			said[n] = true
		}
		path := r.Path
		if err := r.addServer(server, fit, runs, stderr); err != nil {
			return nil, nil, err
		}
		sc := r.Scenario
		if len(runs) > 0 && sc.BaseHash() != runs[0].Scenario.BaseHash() {
			fmt.Fprintf(stderr, "simulate: note: %s ran scenario %s (base hash %s), not %s's (base hash %s): %s is written from the first run's, and -compare will accept live runs of that one only\n",
				path, sc.SourceName(), sc.BaseHash(), runs[0].Path, runs[0].Scenario.BaseHash(), CalibratedFile)
		}
		runs = append(runs, r)
	}
	var params []Param
	seen := map[string]bool{} // the leaves keepRunValues has looked at
	for _, f := range fit {
		path, val, hasVal := strings.Cut(strings.TrimSpace(f), "=")
		p := Param{Path: path}
		parts := path
		if inner, ok := strings.CutPrefix(path, "probe:"); ok {
			p.Path, p.probe, parts = inner, true, inner
			if hasVal || strings.HasPrefix(inner, "spread:") {
				return nil, nil, fmt.Errorf("-fit %s: a probe holds a latency at the scenario's own value: give no start value and no spread", f)
			}
		} else if inner, ok := strings.CutPrefix(path, "spread:"); ok {
			p.spread, parts = true, inner
			if hasVal {
				return nil, nil, fmt.Errorf("-fit %s: a spread starts at the scenario's own; give no start value", f)
			}
		}
		for _, l := range fitLeaves(runs[0].Scenario, parts, p.spread) {
			p.Leaves, p.base = append(p.Leaves, l.Path), append(p.base, l.Latency)
		}
		if len(p.Leaves) == 0 && byDefault {
			// A default the scenario has nothing for (no proxy, no
			// lognormal to spread) is left out.
			fmt.Fprintf(stderr, "simulate: note: %s has nothing -fit %s can fit, so it is left out of the fit\n", runs[0].Path, path)
			continue
		}
		if len(p.Leaves) == 0 {
			if strings.Contains(path, "server.proxy") {
				return nil, nil, fmt.Errorf("-fit server.proxy: %s has no server.proxy: give it one (e.g. -set server.proxy.cpu_in=500us -set server.proxy.cpu_out=500us), or leave server.proxy out of -fit", runs[0].Path)
			}
			return nil, nil, fmt.Errorf("-fit %s: not a latency -calibrate can fit: use one of %s, a section of them (server.cpu, server.proxy, store.kv), several joined by + to scale together, or spread:PATH to fit the spread of its lognormal latencies", path, strings.Join(fitPaths(runs[0].Scenario), ", "))
		}
		if err := keepRunValues(runs, &p, o.UserSets, seen, stderr); err != nil {
			return nil, nil, err
		}
		if hasVal {
			d, err := scenario.ParseDuration(val)
			if err != nil || d <= 0 {
				return nil, nil, fmt.Errorf("-fit %s: the start value %q is not a duration above 0: give e.g. %s=1ms", f, val, path)
			}
			p.Init = math.Log(float64(d.D()) / float64(p.Mean(0)))
		} else if x, ok := hostStart(runs, p); ok {
			p.Init = x
		}
		params = append(params, p)
	}
	return runs, params, nil
}

// hostStart is where a fit of the redis host's times starts (the ln of
// p's scale; false: at the scenario's own): when p scales
// store.redis.service or store.redis.request_service and the scenario
// sets neither, at the host time per request the fastest run leaves
// (store.redis.threads over its requests a second), half of it the
// request's own and half its command's. From scenario.RedisServiceStart
// (10 us, a mean of 12.7 us) a host of two cores serves about 80,000
// requests a second, far more than the fitted runs reach: neither value moves the loss there, and the
// search stopped where it started (the Redis matrix of 2026-12-02 14:17,
// predicted again: 15 and 25 us, the model's rate at C = 8 twice the live
// one).
func hostStart(runs []Run, p Param) (float64, bool) {
	r := runs[0].Scenario.Store.Redis
	if p.spread || r == nil || !r.Service.IsZero() || !r.RequestService.IsZero() || p.Mean(0) <= 0 {
		return 0, false
	}
	for _, l := range p.Leaves {
		if !redisHostLeaf(l) {
			return 0, false
		}
	}
	rate := 0.0
	for _, run := range runs {
		if l := run.Measured.Live; l != nil {
			rate = max(rate, l.AchievedRate)
		}
	}
	if rate <= 0 {
		return 0, false
	}
	perRequest := float64(max(r.Threads, 1)) / rate * float64(time.Second)
	return math.Log(perRequest / 2 * float64(len(p.Leaves)) / float64(p.Mean(0))), true
}

// redisHostLeaf reports whether the latency path l is a redis store's
// host time: per command (store.redis.service) or per request
// (store.redis.request_service).
func redisHostLeaf(l string) bool {
	return l == "store.redis.service" || l == "store.redis.request_service"
}

// onRedis reports whether sc is on store.kind redis with no serving side:
// the default fit is then DefaultRedisFit.
func onRedis(sc *scenario.Scenario) bool {
	return sc.Store.Kind == scenario.KindRedis && (sc.Server == nil || sc.Server.Mode == scenario.ServerNone)
}

// addServer gives the run's scenario (and its file) the serving side the
// fit needs. The default fit (byDefault) gets what it lacks at the
// starting values (startingServer), said once for runs of one file
// (earlier: the runs read before); a fit of server paths needs at least
// server.mode single-thread.
func (r *Run) addServer(byDefault bool, fit []string, earlier []Run, stderr io.Writer) error {
	path := r.Path
	var err error
	if byDefault {
		sets, start, err := startingServer(r.Scenario)
		if err == nil && len(sets) > 0 {
			if r.Scenario, err = r.Scenario.With(sets...); err == nil {
				r.File, err = r.File.With(sets...)
			}
		}
		if err != nil {
			return fmt.Errorf("-calibrate %s: adding the serving side the default fit needs: %v", path, err)
		}
		if start == "" {
			return nil
		}
		if len(earlier) == 0 || !strings.HasSuffix(earlier[0].Start, ": "+start) {
			fmt.Fprintln(stderr, "simulate: note:", path+": "+start)
		}
		r.Start = path + ": " + start
		return nil
	}
	if !needsServer(fit) || (r.Scenario.Server != nil && r.Scenario.Server.Mode != scenario.ServerNone) {
		return nil
	}
	single := "server.mode=" + scenario.ServerSingleThread
	if r.Scenario, err = r.Scenario.With(single); err == nil {
		r.File, err = r.File.With(single)
	}
	if err != nil {
		return fmt.Errorf("-calibrate %s: fitting %s needs server.mode single-thread: %v", path, strings.Join(fit, ","), err)
	}
	fmt.Fprintf(stderr, "simulate: note: %s: server.mode set to single-thread to fit the server's CPU\n", path)
	return nil
}

// unconstrained reports whether no run of runs constrains parameter p:
// every run keeps its own value of every latency p scales (Run.Keep),
// so a fit to those runs alone leaves p wherever its search wandered. A
// leave-one-out fit holds such a parameter at the full fit's value.
func unconstrained(runs []Run, p Param) bool {
	for _, r := range runs {
		for _, leaf := range p.Leaves {
			if !r.Keep[leaf] {
				return false
			}
		}
	}
	return true
}

// keepRunValues finds, for each latency fit parameter p scales, the runs
// whose own -set gave it a value their target ran with (ranWith: the
// built-in target's store.latency on memory, store.kv on eventual). That
// value is a known truth of the run, not something to fit: scaling it would
// fit the model to a latency the run did not have. The fit keeps it at the
// run's value for that run (Run.Keep), as -compare does (FittedOrRun),
// and fits the latency to the other runs, whose value p then scales (its
// base). A note names each such run, the latency and its value. When every
// run keeps it, nothing is left to fit it to, and that is an error saying
// to leave it out of -fit. A latency the user's -set (user) names is the
// user's starting point for every run and is fitted as before. seen holds
// the leaves already looked at by an earlier parameter (a scale and a
// spread of the same latency), which are not noted twice.
func keepRunValues(runs []Run, p *Param, user map[string]bool, seen map[string]bool, notes io.Writer) error {
	for j, leaf := range p.Leaves {
		free := -1
		var kept, said []string
		for k := range runs {
			r := &runs[k]
			sets := runSetsOf(r.Measured, leaf)
			if len(sets) == 0 || anyRelated(user, leaf) || !ranWith(r.Measured, leaf) {
				if free < 0 {
					free = k
				}
				continue
			}
			v, _ := latencyAt(r.Scenario, leaf)
			if r.Keep == nil {
				r.Keep = map[string]bool{}
			}
			r.Keep[leaf] = true
			kept = append(kept, fmt.Sprintf("%s (%s, on %s)", r.Path, strings.Join(sets, " "), targetText(r.Measured)))
			p.kept = append(p.kept, fmt.Sprintf("%s: its own %s=%s kept, not fitted: it set it, and its target ran with it", r.Path, leaf, v))
			said = append(said, fmt.Sprintf("%s set %s and %s ran with it: the fit keeps that run's %s at %s, a known value of the run, and fits it (-fit %s) to the other runs only; -compare predicts the run with its own value too",
				r.Path, strings.Join(sets, " "), targetText(r.Measured), leaf, v, p.Path))
		}
		if free < 0 {
			what := "leave it out of -fit"
			if len(p.Leaves) > 1 {
				var others []string
				for _, l := range p.Leaves {
					if l != leaf {
						others = append(others, l)
					}
				}
				prefix := ""
				if p.spread {
					prefix = "spread:"
				}
				what = fmt.Sprintf("leave it out of -fit (fit the others as -fit %s%s)", prefix, strings.Join(others, "+"))
			}
			return fmt.Errorf("-fit %s: every run set %s and its target ran with that value: %s; each run's value is known, so there is nothing to fit %s to: %s (each run is then predicted with its own value), or calibrate on a run that does not set it too",
				p.Path, leaf, strings.Join(kept, "; "), leaf, what)
		}
		if !seen[leaf] {
			for _, n := range said {
				fmt.Fprintln(notes, "simulate: note:", n)
			}
		}
		seen[leaf] = true
		if free > 0 {
			// The first run keeps its own value: p scales the value the
			// runs it is fitted to have.
			if l, ok := latencyAt(runs[free].Scenario, leaf); ok {
				p.base[j] = l
			}
		}
	}
	return nil
}

// fitLeaves are the latencies of sc that the fit path parts (one path, or
// several joined by +) scales, with their values: each latency at a part's
// path or under it that is set and, for a spread, lognormal. None when a
// part names none of them.
func fitLeaves(sc *scenario.Scenario, parts string, spread bool) []scenario.NamedLatency {
	var out []scenario.NamedLatency
	for _, part := range strings.Split(parts, "+") {
		n := len(out)
		for _, l := range fitLatencies(sc) {
			if (l.Path == part || strings.HasPrefix(l.Path, part+".")) && !l.Latency.IsZero() && (!spread || l.Latency.Dist == scenario.DistLognormal) {
				out = append(out, l)
			}
		}
		if len(out) == n {
			return nil
		}
	}
	return out
}

// needsServer reports whether any fit path is under server.
func needsServer(fit []string) bool {
	for _, f := range fit {
		if strings.HasPrefix(strings.TrimSpace(f), "server.") {
			return true
		}
	}
	return false
}

// fitLatencies are the latencies -calibrate can fit in sc, with their
// values: the server's (its defaults when sc has none yet, the client's
// send spacing at its default when the server gives none), the memory and
// per-location stores', Workers KV's and, on store.kind redis, Redis's.
func fitLatencies(sc *scenario.Scenario) []scenario.NamedLatency {
	sv := sc.Server
	if sv == nil || sv.Mode == scenario.ServerNone {
		d := scenario.DefaultServer()
		sv = &d
	}
	out := sv.LatenciesWithSend()
	kv := sc.Store.KV
	out = append(out, scenario.NamedLatency{Path: "store.latency", Latency: sc.Store.Latency},
		scenario.NamedLatency{Path: "store.kv.hot_read", Latency: kv.HotRead},
		scenario.NamedLatency{Path: "store.kv.cold_read", Latency: kv.ColdRead},
		scenario.NamedLatency{Path: "store.kv.write", Latency: kv.Write})
	if r := sc.Store.Redis; r != nil {
		service, request := r.Service, r.RequestService
		if service.IsZero() {
			service = scenario.RedisServiceStart()
		}
		if request.IsZero() {
			request = scenario.RedisServiceStart()
		}
		out = append(out, scenario.NamedLatency{Path: "store.redis.latency", Latency: r.Latency},
			scenario.NamedLatency{Path: "store.redis.service", Latency: service},
			scenario.NamedLatency{Path: "store.redis.request_service", Latency: request},
			scenario.NamedLatency{Path: "store.redis.replication_lag", Latency: r.ReplicationLag},
			scenario.NamedLatency{Path: "store.redis.failover", Latency: r.Failover},
			scenario.NamedLatency{Path: "store.redis.reconnect", Latency: r.Reconnect})
	}
	return out
}

// fitPaths names what fitLatencies finds, for an error.
func fitPaths(sc *scenario.Scenario) []string {
	var out []string
	for _, l := range fitLatencies(sc) {
		out = append(out, l.Path)
	}
	return out
}

// Fitter evaluates the loss of a parameter vector (ln of each parameter's
// scale) over its runs, with the same seed and trials every time, so that
// the loss is a deterministic function and the search repeatable.
type Fitter struct {
	Runs    []Run
	Params  []Param
	Trials  int
	Seed    uint64
	Workers int
	evals   int
	OnEval  func() // called at each evaluation (progress), when set
}

// with returns sc with the parameters at x: each latency scaled, its shape
// kept, but for those in keep (a run's own, Run.Keep), left as sc has
// them.
func (f *Fitter) With(sc *scenario.Scenario, x []float64, keep map[string]bool) (*scenario.Scenario, error) {
	sets, err := f.Sets(x, keep)
	if err != nil {
		return nil, err
	}
	return sc.With(sets...)
}

// sets are the overrides that put the parameters at x, leaving out the
// latencies in keep.
func (f *Fitter) Sets(x []float64, keep map[string]bool) ([]string, error) {
	cur, order := latenciesAt(f.Params, x, keep)
	var sets []string
	for _, leaf := range order {
		b, err := json.Marshal(cur[leaf])
		if err != nil {
			return nil, err
		}
		sets = append(sets, leaf+"="+string(b))
	}
	return sets, nil
}

// latenciesAt are the latencies the parameters at x give the leaves they
// name, leaving out those in keep, and the leaves in the order first
// named. A latency that several parameters name (a scale and a spread)
// gets each in turn.
func latenciesAt(params []Param, x []float64, keep map[string]bool) (map[string]scenario.Latency, []string) {
	cur := map[string]scenario.Latency{}
	var order []string
	for i, p := range params {
		for j, leaf := range p.Leaves {
			if keep[leaf] {
				continue
			}
			l, seen := cur[leaf]
			if !seen {
				l, order = p.base[j], append(order, leaf)
			}
			if p.spread {
				cur[leaf] = l.Spread(math.Exp(x[i]))
			} else {
				cur[leaf] = l.Scaled(math.Exp(x[i]))
			}
		}
	}
	return cur, order
}

// compare predicts run r at x and holds it against its measurement; it
// also returns the prediction's median latency and allowed requests'
// median latency, in ms.
func (f *Fitter) compare(r Run, x []float64) (measure.Comparison, target, error) {
	fail := func(err error) (measure.Comparison, target, error) {
		return measure.Comparison{}, target{}, fmt.Errorf("%s: %v", r.Path, err)
	}
	sc, err := f.With(r.Scenario, x, r.Keep)
	if err != nil {
		return fail(err)
	}
	pl, err := plan.CompileLive(sc)
	if err != nil {
		return fail(err)
	}
	trials, err := model.RunTrials(pl, model.Options{Seed: f.Seed, Trials: f.Trials, Workers: f.Workers, Context: context.Background()})
	if err != nil {
		return fail(err)
	}
	s := measure.Summarize(model.Base(pl, f.Seed), pl.Limiter.Limit, trials)
	c := measure.Compare(&s, r.Measured)
	pred := target{ratio: c.PredictedMedian, allowedP50: allowedP50(&s)}
	if s.LatencyMs != nil {
		pred.latencyP50, pred.latencyP99 = s.LatencyMs.P50, s.LatencyMs.P99
	}
	if secs := s.Totals.SimulatedSeconds * float64(s.Trials); secs > 0 {
		pred.rate = float64(s.Totals.Requests) / secs
	}
	// The mean, not the median, of the trials' largest read groups: whole
	// numbers, whose median moves in steps that the search cannot follow.
	if g := s.Overshoot.PerTrial.ReadGroups; len(g) > 0 {
		var sum int64
		for _, n := range g {
			sum += n
		}
		pred.readGroup = float64(sum) / float64(len(g))
	}
	if n := commonRepeats([]Run{r}); n >= 2 {
		ratios := s.Overshoot.PerTrial.MaxRatios
		pred.spread, pred.repeats = relSpread(expectedRange(ratios, n), c.PredictedMedian), n
	}
	return c, pred, nil
}

// Loss is the sum over runs of runLoss: the prediction at x against the
// targets (nil: each run's median over its repeats).
func (f *Fitter) Loss(x []float64, targets []target) (float64, error) {
	f.evals++
	if f.OnEval != nil {
		f.OnEval()
	}
	total := 0.0
	for i, r := range f.Runs {
		t := targetOf(r.Measured, -1)
		if targets != nil {
			t = targets[i]
		}
		_, p, err := f.compare(r, x)
		if err != nil {
			return 0, err
		}
		total += runLoss(p, t, f.fitsSpread(), f.fitsServer(), f.fitsStalls())
	}
	return total, nil
}

// runLoss is one run's loss: the squared log errors of the predicted median
// max ratio, median latency, allowed requests' median latency and largest
// read group against the target t, and, when a spread is fitted (spread),
// of how far the max ratios of as many trials as the run has repeats are
// expected to spread against how far its repeats did (spreadErr). A figure
// the run did not measure is left out.
//
// The read group is what tells apart where the time off the server's
// thread is spent: a proxy fast on the way in hands the server's thread
// more requests at once than one fast on the way out.
//
// A fit of the serving side (server) also matches the requests answered
// per second: in a closed loop of C in flight it is C over the mean
// latency (Little's law), and at C > 1 it is set by the busiest thread, so
// it pins the serving side's scale where the median latency alone does
// not. It matches the p99 latency only when it fits the threads' stalls
// (stalls): the live p99 is made of them (wrangler dev on a quiet machine,
// at C = 8: p99 ten times the median, p95 three times), and matching it
// without them slowed the whole serving side down to C = 8 latencies
// twice the live ones and a race too high (docs/validation.md). Any other
// spread fit (a store's) matches the p99 latency.
func runLoss(p, t target, spread, server, stalls bool) float64 {
	total := sqLogErr(p.ratio, t.ratio)
	if t.latencyP50 > 0 {
		total += sqLogErr(p.latencyP50, t.latencyP50)
	}
	if t.allowedP50 > 0 {
		total += sqLogErr(p.allowedP50, t.allowedP50)
	}
	if t.readGroup > 0 {
		total += sqLogErr(p.readGroup, t.readGroup)
	}
	if t.rate > 0 && server {
		total += sqLogErr(p.rate, t.rate)
	}
	if t.latencyP99 > 0 && (spread && !server || stalls) {
		total += sqLogErr(p.latencyP99, t.latencyP99)
	}
	if t.spread >= 0 && p.repeats == t.repeats && spread {
		total += spreadErr(p.spread, t.spread)
	}
	return total
}

// fitsServer reports whether a parameter scales a latency of the serving
// side (server.*) or the time a redis store's host takes per command or
// request (store.redis.service, store.redis.request_service): a thread's
// throughput, either way. Then runLoss matches the rate and not the p99:
// the live p99 is the host's stalls (the Redis matrix at C = 8: p99 nine
// times the median, at C = 1 about two times), which a lognormal's spread
// matches only with a long mean round trip, and the rate pins the host's
// throughput (Little's law) where the two fitted cells' ratios and
// medians do not: without it the fit landed at a round trip of 171 us and
// 81 us a request on one matrix's runs and at 355 us and 23 us on the next
// (docs/validation.md, 2026-12-02 12:23).
func (f *Fitter) fitsServer() bool {
	for _, p := range f.Params {
		for _, l := range p.Leaves {
			host := !p.spread && redisHostLeaf(l)
			if strings.HasPrefix(l, "server.") || host {
				return true
			}
		}
	}
	return false
}

// fitsStalls reports whether a parameter the fit searches scales the
// threads' stalls (server.stall): then runLoss matches the p99 latency.
// One held at its start (holdUnidentified) counts: the loss must stay the
// one its first fit was judged by.
func (f *Fitter) fitsStalls() bool {
	for _, p := range f.Params {
		for _, l := range p.Leaves {
			if strings.HasPrefix(l, "server.stall.") && (!p.probe || p.held) {
				return true
			}
		}
	}
	return false
}

// fitsSpread reports whether a spread is among the parameters: only then
// are the spread of the max ratios and, outside the serving side, the p99
// latency in the loss (scales alone cannot move them apart from the
// median).
func (f *Fitter) fitsSpread() bool {
	for _, p := range f.Params {
		if p.spread {
			return true
		}
	}
	return false
}

// sqLogErr is (ln predicted - ln measured)^2; 100 (as far off as can be)
// when either is not above 0.
func sqLogErr(predicted, measured float64) float64 {
	if predicted <= 0 || measured <= 0 {
		return 100
	}
	d := math.Log(predicted) - math.Log(measured)
	return d * d
}

// fit runs Nelder-Mead from start (nil: the parameters' start values)
// against targets (nil: each run's median over its repeats) and returns
// the best point and its loss. A fit from a start (the full fit's point,
// refitted to one repeat or to fewer runs) refines it: a first simplex of
// refineStep and at most refineEvals evaluations. It is deterministic: the simplex starts at
// fixed offsets and the loss is seeded.
func (f *Fitter) Fit(start []float64, targets []target) ([]float64, float64, error) {
	n := len(f.Params)
	x0 := make([]float64, n)
	for i, p := range f.Params {
		x0[i] = p.Init
	}
	if start != nil {
		copy(x0, start)
	}
	// The search moves the parameters that are not probes only.
	var free []int
	for i, p := range f.Params {
		if !p.probe {
			free = append(free, i)
		}
	}
	full := func(sub []float64) []float64 {
		x := slices.Clone(x0)
		for j, i := range free {
			x[i] = sub[j]
		}
		return x
	}
	var ferr error
	fn := func(sub []float64) float64 {
		if ferr != nil {
			return math.Inf(1)
		}
		v, err := f.Loss(full(sub), targets)
		if err != nil {
			ferr = err
			return math.Inf(1)
		}
		return v
	}
	step, evals := 0.5, MaxEvals
	if start != nil {
		step, evals = refineStep, refineEvals
	}
	if len(free) == 0 {
		v := fn(nil)
		return slices.Clone(x0), v, ferr
	}
	sub0 := make([]float64, len(free))
	for j, i := range free {
		sub0[j] = x0[i]
	}
	sub, v := nelderMead(fn, sub0, step, evals, 1e-4)
	return full(sub), v, ferr
}

// nelderMead minimises fn from x0 with the standard coefficients
// (reflection 1, expansion 2, contraction 0.5, shrink 0.5), a first
// simplex of x0 and x0 + step along each axis, until maxEvals evaluations
// or the simplex's losses differ by less than tol.
func nelderMead(fn func([]float64) float64, x0 []float64, step float64, maxEvals int, tol float64) ([]float64, float64) {
	n := len(x0)
	type vertex struct {
		x []float64
		v float64
	}
	evals := 0
	eval := func(x []float64) vertex { evals++; return vertex{x, fn(x)} }
	s := []vertex{eval(append([]float64(nil), x0...))}
	for i := 0; i < n; i++ {
		x := append([]float64(nil), x0...)
		x[i] += step
		s = append(s, eval(x))
	}
	point := func(c []float64, t float64, w []float64) []float64 { // c + t (w - c)
		out := make([]float64, n)
		for i := range out {
			out[i] = c[i] + t*(w[i]-c[i])
		}
		return out
	}
	for evals < maxEvals {
		sort.SliceStable(s, func(i, j int) bool { return s[i].v < s[j].v })
		if s[n].v-s[0].v < tol {
			break
		}
		c := make([]float64, n)
		for _, p := range s[:n] {
			for i := range c {
				c[i] += p.x[i] / float64(n)
			}
		}
		r := eval(point(c, -1, s[n].x))
		switch {
		case r.v < s[0].v:
			if e := eval(point(c, -2, s[n].x)); e.v < r.v {
				s[n] = e
			} else {
				s[n] = r
			}
		case r.v < s[n-1].v:
			s[n] = r
		default:
			k := eval(point(c, 0.5, s[n].x))
			if k.v < s[n].v {
				s[n] = k
				continue
			}
			for i := 1; i <= n; i++ {
				s[i] = eval(point(s[0].x, 0.5, s[i].x))
			}
		}
	}
	sort.SliceStable(s, func(i, j int) bool { return s[i].v < s[j].v })
	return s[0].x, s[0].v
}

// WriteCalibrated writes the first run's scenario file with the fitted
// values (and every default written out) to out/calibrated.yaml, each
// fitted value named in a comment with the runs it came from, and the base
// hash of that scenario in calibrated.base_hash, for -compare to check runs
// by. It is the file as the target ran it (the limit it announced, its
// store), without the first run's own -set overrides: -compare applies
// each run's, and a run that set nothing must be predicted with the
// file's values, not the first run's (its concurrency, say). For the same
// reason it lasts as long as the file says, not as long as the first run
// lasted (runLength): -compare shortens it for a run stopped early. The
// alternatives are the fits to each repeat (xs) and the points that widen
// the band by what an unidentified parameter could do (widen); misfit is
// how far the fit missed its runs (Result.Misfit), nil when it did not.
func WriteCalibrated(out string, runs []Run, params []Param, x []float64, xs, widen [][]float64, loo []measure.Comparison, misfit []float64) (string, error) {
	f := &Fitter{Params: params}
	sc, err := f.With(runs[0].File, x, nil)
	if err != nil {
		return "", err
	}
	cal := &scenario.Calibration{BaseHash: runs[0].Scenario.BaseHash(), Misfit: slices.Clone(misfit)}
	for _, r := range runs {
		cal.Runs = append(cal.Runs, r.Path)
	}
	for _, p := range params {
		cal.Fitted = append(cal.Fitted, p.Path)
	}
	for _, c := range loo {
		e, _ := c.RelErr()
		cal.LeaveOneOut = append(cal.LeaveOneOut, math.Round(e*1000)/1000)
	}
	for _, xr := range append(slices.Clone(xs), widen...) {
		alt, err := f.Sets(xr, nil)
		if err != nil {
			return "", err
		}
		cal.Alternatives = append(cal.Alternatives, alt)
	}
	sc.Calibrated = cal
	if sc.Question == "" {
		// Without one, the loader would take the fit's header comment as
		// the question and print it atop every report.
		sc.Question = fmt.Sprintf("%s, with %s fitted to %s by simulate calibrate", sc.Name, plural(len(params), "value"), plural(len(runs), "live run"))
	}
	body, err := yaml.Marshal(sc)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	var paths []string
	for _, r := range runs {
		paths = append(paths, r.Path)
	}
	fmt.Fprintf(&b, "# Written by simulate -calibrate: %s fitted to %s.\n", plural(len(params), "value"), strings.Join(paths, ", "))
	for i, p := range params {
		fmt.Fprintf(&b, "#   %s: %s (from %s%s)\n", p.Path, describeAt(params, i, x), strings.Join(paths, ", "), spreadText(params, i, x, xs))
		for _, k := range p.kept {
			fmt.Fprintf(&b, "#     %s\n", k)
		}
	}
	fmt.Fprintf(&b, "# simulate -compare accepts live runs of %s (base hash %s, before -set) only.\n", runs[0].Scenario.SourceName(), cal.BaseHash)
	b.Write(body)
	path := filepath.Join(out, CalibratedFile)
	return path, writeAtomic(path, []byte(b.String()))
}

// plural says n things.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// fittedLeaves are the latencies a calibrated scenario's fit set, with the
// values it holds: every latency each of its calibrated.fitted paths
// scales, once each.
func fittedLeaves(sc *scenario.Scenario) []scenario.NamedLatency {
	var out []scenario.NamedLatency
	seen := map[string]bool{}
	for _, f := range sc.Calibrated.Fitted {
		parts, spread := strings.CutPrefix(f, "spread:")
		for _, l := range fitLeaves(sc, parts, spread) {
			if !seen[l.Path] {
				seen[l.Path] = true
				out = append(out, l)
			}
		}
	}
	return out
}

// related reports whether one of the scenario paths a and b is the other
// or lies under it: a -set of either changes the other's value.
func related(a, b string) bool {
	return a == b || strings.HasPrefix(a, b+".") || strings.HasPrefix(b, a+".")
}

// anyRelated reports whether a path in paths (a set of -set paths) is path
// or lies over or under it: a -set of it changes path's value.
func anyRelated(paths map[string]bool, path string) bool {
	for p := range paths {
		if related(p, path) {
			return true
		}
	}
	return false
}

// runSetsOf are the live run's own -set values (measured's
// scenario.Params) that change the value at path, each as "-set P=V".
func runSetsOf(measured *measure.Summary, path string) []string {
	var out []string
	for _, p := range measured.Scenario.Params {
		if k, _, _ := strings.Cut(p, "="); related(strings.TrimSpace(k), path) {
			out = append(out, "-set "+p)
		}
	}
	return out
}

// latencyAt is the latency at path among sc's fittable latencies.
func latencyAt(sc *scenario.Scenario, path string) (scenario.Latency, bool) {
	for _, l := range fitLatencies(sc) {
		if l.Path == path {
			return l.Latency, true
		}
	}
	return scenario.Latency{}, false
}

// sameLatency reports whether a and b are the same latency (as JSON: the
// form -set and calibrated.alternatives write them in).
func sameLatency(a, b scenario.Latency) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

// ranWith reports whether the live run's target itself ran with the
// latency at path as the run's scenario gave it: only the built-in
// target's store does (store.latency on memory, store.kv on eventual). The
// serving side (server) and any latency of a target at a URL or on a real
// Workers KV namespace are the target's own; the scenario only tells the
// model what to assume of them.
func ranWith(measured *measure.Summary, path string) bool {
	switch plan.LiveStore(measured.Limiter.Store) {
	case plan.LiveMemory:
		return path == "store.latency"
	case plan.LiveEventual:
		return strings.HasPrefix(path, "store.kv.")
	}
	return false
}

// targetText names a live run's target for a note.
func targetText(measured *measure.Summary) string {
	switch s := plan.LiveStore(measured.Limiter.Store); s {
	case plan.LiveURL:
		if lv := measured.Live; lv != nil && lv.URL != "" {
			return "the endpoint " + redact.URL(lv.URL) // a summary written before redact
		}
		return "an endpoint at a URL"
	case plan.LiveCloudflare:
		return "the built-in target on a real Workers KV namespace"
	case plan.LiveMemory, plan.LiveEventual:
		return fmt.Sprintf("the built-in target on its %s store", s)
	default:
		return fmt.Sprintf("its target (store %q)", s)
	}
}

// FittedOrRun settles each fitted latency of the calibrated scenario file
// that the live run's own -set values (in measured, at path) changed in sc,
// the scenario as load built it: file with those values applied. Where the
// target ran with the run's value (ranWith) it stays, since it is the
// truth of that run; elsewhere the run's value only told the model what to
// assume, the target did not run with it, and the calibration fitted that
// latency to measured runs, so the fitted value is put back, as -calibrate's
// own leave-one-out predictions do. Either way a note names the latency,
// both values and what the comparison then tests. A latency the user's
// -set names (user) is the user's and is left alone.
func FittedOrRun(file, sc *scenario.Scenario, measured *measure.Summary, path string, user map[string]bool) (*scenario.Scenario, []string, error) {
	var sets, notes []string
	for _, fit := range fittedLeaves(file) {
		runSets := runSetsOf(measured, fit.Path)
		run, ok := latencyAt(sc, fit.Path)
		if anyRelated(user, fit.Path) || len(runSets) == 0 || !ok || sameLatency(run, fit.Latency) {
			continue
		}
		if ranWith(measured, fit.Path) {
			notes = append(notes, fmt.Sprintf("%s: the live run set %s, and %s ran with it: the prediction uses the run's %s=%s, not the %s that %s fitted, so this comparison does not test the calibration's %s (compare a run that does not set it for that)",
				path, strings.Join(runSets, " "), targetText(measured), fit.Path, run, fit.Latency, file.SourceName(), fit.Path))
			continue
		}
		b, err := json.Marshal(fit.Latency)
		if err != nil {
			return nil, nil, err
		}
		sets = append(sets, fit.Path+"="+string(b))
		notes = append(notes, fmt.Sprintf("%s: the live run set %s (%s=%s), but %s did not run with it (it only tells the model what to assume) and %s fitted %s to measured runs: the prediction uses the fitted %s, as -calibrate's leave-one-out does; add %s to predict with the run's value instead",
			path, strings.Join(runSets, " "), fit.Path, run, targetText(measured), file.SourceName(), fit.Path, fit.Latency, strings.Join(runSets, " ")))
	}
	if len(sets) == 0 {
		return sc, notes, nil
	}
	out, err := sc.With(sets...)
	if err != nil {
		return nil, nil, fmt.Errorf("-compare %s: putting back the fitted values of %s: %v", path, file.SourceName(), err)
	}
	return out, notes, nil
}

// Varied is the alternative alt (calibrated.alternatives, path=value) of
// the calibrated scenario base (as its file holds it) without the latencies
// that point holds at another value than base: those a -set, the live run
// or a sweep point put there, which the alternatives must not overwrite.
// With no base, alt as it is.
func Varied(alt []string, base, point *scenario.Scenario) []string {
	if base == nil {
		return alt
	}
	var out []string
	for _, s := range alt {
		p, _, _ := strings.Cut(s, "=")
		now, ok := latencyAt(point, p)
		was, _ := latencyAt(base, p)
		if ok && !sameLatency(now, was) {
			continue
		}
		out = append(out, s)
	}
	return out
}
