package simulatecmd

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/model"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// DefaultFit is what -calibrate fits when -fit is not given: the server's
// CPU per step and the round trip (docs/serving-side.md: no published
// value, calibrate them). The round trip is in because, with constant CPU
// draws, a closed loop's max ratio does not move with the CPU values at all
// (every batch holds all C); time spent off the thread is what splits
// batches.
var DefaultFit = []string{"server.cpu.before_read", "server.cpu.between", "server.cpu.after_write", "server.rtt"}

// CalibratedFile is the scenario -calibrate writes under -out.
const CalibratedFile = "calibrated.yaml"

// calibrateTrials is the trials per evaluation unless -trials says.
const calibrateTrials = 40

// maxEvals bounds the loss evaluations of one fit.
const maxEvals = 80

// liveRun is one measured summary to fit, with the scenario that predicts it.
type liveRun struct {
	path     string
	measured *measure.Summary
	sc       *scenario.Scenario
}

// fitParam is one parameter -calibrate fits: a scenario path whose value
// is a duration, searched in log space.
type fitParam struct {
	path string
	init time.Duration
}

// calibrateMain is simulate -calibrate: fit the -fit parameters to the
// live summaries by Nelder-Mead over the model, write calibrated.yaml and
// print the fit per run and each run's leave-one-out prediction.
func calibrateMain(c *config, stdout, stderr io.Writer) int {
	runs, params, err := calibrateInputs(c, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "simulate:", err)
		return ExitBadInput
	}
	trials := c.trials
	if trials == 0 {
		trials = calibrateTrials
	}
	seed := runs[0].sc.Seed
	if c.seedSet {
		seed = c.seed
	}
	f := &fitter{runs: runs, params: params, trials: trials, seed: seed, workers: c.workers, stderr: stderr}
	x, loss, err := f.fit(nil)
	if err != nil {
		fmt.Fprintln(stderr, "simulate: -calibrate:", err)
		return ExitFailure
	}
	fmt.Fprintf(stdout, "calibrated on %d live run(s), %d trials per evaluation, seed %d; loss %.4g (sum over runs of (ln predicted median - ln measured)^2)\n",
		len(runs), trials, seed, loss)
	for i, p := range params {
		fmt.Fprintf(stdout, "  %-26s %v  (start %v)\n", p.path, scenario.Duration(toDur(x[i])), scenario.Duration(p.init))
	}
	fmt.Fprintln(stdout, "\nfit per run: measured max ratio (median over repeats) against the prediction")
	for _, r := range runs {
		cmp, err := f.compare(r, x)
		if err != nil {
			fmt.Fprintln(stderr, "simulate: -calibrate:", err)
			return ExitFailure
		}
		printFitLine(stdout, r.path, cmp)
	}
	if len(runs) > 1 {
		fmt.Fprintln(stdout, "\nleave-one-out: each run predicted from a fit to the others")
		for i, r := range runs {
			g := *f
			g.runs = append(append([]liveRun(nil), runs[:i]...), runs[i+1:]...)
			xi, _, err := g.fit(x)
			if err == nil {
				var cmp measure.Comparison
				if cmp, err = f.compare(r, xi); err == nil {
					printFitLine(stdout, r.path, cmp)
					continue
				}
			}
			fmt.Fprintln(stderr, "simulate: -calibrate:", err)
			return ExitFailure
		}
	}
	out, err := writeCalibrated(c.out, runs, params, x)
	if err != nil {
		fmt.Fprintln(stderr, "simulate: -calibrate:", err)
		return ExitFailure
	}
	fmt.Fprintf(stdout, "\nwrote %s\n", out)
	return ExitOK
}

// printFitLine prints one run's comparison.
func printFitLine(w io.Writer, path string, c measure.Comparison) {
	in := "inside"
	if !c.InsideBand {
		in = "OUTSIDE"
	}
	fmt.Fprintf(w, "  %s: measured %.3g (%d run(s)), predicted median %.3g, band [%.3g, %.3g]: %s, relative error %.1f%%\n",
		path, c.MeasuredMaxRatio, c.Repeats, c.PredictedMedian, c.PredictedBand[0], c.PredictedBand[1], in, 100*c.RelativeError)
}

// calibrateInputs reads the summaries and builds each one's scenario as
// -compare does (same checks), and the parameters to fit.
func calibrateInputs(c *config, stderr io.Writer) ([]liveRun, []fitParam, error) {
	fit := DefaultFit
	if c.fit != "" {
		fit = strings.Split(c.fit, ",")
	}
	var runs []liveRun
	for _, path := range strings.Split(c.calibrate, ",") {
		path = strings.TrimSpace(path)
		m, err := readSummary(path)
		if err != nil {
			return nil, nil, fmt.Errorf("-calibrate: %v", strings.TrimPrefix(err.Error(), "-compare: "))
		}
		if m.Mode != "attack" && !c.force {
			return nil, nil, fmt.Errorf("-calibrate %s: its mode is %q, not attack: calibrate on live runs, or add -force", path, m.Mode)
		}
		cc := *c
		cc.compare = path
		if cc.file == "" && m.Scenario.File != "" {
			if cc.file, err = resolveScenario(m.Scenario.File, path); err != nil {
				return nil, nil, err
			}
		}
		sc, notes, err := load(&cc, m)
		if err != nil {
			return nil, nil, err
		}
		for _, n := range notes {
			fmt.Fprintln(stderr, "simulate: note:", n)
		}
		if needsServer(fit) && (sc.Server == nil || sc.Server.Mode == scenario.ServerNone) {
			if sc, err = sc.With("server.mode=" + scenario.ServerSingleThread); err != nil {
				return nil, nil, fmt.Errorf("-calibrate %s: fitting %s needs server.mode single-thread: %v", path, strings.Join(fit, ","), err)
			}
			fmt.Fprintf(stderr, "simulate: note: %s: server.mode set to single-thread to fit the server's CPU\n", path)
		}
		runs = append(runs, liveRun{path: path, measured: m, sc: sc})
	}
	var params []fitParam
	for _, f := range fit {
		path, val, hasVal := strings.Cut(strings.TrimSpace(f), "=")
		p := fitParam{path: path}
		if hasVal {
			d, err := scenario.ParseDuration(val)
			if err != nil || d <= 0 {
				return nil, nil, fmt.Errorf("-fit %s: the start value %q is not a duration above 0: give e.g. %s=1ms", f, val, path)
			}
			p.init = d.D()
		} else if p.init = serverValue(runs[0].sc, path); p.init <= 0 {
			return nil, nil, fmt.Errorf("-fit %s: no start value known for it: give one, e.g. -fit %s=1ms", path, path)
		}
		params = append(params, p)
	}
	return runs, params, nil
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

// serverValue is the mean of a server latency path in sc, the start of its
// fit; 0 when path is not one.
func serverValue(sc *scenario.Scenario, path string) time.Duration {
	sv := sc.Server
	if sv == nil {
		d := scenario.DefaultServer()
		sv = &d
	}
	switch path {
	case "server.cpu.before_read":
		return sv.CPU.BeforeRead.MeanDuration()
	case "server.cpu.between":
		return sv.CPU.Between.MeanDuration()
	case "server.cpu.after_write":
		return sv.CPU.AfterWrite.MeanDuration()
	case "server.rtt":
		return sv.RTT.MeanDuration()
	}
	return 0
}

// fitter evaluates the loss of a parameter vector (ln of each duration in
// ms) over its runs, with the same seed and trials every time, so that the
// loss is a deterministic function and the search repeatable.
type fitter struct {
	runs    []liveRun
	params  []fitParam
	trials  int
	seed    uint64
	workers int
	stderr  io.Writer
	evals   int
}

func toDur(x float64) time.Duration {
	return time.Duration(math.Exp(x) * float64(time.Millisecond)).Round(time.Microsecond)
}

// with returns sc with the parameters at x, as constant durations.
func (f *fitter) with(sc *scenario.Scenario, x []float64) (*scenario.Scenario, error) {
	sets := make([]string, len(f.params))
	for i, p := range f.params {
		sets[i] = p.path + "=" + scenario.Duration(max(toDur(x[i]), time.Microsecond)).String()
	}
	return sc.With(sets...)
}

// compare predicts run r at x and holds it against its measurement.
func (f *fitter) compare(r liveRun, x []float64) (measure.Comparison, error) {
	sc, err := f.with(r.sc, x)
	if err != nil {
		return measure.Comparison{}, fmt.Errorf("%s: %v", r.path, err)
	}
	pl, err := plan.CompileLive(sc)
	if err != nil {
		return measure.Comparison{}, fmt.Errorf("%s: %v", r.path, err)
	}
	trials, err := model.RunTrials(pl, model.Options{Seed: f.seed, Trials: f.trials, Workers: f.workers, Context: context.Background()})
	if err != nil {
		return measure.Comparison{}, fmt.Errorf("%s: %v", r.path, err)
	}
	s := measure.Summarize(model.Base(pl, f.seed), pl.Limiter.Limit, trials)
	return measure.Compare(&s, r.measured), nil
}

// loss is the sum over runs of the squared log error of the predicted
// median max ratio against the measured one (the median over repeats).
func (f *fitter) loss(x []float64) (float64, error) {
	f.evals++
	total := 0.0
	for _, r := range f.runs {
		c, err := f.compare(r, x)
		if err != nil {
			return 0, err
		}
		if c.MeasuredMaxRatio <= 0 || c.PredictedMedian <= 0 {
			total += 100 // nothing measured or predicted: as far off as can be
			continue
		}
		d := math.Log(c.PredictedMedian) - math.Log(c.MeasuredMaxRatio)
		total += d * d
	}
	return total, nil
}

// fit runs Nelder-Mead from start (nil: the parameters' start values) and
// returns the best point and its loss. It is deterministic: the simplex
// starts at fixed offsets and the loss is seeded.
func (f *fitter) fit(start []float64) ([]float64, float64, error) {
	n := len(f.params)
	x0 := make([]float64, n)
	for i, p := range f.params {
		x0[i] = math.Log(float64(p.init) / float64(time.Millisecond))
	}
	if start != nil {
		copy(x0, start)
	}
	var ferr error
	fn := func(x []float64) float64 {
		if ferr != nil {
			return math.Inf(1)
		}
		v, err := f.loss(x)
		if err != nil {
			ferr = err
			return math.Inf(1)
		}
		return v
	}
	x, v := nelderMead(fn, x0, 0.5, maxEvals, 1e-4)
	return x, v, ferr
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

// writeCalibrated writes the first run's scenario with the fitted values
// (and every default written out) to out/calibrated.yaml, each fitted
// value named in a comment with the runs it came from.
func writeCalibrated(out string, runs []liveRun, params []fitParam, x []float64) (string, error) {
	f := &fitter{params: params}
	sc, err := f.with(runs[0].sc, x)
	if err != nil {
		return "", err
	}
	body, err := yaml.Marshal(sc)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	var paths []string
	for _, r := range runs {
		paths = append(paths, r.path)
	}
	fmt.Fprintf(&b, "# Written by simulate -calibrate: %s fitted to %s.\n", plural(len(params), "value"), strings.Join(paths, ", "))
	for i, p := range params {
		fmt.Fprintf(&b, "#   %s: %v (from %s; start %v)\n", p.path, scenario.Duration(toDur(x[i])), strings.Join(paths, ", "), scenario.Duration(p.init))
	}
	b.Write(body)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(out, CalibratedFile)
	tmp := path + ".partial"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return "", err
	}
	return path, os.Rename(tmp, path)
}

// plural says n things.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
