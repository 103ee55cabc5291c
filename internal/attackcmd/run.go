package attackcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/overshoot-dev/overshoot/internal/attack"
	"github.com/overshoot-dev/overshoot/internal/cli"
	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/loopback"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/redact"
	"github.com/overshoot-dev/overshoot/internal/report"
	"github.com/overshoot-dev/overshoot/internal/scenario"
	"github.com/overshoot-dev/overshoot/internal/target"
)

// Main is the attack command. It returns the exit code.
func Main(args []string, env Env) int {
	if env.Exit == nil {
		env.Exit = os.Exit
	}
	// The signal watcher, the progress line and Main all write to stderr.
	stderr := &lockedWriter{w: env.Stderr}
	c, err := parseFlags(args, env.Stdout, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return cli.ExitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "attack: %v\n", err)
		return cli.ExitBadInput
	}
	if c.mergeArgs != nil {
		return mergeMain(c, env, stderr, c.mergeArgs)
	}
	r, err := prepare(c, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "attack: %v\n", err)
		return cli.ExitBadInput
	}
	// First signal: stop the attack (or the server) and write what was
	// measured; second: exit at once.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var left leftovers // what a second signal removes before exiting
	defer watchSignals(env, stderr, cancel, &left)()
	t, err := r.startTarget(ctx, c, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "attack: %v\n", err)
		return cli.ExitBadInput
	}
	defer t.close()
	if c.serve {
		return r.serve(ctx, t, env)
	}
	r.opts.URL, r.opts.Summary = t.url, r.summaryRef(t.store)
	if t.bstore != nil && t.bstore.OnHost {
		r.opts.Summary.Live.StoreHostCores = runtime.NumCPU()
	}
	if c.url != "" || c.store == plan.LiveCloudflare || c.store == plan.LiveRedis {
		// Against a URL, a real namespace or Redis the store may outlive
		// the run (a real Worker's KV): tokens carry a run id so that runs
		// do not count each other's requests.
		r.opts.RunID = strconv.FormatInt(time.Now().UnixMilli(), 36)
	}
	if c.sh.shard != nil {
		return runShard(ctx, c, env, stderr, r.pl, r.sc, r.opts)
	}
	return r.attack(ctx, c, t, env, stderr, &left)
}

// live is one attack: the scenario, its plan and limiter, and the
// options of the run, built once and completed as the target is known
// (its URL, and the limit and window it states).
type live struct {
	sc      *scenario.Scenario
	pl      *plan.Plan
	lim     *limiter.Limiter
	opts    attack.Options
	started func(time.Time) // the current store's BuiltinStore.Started
}

// prepare reads the scenario and checks everything the run derives from
// the flags and the scenario, before a store, a server or a file exists.
func prepare(c *config, stderr io.Writer) (*live, error) {
	name := c.scenarioFile
	var sc *scenario.Scenario
	var err error
	if name == "" {
		name = DefaultScenarioFile
		sc, err = scenario.Default(c.sets...)
	} else {
		sc, err = scenario.LoadWithOverrides(name, c.sets)
	}
	if err != nil {
		return nil, err
	}
	if err := c.gates.CheckPopulations(sc.PopulationNames()); err != nil {
		return nil, err
	}
	maxRequests := c.maxRequests
	if c.store == StoreCloudflare && c.url == "" && !c.serve && maxRequests == 0 && sc.Live.MaxRequests == 0 {
		// Every request is billed API calls: bound the run unless the user did.
		maxRequests = DefaultCloudflareMaxRequests
		fmt.Fprintf(stderr, "attack: note: -store cloudflare: at most %d requests, since each is billed API calls; set -max-requests (or live.max_requests) for more\n",
			DefaultCloudflareMaxRequests)
	}
	seed := sc.Seed
	if c.seedSet {
		seed = c.seed
	}
	// The plan is what runs: the live window and duration, the store's
	// latencies divided by the time scale, the populations.
	pl, err := plan.CompileLive(sc)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if err := c.storeFor(pl); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	lim, err := limiter.New(pl.Limiter)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	r := &live{sc: sc, pl: pl, lim: lim, opts: attack.Options{Plan: pl, URL: c.url, Limit: lim.Config().Limit, Window: lim.Config().Window,
		Duration: c.duration, MaxRequests: maxRequests, Seed: seed, IPHeader: c.ipHeader, Skew: attack.DefaultSkew, Timeout: c.timeout, DenyStatus: c.denyStatus}}
	if c.serve {
		return r, nil
	}
	check := r.opts
	if check.URL == "" {
		check.URL = "http://" + c.addr + "/"
	}
	if err := attack.Validate(check); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if !c.noReport || c.sh.shard != nil {
		// Found now rather than after a store, a preflight and a run.
		return r, report.CheckRoot(c.out)
	}
	return r, nil
}

// watchSignals watches env.Signals until the returned stop is called: the
// first signal cancels the run, the second removes what left holds and
// exits at once.
func watchSignals(env Env, stderr io.Writer, cancel func(), left *leftovers) (stop func()) {
	done := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case <-env.Signals:
				n++
				if n == 1 {
					fmt.Fprintln(stderr, "attack: interrupted: stopping, draining requests in flight and writing what was measured (Ctrl-C again to quit at once)")
					cancel()
					continue
				}
				if kept := left.remove(); kept != "" {
					fmt.Fprintf(stderr, "attack: interrupted twice: exiting at once; the results written so far are in %s\n", kept)
				} else {
					fmt.Fprintln(stderr, "attack: interrupted twice: exiting without writing")
				}
				env.Exit(cli.ExitInterruptedTwice)
				return
			case <-done:
				return
			}
		}
	}()
	return func() { close(done) }
}

// liveTarget is what the run attacks: the built-in target over its store,
// or -url.
type liveTarget struct {
	url    string
	store  plan.LiveStore // the summary's target: the built-in store, or url
	what   string         // the target, for the console
	srv    *target.Server
	bstore *BuiltinStore
	closed sync.Once
}

// close stops the built-in target's server, then closes its store. Only
// the first call counts.
func (t *liveTarget) close() {
	t.closed.Do(func() {
		if t.srv != nil {
			t.srv.Close()
		}
		if t.bstore != nil && t.bstore.Close != nil {
			t.bstore.Close()
		}
	})
}

// startTarget starts the built-in target over its store, or, with -url,
// preflights the URL and counts against the limit and window it states.
func (r *live) startTarget(ctx context.Context, c *config, stderr io.Writer) (*liveTarget, error) {
	if c.url != "" {
		return r.preflightURL(ctx, c, stderr)
	}
	bs, err := c.newBuiltinStore(ctx, r.pl, r.opts.Seed, stderr)
	if err != nil {
		return nil, err
	}
	t := &liveTarget{bstore: bs, store: c.store, what: "built-in target, store " + bs.Describe}
	if t.srv, err = r.newServer(c, bs); err != nil {
		t.close()
		return nil, err
	}
	t.url, r.opts.KV, r.started = t.srv.URL(), bs.AddTo, bs.Started
	if bs.Soak != nil {
		r.opts.Soak = redisSoak
	}
	return t, nil
}

// redisSoak is how long a run on Redis servers is warmed up before it
// starts (attack.Options.Soak, with live.warmup): every run of -repeat
// starts its own servers and clients, which serve about a fifth slower
// in their first few hundred milliseconds, and a limiter's race is over
// by then (docs/validation.md, "A cold start").
const redisSoak = time.Second

// newServer starts the built-in target's server over the store bs.
func (r *live) newServer(c *config, bs *BuiltinStore) (*target.Server, error) {
	h, err := target.New(target.Config{Limiter: r.lim, Store: bs.Store, Soak: bs.Soak, Token: r.pl.Token, Key: r.pl.Key})
	if err != nil {
		return nil, err
	}
	return target.Start(c.addr, h)
}

// preflightURL checks -url with one request and takes the limit and
// window its rate-limit fields state, when they can be counted in.
func (r *live) preflightURL(ctx context.Context, c *config, stderr io.Writer) (*liveTarget, error) {
	u, err := url.Parse(c.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("-url %q is not an http(s) URL: give e.g. http://127.0.0.1:8787/", redact.URL(c.url))
	}
	tl, labelled, err := preflight(ctx, c.url, r.pl.Token, c.timeout, c.denyStatus)
	if err != nil {
		return nil, err
	}
	if loopback.Host(u.Hostname()) {
		r.opts.Skew = 5 * time.Millisecond // one clock
	}
	limit, window := r.opts.Limit, r.opts.Window
	if tl.Limit > 0 && tl.Window > 0 {
		if err := usablePolicy(tl, limit, window, r.opts.Skew, labelled); err != nil {
			return nil, fmt.Errorf("-url %s: %v", c.url, err)
		}
		if tl.Limit != limit || tl.Window != window {
			fmt.Fprintf(stderr, "attack: note: the target's %s says %d per %v; the scenario says %d per %v: counting against the target's\n",
				tl.Source, tl.Limit, tl.Window, limit, window)
		}
		r.opts.Limit, r.opts.Window = tl.Limit, tl.Window
	} else if tl.Limit > 0 && tl.Limit != limit {
		fmt.Fprintf(stderr, "attack: note: the target's %s says %d and states no window; the scenario says %d per %v: counting against the scenario's\n",
			tl.Source, tl.Limit, limit, window)
	}
	return &liveTarget{url: c.url, store: plan.LiveURL, what: "any URL; " + fieldsRead(tl)}, nil
}

// serve runs only the built-in target, until the context ends.
func (r *live) serve(ctx context.Context, t *liveTarget, env Env) int {
	lcfg, token := r.lim.Config(), r.pl.Token
	fmt.Fprintf(env.Stdout, "overshoot target: %s\n  limiter %s, %d per %v, %s, store %s\n  send the token in %s %s, the client address in X-Forwarded-For or CF-Connecting-IP, the location in %s\n  Ctrl-C stops\n",
		t.url, lcfg.Algorithm, lcfg.Limit, scenario.Duration(lcfg.Window), lcfg.Policy, t.bstore.Describe, token.From, token.Name, target.HeaderLocation)
	if env.Ready != nil {
		env.Ready(t.url)
	}
	<-ctx.Done()
	return cli.ExitOK
}

// summaryRef is what every summary of the run starts from: the scenario,
// and the limiter as counted (the target's limit and window) on store.
func (r *live) summaryRef(store plan.LiveStore) measure.Summary {
	counted := r.lim.Config() // the limiter as it runs: its update shape and burst too
	counted.Limit, counted.Window = r.opts.Limit, r.opts.Window
	return measure.Summary{
		Scenario: plan.ScenarioRef(r.sc, report.DescribeTraffic(r.sc)),
		Limiter:  plan.LimiterRef(counted, r.pl.Key, string(store)),
		Live:     &measure.Live{Target: string(store)},
	}
}

// runFiles are a run's report folder and its results file, written to
// partial until the run ends.
type runFiles struct {
	dir, results, partial string
	f                     *os.File
}

// newRunFiles creates the run's report folder under out and its results
// file, recording both in left for a second signal to clean up.
func newRunFiles(out, name string, left *leftovers) (runFiles, error) {
	dir, err := report.NewDir(out, name, time.Now())
	if err != nil {
		return runFiles{}, err
	}
	rf := runFiles{dir: dir, results: filepath.Join(dir, ResultsFileName)}
	rf.partial = rf.results + ".partial"
	left.set(dir, rf.partial)
	if rf.f, err = createResults(rf.partial); err != nil {
		return runFiles{}, fmt.Errorf("creating the results file: %v", err)
	}
	return rf, nil
}

// attack runs the attack c.repeat times against t, then prints and
// writes what was measured. Only now that the input is good is anything
// written; with -no-report, nothing is: the results go nowhere.
func (r *live) attack(ctx context.Context, c *config, t *liveTarget, env Env, stderr io.Writer, left *leftovers) int {
	o := r.opts
	var files runFiles
	if !c.noReport {
		var err error
		if files, err = newRunFiles(c.out, r.sc.Name, left); err != nil {
			fmt.Fprintf(stderr, "attack: %v\n", err)
			return cli.ExitFailure
		}
		o.Results, o.ResultsFile = files.f, files.results
	}
	r.printStart(c, t, env, stderr)
	var extra report.Extra
	var run atomic.Int64 // the run under way, from 1 (-repeat)
	run.Store(1)
	o.Series, o.Samples = &extra.LiveSeries, &extra.LatencySamples
	o.Progress = r.progress(c, env, stderr, &run)
	o.StartWhen = r.startWhen(c, stderr)
	s, runErr := runRepeats(ctx, c.repeat, o, r.freshTargets(ctx, c, t, stderr), announceRuns(c, stderr, &run, o.Progress != nil))
	if o.Progress != nil {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if t.srv != nil {
		t.srv.Close()
	}
	return finishRun(c, env, stderr, &s, runErr, files, &extra)
}

// printStart says what is about to run: notes on the scenario, and unless
// -json, the header and the target.
func (r *live) printStart(c *config, t *liveTarget, env Env, stderr io.Writer) {
	for _, n := range notes(r.sc, runDuration(c, r.pl)) {
		fmt.Fprintln(stderr, "attack: note:", n)
	}
	if n := len(r.pl.Faults); n > 0 && !(c.store == StoreRedis && c.rd.harness) {
		fmt.Fprintf(stderr, "attack: note: the scenario's %d faults are not applied: attack applies them with -store redis -redis-harness only\n", n)
	}
	if !c.json {
		hdr := measure.Summary{Mode: "attack", Scenario: r.opts.Summary.Scenario, Limiter: r.opts.Summary.Limiter, Seed: r.opts.Seed}
		measure.WriteHeader(env.Stdout, &hdr, cli.Width(env.Stdout))
		runs := ""
		if c.repeat > 1 {
			runs = fmt.Sprintf(", %d times", c.repeat)
		}
		fmt.Fprintf(env.Stdout, "  target:   %s (%s)\n  running up to %v%s; Ctrl-C stops and keeps what was measured\n",
			redact.URL(t.url), t.what, runDuration(c, r.pl), runs)
	}
	if env.Ready != nil {
		env.Ready(t.url)
	}
}

// progress is the progress line's writer, on a terminal and without
// -json; nil otherwise.
func (r *live) progress(c *config, env Env, stderr io.Writer, run *atomic.Int64) func(int64, time.Duration) {
	if c.json || !cli.IsTerminal(env.Stderr) {
		return nil
	}
	return func(n int64, el time.Duration) {
		if line, ok := attackProgress(n, el, runDuration(c, r.pl), int(run.Load()), c.repeat); ok {
			fmt.Fprintf(stderr, "\r%s\033[K", line)
		}
	}
}

// startWhen is when each run starts: after its warm-up, when it fits in
// one window, as a trial of the model does, so that it sees whole
// key-windows.
func (r *live) startWhen(c *config, stderr io.Writer) func() time.Time {
	return func() time.Time {
		at := fitStart(time.Now(), r.opts.Window, runDuration(c, r.pl))
		if !at.IsZero() {
			fmt.Fprintf(stderr, "attack: note: waiting %v for the next %v window, so that the run sees whole key-windows (the rest of this one is shorter than the run)\n",
				time.Until(at).Round(100*time.Millisecond), scenario.Duration(r.opts.Window))
		}
		if r.started != nil {
			if at.IsZero() {
				at = time.Now()
			}
			r.started(at)
		}
		return at
	}
}

// freshTargets gives each repeat of a run on the built-in target a fresh
// store and server; nil for one run, or a URL. The first call stops t,
// the first run's (its port may be the one asked for; its servers, with
// -redis-harness, are done).
func (r *live) freshTargets(ctx context.Context, c *config, t *liveTarget, stderr io.Writer) freshTarget {
	if t.srv == nil || c.repeat < 2 {
		return nil
	}
	return func(i int) (string, func(*measure.KVCounters), func(), error) {
		t.close()
		bs, err := c.newBuiltinStore(ctx, r.pl, r.opts.Seed+uint64(i), stderr)
		if err != nil {
			return "", nil, nil, err
		}
		r.started = bs.Started
		ns, err := r.newServer(c, bs)
		if err != nil {
			if bs.Close != nil {
				bs.Close()
			}
			return "", nil, nil, err
		}
		return ns.URL(), bs.AddTo, func() {
			ns.Close()
			if bs.Close != nil {
				bs.Close()
			}
		}, nil
	}
}

// announceRuns says when each repeat starts, without -json.
func announceRuns(c *config, stderr io.Writer, run *atomic.Int64, progress bool) func(i, n int) {
	if c.json {
		return nil
	}
	return func(i, n int) {
		run.Store(int64(i))
		if progress {
			fmt.Fprint(stderr, "\r\033[K") // the last run's progress line
		}
		fmt.Fprintf(stderr, "attack: run %d of %d\n", i, n)
	}
}

// finishRun prints the run's summary, keeps its results and writes its
// report, and returns the exit code.
func finishRun(c *config, env Env, stderr io.Writer, s *measure.Summary, runErr error, files runFiles, extra *report.Extra) int {
	if c.noReport {
		printRun(env.Stdout, c.json, s, "", true)
		if runErr != nil {
			fmt.Fprintf(stderr, "attack: %v\n", runErr)
			return cli.ExitFailure
		}
		return verdict(s, &c.gates, stderr)
	}
	closeErr := files.f.Close()
	if runErr == nil && closeErr != nil {
		runErr = fmt.Errorf("closing the results file %s: %w", files.partial, closeErr)
	}
	if runErr != nil {
		// The results file is incomplete, but the summary holds everything
		// that was measured: keep it, marked incomplete, and say what failed.
		s.Complete = false
		if s.Live != nil {
			s.Live.ResultsFile = files.partial
		}
		_, kept := keepReport(files.dir, s, extra, stderr)
		printRun(env.Stdout, c.json, s, files.dir, true)
		fmt.Fprintf(stderr, "attack: %v: the results file is incomplete (what was written is in %s)", runErr, files.partial)
		if kept {
			fmt.Fprintf(stderr, "; summary.json, marked incomplete, is in %s", files.dir)
		}
		fmt.Fprintln(stderr)
		return cli.ExitFailure
	}
	if err := os.Rename(files.partial, files.results); err != nil {
		fmt.Fprintf(stderr, "attack: %v\n", err)
		return cli.ExitFailure
	}
	// Print first, so that a report that cannot be written loses nothing.
	printRun(env.Stdout, c.json, s, files.dir, true)
	switch full, summary := keepReport(files.dir, s, extra, stderr); {
	case !summary:
		fmt.Fprintf(stderr, "attack: neither the report nor summary.json was written; the summary is printed above and the results are in %s\n", files.results)
		return cli.ExitFailure
	case !full:
		fmt.Fprintf(stderr, "attack: the report was not written; summary.json and the results are in %s\n", files.dir)
		return cli.ExitFailure
	}
	return verdict(s, &c.gates, stderr)
}
