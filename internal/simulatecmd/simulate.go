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
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/overshoot-dev/overshoot/internal/bounded"
	"github.com/overshoot-dev/overshoot/internal/cli"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/model"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/report"
	"github.com/overshoot-dev/overshoot/internal/scenario"
	"github.com/overshoot-dev/overshoot/scenarios"
)

// Main runs the simulate command and returns its exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	c, err := parseFlags(args, stdout, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, "simulate:", err)
		return ExitBadInput
	}
	switch c.mode {
	case "diff":
		return runDiff(c, stdout, stderr)
	case "merge":
		return runMerge(c, stdout, stderr)
	case "calibrate":
		return calibrateMain(c, stdout, stderr)
	}
	return predict(c, stdout, stderr)
}

// runMerge merges the shards c names into the summary and report of the
// whole run.
func runMerge(c *config, stdout, stderr io.Writer) int {
	files, paths, err := readShards(c.merge)
	var s measure.Summary
	if err == nil {
		s, err = mergeShards(files, paths)
	}
	if err == nil && !c.noReport {
		err = report.CheckRoot(c.out)
	}
	if err != nil {
		fmt.Fprintln(stderr, "simulate:", err)
		return ExitBadInput
	}
	return finish(c, &prediction{}, s, stdout, stderr)
}

// prediction is what one run (run, advise or compare) finds on its way,
// kept apart from the config, which stays as the command line said.
type prediction struct {
	// sc is the scenario predicted; nil for a merge.
	sc *scenario.Scenario
	// measured is the live run compared with, nil when none.
	measured *measure.Summary
	// calibrated is the calibrated scenario run, as its file holds it
	// (without -set): the fitted values its alternatives vary.
	calibrated *scenario.Scenario
	// forcedOther says, with -force, how the run's scenario is not the
	// one predicted ("" when it is).
	forcedOther string
	// headerShown says the run's header was printed before it started.
	headerShown bool
}

// predict runs the plain run, advise and compare: the scenario loaded,
// checked and expanded, then advice or the simulation.
func predict(c *config, stdout, stderr io.Writer) int {
	c, measured, err := withMeasured(c, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "simulate:", err)
		return ExitBadInput
	}
	p, notes, err := loadRun(c, measured)
	if err != nil {
		fmt.Fprintln(stderr, "simulate:", err)
		return ExitBadInput
	}
	for _, n := range notes {
		fmt.Fprintln(stderr, "simulate: note:", n)
	}
	points, err := p.sc.Expand()
	if err == nil && (!c.noReport || c.shard != nil) {
		// Found now rather than after the whole run.
		err = report.CheckRoot(c.out)
	}
	if err != nil {
		fmt.Fprintln(stderr, "simulate:", err)
		return ExitBadInput
	}
	// The model allocates little that lives long: collecting less often is
	// about 10% faster and memory stays small (see model's benchmarks). A
	// GOGC set in the environment is the user's and is kept.
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	ctx, stop := signal.NotifyContext(context.Background(), stopSignals...)
	defer stop()
	if c.advise || !c.adviseSet && len(p.sc.Advise.Budget) > 0 && measured == nil && c.shard == nil {
		// A scenario that states a budget asks what to ship.
		return runAdvise(ctx, c, p.sc, points, stdout, stderr)
	}
	if c.limit != 0 || c.searchLimit {
		fmt.Fprintln(stderr, "simulate: -limit and -search-limit go with -advise (simulate advise), or a scenario with an advise budget (to run at another limit, use -set limiter.limit=N)")
		return ExitBadInput
	}
	return simulate(ctx, c, p, points, stdout, stderr)
}

// withMeasured reads compare's live run, and returns c with the run's
// own scenario file when c names none and the file is here (a copy: c
// itself is left as it was).
func withMeasured(c *config, stderr io.Writer) (*config, *measure.Summary, error) {
	if c.compare == "" {
		return c, nil, nil
	}
	measured, err := readSummary(c.compare)
	if err != nil {
		return nil, nil, err
	}
	if measured.Mode != "attack" && !c.force {
		return nil, nil, fmt.Errorf("-compare %s: its mode is %q, not attack: compare a live run's summary (attack writes one), or add -force", c.compare, measured.Mode)
	}
	if c.file != "" || measured.Scenario.File == "" {
		return c, measured, nil
	}
	cc := *c
	if cc.file, err = resolveScenario("-compare", measured.Scenario.File, c.compare); err != nil {
		return nil, nil, err
	}
	if cc.file == "" {
		fmt.Fprintf(stderr, "simulate: note: -compare %s: %s is not here: predicting with the embedded default scenario (the run's hash is checked)\n", c.compare, measured.Scenario.File)
	}
	return &cc, measured, nil
}

// simulate runs the model over every point (or this process's shard of
// them), then prints and writes the summary.
func simulate(ctx context.Context, c *config, p *prediction, points []scenario.Point, stdout, stderr io.Writer) int {
	if !c.json && c.shard == nil {
		// Say what runs before it runs: a sweep or many trials take a while.
		if err := printHeader(stdout, c, p.sc, points); err != nil {
			fmt.Fprintln(stderr, "simulate:", err)
			return ExitBadInput
		}
		p.headerShown = true
	}
	prog := newProgress(stderr, len(points))
	if c.shard != nil {
		defer prog.done()
		return runShard(ctx, c, p.sc, points, prog, stdout, stderr)
	}
	s, err := run(ctx, c, p, points, prog)
	if err == nil && c.sensitivity && p.measured == nil && !isSweep(points) {
		err = sensitivity(ctx, c, p.sc, &s, stderr)
	}
	prog.done()
	if err != nil && !errors.Is(err, context.Canceled) {
		// The scenario was valid (it loaded); a run that fails is not bad input.
		fmt.Fprintln(stderr, "simulate:", err)
		return ExitFailure
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "simulate: interrupted: writing what finished, marked incomplete")
	}
	return finish(c, p, s, stdout, stderr)
}

// stopSignals stop a run the same way: Ctrl-C and SIGTERM (what a
// container runtime, systemd or a CI timeout sends) both keep the trials
// that finished, write them marked incomplete and exit 1.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// load reads the scenario as loadRun does, for what needs the scenario
// alone.
func load(c *config, measured *measure.Summary) (*scenario.Scenario, []string, error) {
	p, notes, err := loadRun(c, measured)
	if err != nil {
		return nil, nil, err
	}
	return p.sc, notes, nil
}

// loadRun reads the scenario: the file named, or the embedded default. With
// a measured summary it first checks that the scenario, with the live run's
// own overrides, is the one the run ran (name and hash; -force skips it),
// then applies -set, then the live profile the run reports (for what -set
// does not name), and returns notes on what -set kept from the run.
func loadRun(c *config, measured *measure.Summary) (*prediction, []string, error) {
	sets := c.sets
	if measured != nil {
		sets = measured.Scenario.Params
	}
	var sc *scenario.Scenario
	var err error
	if c.file == "" {
		sc, err = scenario.Default(sets...)
	} else {
		sc, err = scenario.LoadWithOverrides(c.file, sets)
	}
	if err != nil {
		return nil, nil, err
	}
	if err := c.gates.CheckPopulations(sc.PopulationNames()); err != nil {
		return nil, nil, err
	}
	p := &prediction{sc: sc, measured: measured}
	if sc.Calibrated != nil {
		p.calibrated = sc
		if len(sets) > 0 {
			if p.calibrated, err = scenario.Load(c.file); err != nil {
				return nil, nil, err
			}
		}
	}
	if measured == nil {
		return p, nil, nil
	}
	var notes []string
	if c.force {
		p.forcedOther = forcedOther(sc, measured)
	}
	if n, err := sameScenario(sc, measured, c.compare, c.force); err != nil {
		return nil, nil, err
	} else if n != "" {
		notes = append(notes, n)
	}
	if p.calibrated != nil {
		var more []string
		if sc, more, err = fittedOrRun(p.calibrated, sc, measured, c.compare, setPaths(c.sets)); err != nil {
			return nil, nil, err
		}
		notes = append(notes, more...)
	}
	if len(c.sets) > 0 {
		if sc, err = sc.With(c.sets...); err != nil {
			return nil, nil, err
		}
	}
	sc, more, err := measuredProfile(sc, measured, setPaths(c.sets))
	p.sc = sc
	return p, append(notes, more...), err
}

// sameScenario checks that sc is the scenario the measured run ran: the same
// name, and the same hash when the summary records one. A summary without a
// hash (written by hand, or by an old attack) is checked by name, with a
// note saying so. A calibrated scenario (written by -calibrate) has another
// hash than any run's, as its fitted values changed it: it is checked by
// sameCalibrated instead, unless the run ran it itself (the same hash).
func sameScenario(sc *scenario.Scenario, measured *measure.Summary, path string, force bool) (string, error) {
	m := measured.Scenario
	name, hash := sc.Name, sc.Hash()
	switch {
	case force:
		return "", nil
	case m.Name != name:
		return "", fmt.Errorf("-compare %s: the live run ran scenario %q, but the scenario predicted is %q (%s): give the run's scenario file as the argument, or add -force",
			path, m.Name, name, sc.SourceName())
	case m.Hash != "" && m.Hash == hash:
		return "", nil
	case sc.Calibrated != nil:
		return sameCalibrated(sc, measured, path)
	case m.Hash == "":
		return fmt.Sprintf("%s records no scenario hash: only the scenario's name (%q) was checked", path, name), nil
	case m.Hash != hash:
		return "", fmt.Errorf("-compare %s: the live run ran scenario %q with hash %s, but the scenario predicted (%s, with the run's overrides %v) has hash %s: the file changed since the run, or is another file; give the file the run used, or add -force",
			path, m.Name, m.Hash, sc.SourceName(), m.Params, hash)
	}
	return "", nil
}

// forcedOther says how the scenario predicted is not the one the measured
// run ran, as sameScenario would have refused it without -force (another
// name, or another hash where a hash is recorded and sc is not a
// calibrated scenario, whose hash differs by design); "" when it is the
// same. The comparison then cannot judge.
func forcedOther(sc *scenario.Scenario, measured *measure.Summary) string {
	m := measured.Scenario
	switch {
	case m.Name != sc.Name:
		return fmt.Sprintf("the live run ran scenario %q, the prediction is of %q (-force)", m.Name, sc.Name)
	case m.Hash != "" && m.Hash != sc.Hash() && sc.Calibrated == nil:
		return fmt.Sprintf("the live run ran scenario %q with hash %s, the prediction is of hash %s, another file or the file changed since (-force)", m.Name, m.Hash, sc.Hash())
	}
	return ""
}

// sameCalibrated checks that the measured run ran the scenario calibrated
// scenario sc was fitted from: the same base hash (the file as written,
// before -set), which the calibration records. The run's -set values may
// differ (traffic the calibration did not see): -compare applies them to
// sc. A summary from before base hashes has its run's base hash derived
// from the scenario file it names (runBaseHash); when that file cannot be
// found or read, or sc predates base hashes, the check is by name only,
// with a note saying why.
func sameCalibrated(sc *scenario.Scenario, measured *measure.Summary, path string) (string, error) {
	m, cal := measured.Scenario, sc.Calibrated
	what := fmt.Sprintf("%s is scenario %q calibrated on %s (%s fitted)", sc.SourceName(), sc.Name,
		strings.Join(cal.Runs, ", "), strings.Join(cal.Fitted, ", "))
	if cal.BaseHash == "" {
		return what + ": it records no calibrated.base_hash (an older simulate -calibrate wrote it), so the run's scenario was checked by name only, as calibrating changed its hash; calibrate again to have runs checked by their scenario file", nil
	}
	base, how := m.BaseHash, ""
	if base == "" {
		var err error
		if base, how, err = runBaseHash(measured, path); err != nil {
			return "", err
		}
		if base == "" {
			return fmt.Sprintf("%s: %s records no scenario.base_hash (an older attack wrote it) and %s, so the run's scenario was checked by name only, as calibrating changed its hash; put the run's scenario file there, or measure again, to have it checked against base hash %s",
				what, path, how, cal.BaseHash), nil
		}
		how = "; " + how
	}
	if base != cal.BaseHash {
		return "", fmt.Errorf("-compare %s: the live run ran scenario %q from %s, base hash %s (its file as written, before -set%s), but %s was calibrated on runs (%s) of scenario %q with base hash %s: another file of the same name, or the file changed since the calibration; compare a run of the scenario calibrated on, calibrate again on runs of this one, or add -force",
			path, m.Name, runFile(m), base, how, sc.SourceName(), strings.Join(cal.Runs, ", "), sc.Name, cal.BaseHash)
	}
	return fmt.Sprintf("%s: the run's scenario was checked by name and base hash (%s, its file as written before -set%s), as calibrating changed its hash", what, cal.BaseHash, how), nil
}

// runBaseHash is the base hash of the scenario that the live run of a
// summary written before scenario.base_hash existed ran, derived as attack
// derives it today: from the scenario file the summary names (looked for
// as findScenario looks), or the embedded default, with the run's -set
// values, and confirmed by the run's own scenario hash when the summary
// records one. how says where it came from, for a note. With no hash (""),
// how says why none could be derived: the file is not found, or cannot be
// read. A file that no longer loads with the run's -set values, or no
// longer has the run's hash with them, changed since the run: that is an
// error, as it would be when compared on its own.
func runBaseHash(measured *measure.Summary, path string) (hash, how string, err error) {
	m := measured.Scenario
	where := "the embedded default"
	var sc *scenario.Scenario
	if m.File == "" {
		sc, err = scenario.Default(m.Params...)
	} else {
		file, tried, ferr := findScenario(m.File, path)
		if ferr != nil {
			return "", fmt.Sprintf("its scenario file %s cannot be looked for (%v)", m.File, ferr), nil
		}
		if file == "" {
			return "", fmt.Sprintf("its scenario file %s is not found at %s", m.File, strings.Join(tried, " or ")), nil
		}
		f, oerr := os.Open(file)
		if oerr != nil {
			return "", fmt.Sprintf("its scenario file %s cannot be read (%v)", file, oerr), nil
		}
		f.Close()
		where = file
		sc, err = scenario.LoadWithOverrides(file, m.Params)
	}
	old := fmt.Sprintf("-compare %s: the summary records no scenario.base_hash (an older attack wrote it), so the run's was derived from its scenario, %s with the run's -set values %v", path, where, m.Params)
	switch {
	case err != nil:
		return "", "", fmt.Errorf("%s, which no longer loads (%v): the file changed since the run; put back the file the run used, or add -force", old, err)
	case m.Hash == "":
		return sc.BaseHash(), fmt.Sprintf("derived from %s as it is now, as the summary records none, unconfirmed: it records no scenario hash either, to show that file is the one the run used", where), nil
	case sc.Hash() != m.Hash:
		return "", "", fmt.Errorf("%s, but that has hash %s now, not the run's %s: the file changed since the run, so its base hash is not the run's; put back the file the run used, or add -force", old, sc.Hash(), m.Hash)
	}
	return sc.BaseHash(), fmt.Sprintf("derived from %s, as the summary records none; with the run's -set values it has the run's hash %s", where, m.Hash), nil
}

// runFile names the scenario file a summary says its run read.
func runFile(m measure.ScenarioRef) string {
	if m.File == "" {
		return "the embedded default"
	}
	return m.File
}

// resolveScenario finds the scenario file a summary names (findScenario),
// or says where it looked, naming flag (-compare or -calibrate). The default scenario not found on disk is the
// embedded one (a run of attack with no scenario, outside a clone): it
// returns "", which load reads as the embedded default.
func resolveScenario(flag, file, summaryPath string) (string, error) {
	found, tried, err := findScenario(file, summaryPath)
	if err != nil {
		return "", fmt.Errorf("%s %s: %v", flag, summaryPath, err)
	}
	if found == "" && file == "scenarios/"+scenarios.DefaultFile {
		return "", nil
	}
	if found == "" {
		return "", fmt.Errorf("%s %s: the live run's scenario %s is not found (tried %s): give the scenario file as the argument",
			flag, summaryPath, file, strings.Join(tried, ", "))
	}
	return found, nil
}

// findScenario finds the scenario file a summary names: as given, else
// relative to the summary's folder or one of its parents (a summary under
// reports/<scenario>/<time>/ names the file relative to where attack ran).
// An absolute path is returned as it is. Not found, it returns "" and the
// first paths it tried (at most four).
func findScenario(file, summaryPath string) (string, []string, error) {
	if _, err := os.Stat(file); err == nil || filepath.IsAbs(file) {
		return file, nil, nil
	}
	tried := []string{file}
	dir, err := filepath.Abs(filepath.Dir(summaryPath))
	if err != nil {
		return "", nil, err
	}
	for {
		p := filepath.Join(dir, file)
		if _, err := os.Stat(p); err == nil {
			return p, nil, nil
		}
		tried = append(tried, p)
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", tried[:min(len(tried), 4)], nil
}

// setPaths returns the paths -set names.
func setPaths(sets []string) map[string]bool {
	out := map[string]bool{}
	for _, s := range sets {
		p, _, _ := strings.Cut(s, "=")
		out[strings.TrimSpace(p)] = true
	}
	return out
}

// measuredProfile is the scenario as the live run that wrote measured ran
// it: what the run itself reports wins over the file: what it reported
// about its target (targetProfile), how long it really ran (runLength: a
// run stopped early covers less) and how long its closed loops waited
// beyond its store's latencies (loopGap). compilePoint then compiles it as a live
// run (plan.CompileLive), with the same time scale the live store played.
//
// A path the user set with -set (in user) is kept as given, with a note
// when the run reports another value.
func measuredProfile(sc *scenario.Scenario, measured *measure.Summary, user map[string]bool) (*scenario.Scenario, []string, error) {
	out, notes, err := targetProfile(sc, measured, user)
	if err != nil {
		return nil, nil, err
	}
	if out, err = runLength(out, measured, user); err != nil {
		return nil, nil, err
	}
	out, more, err := loopGap(out, measured, user)
	return out, append(notes, more...), err
}

// targetProfile is sc with what the live run that wrote measured reported
// about its target, which describes the target rather than the run: the
// limit and window it announced and the store the built-in target used.
// A path in user is kept as measuredProfile says.
func targetProfile(sc *scenario.Scenario, measured *measure.Summary, user map[string]bool) (*scenario.Scenario, []string, error) {
	var sets, notes []string
	add := func(path, value string, current string) {
		if user[path] || path == "live.window" && user["limiter.window"] {
			if current != value {
				notes = append(notes, fmt.Sprintf("-set %s kept: the live run had %s=%s", path, path, value))
			}
			return
		}
		sets = append(sets, path+"="+value)
	}
	if l := measured.Limiter; l.Limit > 0 && l.WindowSecs > 0 {
		add("limiter.limit", fmt.Sprint(l.Limit), fmt.Sprint(sc.Limiter.Limit))
		w := sc.Live.Window
		if w == 0 {
			w = sc.Limiter.Window
		}
		add("live.window", scenario.Duration(time.Duration(l.WindowSecs*float64(time.Second)).Round(time.Millisecond)).String(), w.String())
	}
	if kind, ok := plan.LiveStore(measured.Limiter.Store).Models(); ok {
		add("store.kind", kind.String(), sc.Store.Kind)
	}
	if n := hostThreads(sc, measured); n > 0 && !user["store.redis.threads"] {
		sets = append(sets, fmt.Sprintf("store.redis.threads=%d", n))
		notes = append(notes, fmt.Sprintf("the live run's Redis servers shared attack's host, which has %d cores, and the scenario does not set store.redis.threads: predicted with store.redis.threads=%d (set it in the scenario to say otherwise)", n, n))
	}
	out := sc
	if len(sets) > 0 {
		var err error
		if out, err = sc.With(sets...); err != nil {
			return nil, nil, fmt.Errorf("-compare: the measured run's settings do not fit the scenario: %w", err)
		}
	}
	return out, notes, nil
}

// hostThreads is how many threads a redis scenario that does not set
// store.redis.threads is predicted with against the live run that wrote
// measured: the cores of the host its servers shared with attack
// (live.store_host_cores), as examples/redis/plain.yaml sets them by
// hand; 0 when the scenario sets them, is not on redis, or the run does
// not say.
func hostThreads(sc *scenario.Scenario, measured *measure.Summary) int {
	r := sc.Store.Redis
	if sc.Store.Kind != scenario.KindRedis || measured.Live == nil || (r != nil && r.Threads != 0) {
		return 0
	}
	return min(measured.Live.StoreHostCores, scenario.MaxRedisThreads)
}

// runLength is sc as long as the live run that wrote measured lasted: it
// may have been shorter than planned (interrupted, -duration,
// max_requests), and is then predicted that long, with the populations that
// had started by then, unless -set live.duration (in user) says how long.
// That describes the run, not its target. Of repeated runs (attack
// -repeat), whose live.duration_seconds is their sum, it is the longest
// run's (totals.seconds), as a trial of the model stands for one run.
//
// A run that sent all its traffic and stopped on its live.max_requests
// (every request answered) is not shortened: it stopped when its last
// answer came, and a trial cut at that instant would lose the requests
// its model still had in flight.
func runLength(sc *scenario.Scenario, measured *measure.Summary, user map[string]bool) (*scenario.Scenario, error) {
	if mr := sc.Live.MaxRequests; mr > 0 && measured.Totals.Requests >= mr && measured.Complete && plannedRequests(sc) == mr {
		return sc, nil
	}
	if lv := measured.Live; lv != nil && lv.DurationSecs > 0 && !user["live.duration"] {
		secs := lv.DurationSecs
		if r := measured.Repeats; r != nil && len(r.Runs) > 1 && measured.Totals.SimulatedSeconds > 0 {
			secs = measured.Totals.SimulatedSeconds
		}
		d := max(time.Duration(secs*float64(time.Second)).Round(time.Millisecond), time.Millisecond)
		if d < sc.Live.Duration.D() {
			out := shortened(sc, d)
			if len(out.Traffic) == 0 {
				return nil, fmt.Errorf("-compare: the measured run lasted %v, before any population of the scenario started: there is nothing to predict", d)
			}
			return out, nil
		}
	}
	return sc, nil
}

// plannedRequests is how many requests sc's traffic sends in all when
// every population is a one-off burst, -1 when some population sends for
// as long as the run lasts.
func plannedRequests(sc *scenario.Scenario) int64 {
	var n int64
	for _, p := range sc.Traffic {
		if p.Burst == nil || p.Burst.Every.D() > 0 || p.OpenLoop != nil || p.ClosedLoop != nil {
			return -1
		}
		n += int64(p.Burst.Size) * int64(max(1, p.Clients))
	}
	return n
}

// shortened returns a copy of sc that lasts d, without the populations
// that start at or after d (they sent nothing in the measured run).
func shortened(sc *scenario.Scenario, d time.Duration) *scenario.Scenario {
	out := *sc
	out.Live.Duration = scenario.Duration(d)
	out.Traffic = nil
	for _, p := range sc.Traffic {
		if p.Start.D() < d {
			out.Traffic = append(out.Traffic, p)
		}
	}
	return &out
}

// maxSummaryBytes bounds a summary.json read back (-compare, -calibrate,
// -diff).
var maxSummaryBytes int64 = bounded.MaxSummary

// readSummary reads a summary.json to compare with.
func readSummary(path string) (*measure.Summary, error) {
	b, err := bounded.ReadFile(path, maxSummaryBytes, "a summary.json")
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
	if err := checkMeasured(&s); err != nil {
		return nil, fmt.Errorf("-compare %s: %v", path, err)
	}
	return &s, nil
}

// run simulates every point, in order, and returns the run's summary: the
// point's own for a single scenario, one entry per point for a sweep.
func run(ctx context.Context, c *config, p *prediction, points []scenario.Point, prog *progress) (measure.Summary, error) {
	runs, err := simulateWith(ctx, c, p.sc, p.calibrated, points, prog, nil)
	return assemble(ref(p.sc), isSweep(points), runs), err
}

// pointRun is one point of a run: what its summary starts from (mode,
// scenario, seed, limiter), its limit and sweep parameters, and either its
// trials, not yet pooled (a shard's share), or its summary.
type pointRun struct {
	Base    measure.Summary `json:"base"`
	Limit   int64           `json:"limit"`
	Params  []measure.Param `json:"params,omitempty"`
	Trials  []shardTrial    `json:"trials"`
	summary *measure.Summary
}

// shardTrial is one trial of a point with its index in the point's trials.
type shardTrial struct {
	Index int           `json:"index"`
	Trial measure.Trial `json:"trial"`
}

// isSweep reports whether the run's summary lists points.
func isSweep(points []scenario.Point) bool {
	return len(points) > 1 || len(points) == 1 && len(points[0].Params) > 0
}

// simulatePoints runs every point in order. With only nil each point is
// summarised as it finishes; with only set, it runs the trials only picks
// (point index, trial index) and keeps them unpooled, for a shard. A
// cancelled run returns the points so far, the last one marked incomplete,
// and the context's error.
func simulatePoints(ctx context.Context, c *config, sc *scenario.Scenario, points []scenario.Point, prog *progress,
	only func(point, trial int) bool) ([]pointRun, error) {
	return simulateWith(ctx, c, sc, nil, points, prog, only)
}

// simulateWith is simulatePoints with the calibrated scenario's file
// (calibrated, nil when it is not one), whose fitted values its
// alternatives vary.
func simulateWith(ctx context.Context, c *config, sc, calibrated *scenario.Scenario, points []scenario.Point, prog *progress,
	only func(point, trial int) bool) ([]pointRun, error) {
	seed := c.seedOf(sc)
	var runs []pointRun
	for i, p := range points {
		pl, err := compilePoint(p.Scenario, c.compare != "")
		if err != nil {
			return nil, pointErr(err, p, len(points))
		}
		opts := model.Options{Seed: seed, Trials: c.trials, Workers: c.workers, Context: ctx,
			Progress: func(done, total int) { prog.update(i, done, total) }}
		if only != nil {
			opts.Only = func(trial int) bool { return only(i, trial) }
		}
		var trials []measure.Trial
		if alts := p.Scenario.Calibrated; alts != nil && len(alts.Alternatives) > 0 {
			if only != nil {
				return nil, fmt.Errorf("%s is calibrated with alternatives, whose trials are spread over several parameter sets: it cannot be sharded yet; run it in one process", p.Scenario.SourceName())
			}
			trials, err = calibratedTrials(p.Scenario, calibrated, pl, opts, trialCount(c, pl), c.compare != "")
		} else {
			trials, err = model.RunTrials(pl, opts)
		}
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, pointErr(err, p, len(points))
		}
		r := pointRun{Base: model.Base(pl, seed), Limit: pl.Limiter.Limit}
		r.Base.Scenario = ref(p.Scenario)
		r.Base.Complete = err == nil
		for _, q := range p.Params {
			r.Params = append(r.Params, measure.Param{Path: q.Path, Value: q.Value})
		}
		if only == nil {
			s := measure.Summarize(r.Base, r.Limit, trials)
			r.summary = &s
		} else {
			k := 0
			for t := range trialCount(c, pl) {
				if only(i, t) && k < len(trials) {
					r.Trials = append(r.Trials, shardTrial{Index: t, Trial: trials[k]})
					k++
				}
			}
		}
		runs = append(runs, r)
		if err != nil {
			return runs, err
		}
	}
	return runs, nil
}

// seedOf is the run's seed: -seed, else the scenario's.
func (c *config) seedOf(sc *scenario.Scenario) uint64 {
	if c.seedSet {
		return c.seed
	}
	return sc.Seed
}

// trialCount is the number of trials each point of the run has.
func trialCount(c *config, pl *plan.Plan) int {
	if c.trials > 0 {
		return c.trials
	}
	return max(pl.Trials, 1)
}

// assemble builds the run's summary from its points: the point's own for a
// single scenario, else one entry per point under the scenario's reference
// top. Points whose trials are not pooled yet are pooled here.
func assemble(top measure.ScenarioRef, sweep bool, runs []pointRun) measure.Summary {
	var out measure.Summary
	for i, r := range runs {
		s := r.summarize()
		if !sweep {
			return s
		}
		if i == 0 {
			out = s
			out.Scenario = top
			out.Totals, out.Overshoot, out.Populations = measure.Totals{}, measure.Overshoot{}, nil
			out.KV, out.Cost, out.WorstKeys, out.Warnings = measure.KVWork{}, measure.Cost{}, nil, nil
		}
		for _, w := range s.Warnings {
			// A simulated outage is a result, not a failure: flagged, and
			// the exit status stays what the run and its gate say.
			out.Warnings = append(out.Warnings, "at "+pointLabel(r.Params)+": "+w)
		}
		out.Points = append(out.Points, measure.Point{Summary: &s, Params: r.Params})
		out.Complete = s.Complete
	}
	measure.SetWorst(&out)
	return out
}

// pointLabel names a sweep point by its parameters, as scenario.Point.Label.
func pointLabel(params []measure.Param) string {
	if len(params) == 0 {
		return "base"
	}
	parts := make([]string, len(params))
	for i, q := range params {
		parts[i] = q.Path + "=" + q.Value
	}
	return strings.Join(parts, ",")
}

// summarize returns the point's summary, pooling its trials in index order
// when that has not been done.
func (r *pointRun) summarize() measure.Summary {
	if r.summary != nil {
		return *r.summary
	}
	trials := make([]measure.Trial, len(r.Trials))
	for i, t := range r.Trials {
		trials[i] = t.Trial
	}
	return measure.Summarize(r.Base, r.Limit, trials)
}

// compilePoint compiles one point of the run: as the simulator runs it, or
// as a live run played it when predicting one (-compare).
func compilePoint(sc *scenario.Scenario, live bool) (*plan.Plan, error) {
	if live {
		return plan.CompileLive(sc)
	}
	return plan.Compile(sc)
}

// pointErr names the sweep point an error happened at, when there are
// several.
func pointErr(err error, p scenario.Point, points int) error {
	if points > 1 {
		return fmt.Errorf("sweep point %s: %w", p.Label(), err)
	}
	return err
}

// ref identifies a scenario in a summary.
func ref(sc *scenario.Scenario) measure.ScenarioRef {
	return plan.ScenarioRef(sc, report.DescribeTraffic(sc))
}

// finish prints the summary, writes the report and applies the threshold.
// The summary is printed before the report is written, so that a report
// that cannot be written (a full disk, a bad -out) loses nothing measured.
func finish(c *config, p *prediction, s measure.Summary, stdout, stderr io.Writer) int {
	sc, measured := p.sc, p.measured
	if sc != nil && sc.Calibrated != nil && len(sc.Calibrated.Misfit) == 2 && len(s.Points) == 0 {
		s.Overshoot.PerTrial.Misfit = slices.Clone(sc.Calibrated.Misfit)
	}
	if measured != nil && len(s.Points) == 0 {
		cmp := measure.Compare(&s, measured)
		if p.forcedOther != "" {
			cmp.NotLikeForLike(p.forcedOther, "predict the run's own scenario file, without -force")
		}
		if _, ok := plan.LiveStore(measured.Limiter.Store).Models(); !ok && measured.Limiter.Store != string(plan.LiveURL) {
			// A live store the model has no store for (one newer than this
			// build): the prediction ran the scenario's own store, another one.
			cmp.NotLikeForLike(fmt.Sprintf("the live run was on %s, which the model has no store for: the prediction ran store.kind %s instead",
				measured.Limiter.Store, sc.Store.Kind), "compare a run of the built-in eventual or memory store, or of a URL, until the model has this store")
		}
		s.Comparison = &cmp
	}
	if c.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(&s); err != nil {
			fmt.Fprintln(stderr, "simulate:", err)
			return ExitFailure
		}
	} else if err := writeText(stdout, p.headerShown, &s); err != nil {
		fmt.Fprintln(stderr, "simulate:", err)
		return ExitFailure
	} else {
		if s.Comparison != nil {
			writeComparison(stdout, s.Comparison)
		}
		if sc != nil { // nil for a merge
			writeCalibration(stdout, sc.Calibrated)
		}
	}
	if !c.noReport {
		opts := report.Options{Compare: measured, Traffic: s.Scenario.Traffic}
		dir, err := writeReport(c.out, &s, time.Now(), opts)
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
	broken, err := c.gates.Apply(&s, "simulate", stderr)
	if err != nil {
		fmt.Fprintln(stderr, "simulate:", err)
		return ExitFailure
	}
	if broken {
		return ExitThreshold
	}
	return ExitOK
}

// printHeader prints what the run is (measure.WriteHeader) before it
// starts: the scenario, its question wrapped to the terminal, the first
// point's limiter, the seed and the trials of each point.
func printHeader(w io.Writer, c *config, sc *scenario.Scenario, points []scenario.Point) error {
	if len(points) == 0 {
		return nil
	}
	pl, err := compilePoint(points[0].Scenario, c.compare != "")
	if err != nil {
		return pointErr(err, points[0], len(points))
	}
	h := model.Base(pl, c.seedOf(sc))
	h.Scenario, h.Trials = ref(sc), trialCount(c, pl)
	if err := measure.WriteHeader(w, &h, cli.Width(w)); err != nil {
		return err
	}
	if isSweep(points) {
		_, err = fmt.Fprintf(w, "  %d sweep points\n", len(points))
	}
	return err
}

// writeText prints the summary for people, wrapped to the terminal: its
// results only when the header was printed before the run.
func writeText(w io.Writer, headerShown bool, s *measure.Summary) error {
	if headerShown {
		return measure.WriteResults(w, s)
	}
	return measure.WriteTextWidth(w, s, cli.Width(w))
}

// writeComparison prints the prediction against the measurement: the
// headline, each figure of the mechanism against its band, and the
// verdict with why and what to do.
func writeComparison(w io.Writer, c *measure.Comparison) {
	what := "the live run"
	if c.Repeats > 1 {
		what = fmt.Sprintf("the median of %d live runs", c.Repeats)
	}
	band := "INSIDE"
	if !c.InsideBand {
		band = "OUTSIDE"
	}
	fmt.Fprintf(w, "\ncompared: measured max ratio %.3g (%s, %d key-windows)\n", c.MeasuredMaxRatio, what, c.KeyWindows)
	fmt.Fprintf(w, "          predicted median %.3g, 95%% of %s in [%.3g, %.3g]: %s the band", c.PredictedMedian, c.BandText(), c.PredictedBand[0], c.PredictedBand[1], band)
	if c.RelativeError != nil {
		fmt.Fprintf(w, "; relative error %.1f%%", 100**c.RelativeError)
	}
	fmt.Fprintln(w)
	if len(c.Misfit) == 2 {
		fmt.Fprintf(w, "          the band is widened by how far the calibration missed its own runs: its low end x%.3g, its high end x%.3g (calibrated.misfit)\n", c.Misfit[0], c.Misfit[1])
	}
	if c.MeasuredReadGroup > 0 && c.PredictedReadGroup > 0 {
		fmt.Fprintf(w, "races:    at most %.3g requests read one count (%s), the model's trials %.3g (median)\n",
			c.MeasuredReadGroup, strings.TrimPrefix(what, "the "), c.PredictedReadGroup)
	}
	if k := c.Rate; k != nil && k.Observed {
		fmt.Fprintf(w, "rate:     %s (%s; not judged)\n", k.Format(), strings.TrimPrefix(what, "the "))
		if n := c.RateNote(); n != "" {
			fmt.Fprintf(w, "          %s\n", n)
		}
	}
	if len(c.Checks) > 0 {
		fmt.Fprintf(w, "mechanism (%s against the model's trials):\n", strings.TrimPrefix(what, "the "))
		for _, k := range c.Checks {
			fmt.Fprintf(w, "  %-17s %s\n", k.Name, k.Format())
		}
	}
	if c.Note != "" && c.LikeForLike {
		fmt.Fprintf(w, "note:     %s\n", c.Note)
	}
	fmt.Fprintf(w, "verdict:  %s: %s\n", strings.ToUpper(c.Verdict), c.Why)
	if c.Do != "" {
		fmt.Fprintf(w, "          what to do: %s\n", c.Do)
	}
}

// writeCalibration states, for a scenario simulate -calibrate wrote, what
// it was fitted to and the error its leave-one-out predictions made: the
// error to expect of this prediction near that traffic.
func writeCalibration(w io.Writer, cal *scenario.Calibration) {
	if cal == nil {
		return
	}
	fmt.Fprintf(w, "\ncalibrated: %s fitted to %s\n", strings.Join(cal.Fitted, ", "), strings.Join(cal.Runs, ", "))
	if len(cal.LeaveOneOut) == 0 {
		fmt.Fprintln(w, "  error: unknown (one run, so no leave-one-out prediction); calibrate on two runs or more to know it")
		return
	}
	worst := slices.Max(cal.LeaveOneOut)
	parts := make([]string, len(cal.LeaveOneOut))
	for i, e := range cal.LeaveOneOut {
		parts[i] = fmt.Sprintf("%.0f%%", 100*e)
	}
	fmt.Fprintf(w, "  error: each run predicted from the others missed by %s (worst %.0f%%); expect at least that, more the further this traffic is from theirs\n",
		strings.Join(parts, ", "), 100*worst)
	if n := len(cal.Alternatives); n > 0 {
		fmt.Fprintf(w, "  trials: spread over the fitted values and the %d fits to each repeat alone, so the band holds the calibration's own uncertainty\n", n)
	}
	if m := cal.Misfit; len(m) == 2 {
		fmt.Fprintf(w, "  misfit: the fit missed its own runs' median max ratio by x%.3g to x%.3g, so the band is widened by that\n", m[0], m[1])
	}
}

// calibratedTrials runs a calibrated scenario's trials spread over its
// fitted values and its alternatives (the fits to each repeat alone): each
// of the n sets runs 1/n of the total trials, all from the same seed, so
// that the band holds the calibration's uncertainty as well as the model's
// own randomness. An alternative leaves alone the fitted values sc does not
// hold at base's, its file's (varied).
func calibratedTrials(sc, base *scenario.Scenario, pl *plan.Plan, opts model.Options, total int, live bool) ([]measure.Trial, error) {
	sets := sc.Calibrated.Alternatives
	n := len(sets) + 1
	var out []measure.Trial
	for k := 0; k < n && k < total; k++ {
		kpl := pl
		if k > 0 {
			alt, err := sc.With(varied(sets[k-1], base, sc)...)
			if err != nil {
				return nil, fmt.Errorf("calibrated.alternatives.%d: %v", k-1, err)
			}
			if kpl, err = compilePoint(alt, live); err != nil {
				return nil, fmt.Errorf("calibrated.alternatives.%d: %v", k-1, err)
			}
		}
		o := opts
		o.Trials = (total - k + n - 1) / n
		o.Progress = nil
		trials, err := model.RunTrials(kpl, o)
		out = append(out, trials...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}
