package simulatecmd

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/overshoot-dev/overshoot/internal/calibrate"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/report"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// DefaultFit is what -calibrate fits when -fit is not given
// (calibrate.DefaultFit).
var DefaultFit = calibrate.DefaultFit

// CalibratedFile is the scenario -calibrate writes under -out.
const CalibratedFile = calibrate.CalibratedFile

// calibrateMain is simulate -calibrate: fit the -fit parameters to the
// live summaries (internal/calibrate), write calibrated.yaml and print the
// fitted values with their spread over the repeats, the fit per run and
// each run's leave-one-out prediction.
func calibrateMain(c *config, stdout, stderr io.Writer) int {
	runs, params, err := calibrateInputs(c, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "simulate:", err)
		return ExitBadInput
	}
	if err := report.CheckRoot(c.out); err != nil { // found now, not after the fit
		fmt.Fprintln(stderr, "simulate: -calibrate:", err)
		return ExitBadInput
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "simulate: -calibrate:", err)
		return ExitFailure
	}
	prog := &fitProgress{progress: newProgress(stderr, 1)}
	res, err := calibrate.Fit(runs, params, calibrate.Settings{Trials: c.trials, Seed: c.seedOf(runs[0].Scenario),
		Workers: c.workers, Stage: prog.stage, OnEval: prog.eval})
	if err != nil {
		return fail(err)
	}
	prog.done()
	text, err := res.Report()
	if err != nil {
		return fail(err)
	}
	io.WriteString(stdout, text)
	out, rep, err := res.Write(c.out, text)
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "\nwrote %s and %s\n", out, rep)
	return ExitOK
}

// calibrateInputs reads the summaries and builds each one's scenario as
// -compare does (same checks), and the parameters to fit
// (calibrate.Inputs).
func calibrateInputs(c *config, stderr io.Writer) ([]calibrate.Run, []calibrate.Param, error) {
	var runs []calibrate.Run
	for _, path := range c.calibrate {
		r, err := calibrateRun(c, path)
		if err != nil {
			return nil, nil, err
		}
		runs = append(runs, r)
	}
	o := calibrate.Options{UserSets: setPaths(c.sets), Notes: stderr}
	if c.fit != "" {
		o.Fit = strings.Split(c.fit, ",")
	}
	return calibrate.Inputs(runs, o)
}

// calibrateRun reads the live summary at path and loads its scenario as
// -compare does, and the scenario file calibrated.yaml is written from.
func calibrateRun(c *config, path string) (calibrate.Run, error) {
	m, err := readSummary(path)
	if err != nil {
		// readSummary's errors name -compare, the flag it reads for.
		msg := strings.TrimPrefix(strings.TrimPrefix(err.Error(), "-compare: "), "-compare "+path+": ")
		return calibrate.Run{}, fmt.Errorf("-calibrate %s: %s", path, msg)
	}
	if m.Mode != "attack" && !c.force {
		return calibrate.Run{}, fmt.Errorf("-calibrate %s: its mode is %q, not attack: calibrate on live runs, or add -force", path, m.Mode)
	}
	cc := *c
	cc.compare = path
	if cc.file == "" && m.Scenario.File != "" {
		if cc.file, err = resolveScenario("-calibrate", m.Scenario.File, path); err != nil {
			return calibrate.Run{}, err
		}
	}
	sc, notes, err := load(&cc, m)
	if err != nil {
		return calibrate.Run{}, err
	}
	// What the run reported about its target (the limit and window it
	// announced, its store) describes the target, and stays; how long the
	// run lasted describes the run (one stopped early), and calibrated.yaml
	// keeps the file's duration and populations.
	file, _, err := load(&cc, nil)
	if err == nil {
		file, _, err = targetProfile(file, m, setPaths(c.sets))
	}
	if err != nil {
		return calibrate.Run{}, err
	}
	return calibrate.Run{Path: path, Measured: m, Scenario: sc, File: file, Notes: notes}, nil
}

// fitProgress shows on a terminal which fit runs and how many evaluations
// it has made, so that a calibration of a minute or two is not silent. It
// is simulate's progress line (shown after two seconds, on a terminal
// only, cleared by done) with its own words.
type fitProgress struct {
	*progress
	name  string
	evals int
}

// stage starts a new fit.
func (p *fitProgress) stage(name string) {
	p.name, p.evals = name, 0
}

// eval counts one evaluation of the loss.
func (p *fitProgress) eval() {
	p.evals++
	p.show(func(el time.Duration) string {
		return fmt.Sprintf("calibrate: %s, evaluation %d (at most %d), %s so far", p.name, p.evals, calibrate.MaxEvals, el.Round(time.Second))
	})
}

// fittedOrRun is calibrate.FittedOrRun: the fitted or the run's value of
// each fitted latency the live run's own -set changed.
func fittedOrRun(file, sc *scenario.Scenario, measured *measure.Summary, path string, user map[string]bool) (*scenario.Scenario, []string, error) {
	return calibrate.FittedOrRun(file, sc, measured, path, user)
}

// varied is calibrate.Varied: the alternative alt without the latencies
// the point holds at another value than the calibrated scenario base.
func varied(alt []string, base, point *scenario.Scenario) []string {
	return calibrate.Varied(alt, base, point)
}
