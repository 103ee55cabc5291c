// Package attackcmd is the attack command: flags to scenario, scenario to a
// live plan, the built-in target and its store (or a preflight of -url),
// the run (internal/attack), then summary.json, results.bin and the report.
// cmd/attack only calls Main.
package attackcmd

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/overshoot-dev/overshoot/internal/attack"
	"github.com/overshoot-dev/overshoot/internal/cli"
	"github.com/overshoot-dev/overshoot/internal/escape"
	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/redact"
	"github.com/overshoot-dev/overshoot/internal/report"
	"github.com/overshoot-dev/overshoot/internal/scenario"
	"github.com/overshoot-dev/overshoot/internal/target"
)

// DefaultScenarioFile is the scenario run when none is named.
const DefaultScenarioFile = "scenarios/default.yaml"

// ResultsFileName is the vegeta results file in a run's report folder.
const ResultsFileName = "results.bin"

// Env is what Main needs from the process, so that tests can drive it:
// output streams, the signal channel (os/signal delivers SIGINT there), and
// how to exit at once on a second signal.
type Env struct {
	Stdout, Stderr io.Writer
	// Signals delivers interrupts: the first stops the attack cleanly
	// (results and summary written, marked incomplete; Main returns 1), the
	// second calls Exit(130) at once.
	Signals <-chan os.Signal
	// Exit ends the process; nil means os.Exit.
	Exit func(code int)
	// Ready, when set, is called with the target's URL once the attack is
	// about to start (or the target serves, with -serve).
	Ready func(url string)
}

// config is the parsed command line.
type config struct {
	scenarioFile string
	sets         cli.Sets
	url          string
	serve        bool
	store        plan.LiveStore
	addr         string
	duration     time.Duration
	maxRequests  int64
	seed         uint64
	seedSet      bool
	out          string
	json         bool
	noReport     bool
	gates        cli.Gates
	scenarioSet  bool
	ipHeader     string
	timeout      time.Duration
	cf           cloudflareFlags // -namespace, -cf-base-url (cloudflare.go)
	rd           redisFlags      // -redis-* (redis.go)
	sh           shardFlags      // -shard, -start-at, -run-id, -merge (shard.go)
	mergeArgs    []string        // -merge: the shard files or folders
	repeat       int             // -repeat N: independent runs, one summary
	denyStatus   []int           // -deny-status: the statuses that are denials
}

// usage is printed by -h and after a bad flag.
// Modes are attack's subcommands, each the flag form it has always had.
var Modes = []cli.Mode{
	{Name: "run", Help: "attack a target with a scenario's traffic (the default)"},
	{Name: "serve", Flag: "serve", Help: "only run the built-in target, for any load tool"},
	{Name: "merge", Flag: "merge", Help: "merge the shards of a run: merge DIR"},
}

const usage = `usage: attack [MODE] [flags] [SCENARIO.yaml]   (flags may follow the arguments)

Runs a scenario's traffic for real against a rate limiter and measures how far
past its limit it lets callers go. With no -url it starts the built-in target
(the same limiter over the chosen store) on 127.0.0.1 and attacks that;
nothing leaves loopback unless you name a URL or a real store (-store cloudflare,
-store redis). Writes summary.json and a vegeta
results file (read it with: go tool vegeta report < results.bin) under -out.

With -no-report nothing is written: the summary is printed (all of
summary.json with -json) and the vegeta results are not kept.

Exit codes: 0 ok (also after -h and -version), 1 failure, interrupted, most requests got no decision
(a status neither 2xx nor a -deny-status: what was measured is still written,
and the summary says so) or none was counted, 2 bad input, 3 -max-ratio broken; a second Ctrl-C exits
130 at once.

`

// parseFlags reads args into a config; errors are bad input. The flags
// attack shares with simulate have the same names and meanings there.
func parseFlags(args []string, stdout, stderr io.Writer) (*config, error) {
	c := &config{}
	fs := flag.NewFlagSet("attack", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage, cli.ModesUsage("attack", Modes), "\nflags:\n")
		fs.PrintDefaults()
	}
	fs.StringVar(&c.scenarioFile, "scenario", DefaultScenarioFile, "scenario `file` to run (also accepted as the argument)")
	fs.Var(&c.sets, "set", "override a scenario value, `path=value` (e.g. limiter.limit=10); repeatable")
	fs.StringVar(&c.url, "url", "", "attack this `URL` instead of the built-in target (a Worker under wrangler dev, a staging deployment)")
	fs.BoolVar(&c.serve, "serve", false, "only run the built-in target until Ctrl-C, and print its address")
	fs.StringVar((*string)(&c.store), "store", string(plan.LiveEventual), "built-in target's store: memory, eventual (the KV model on the wall clock), cloudflare (a real Workers KV namespace: -namespace) or redis (real Redis: -redis-addr or -redis-sentinels)")
	c.cf.register(fs)
	c.rd.register(fs)
	c.sh.register(fs)
	fs.StringVar(&c.addr, "addr", "127.0.0.1:0", "built-in target's listen `address` (loopback only; port 0 picks one)")
	fs.DurationVar(&c.duration, "duration", 0, "how long to attack (default: the scenario's live.duration)")
	fs.Int64Var(&c.maxRequests, "max-requests", 0, "stop after this many requests (default: the scenario's live.max_requests; with -store cloudflare and neither given, "+
		strconv.Itoa(DefaultCloudflareMaxRequests)+", since every request is billed API calls)")
	fs.Func("seed", "seed of the traffic's draws: locations, think times, Poisson arrivals, as the model's trial 0 of that seed (default: the scenario's seed)", func(v string) error {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("must be a whole number >= 0")
		}
		c.seed, c.seedSet = n, true
		return nil
	})
	fs.StringVar(&c.out, "out", "reports", "`folder` under which each run writes <scenario>/<time>/")
	fs.BoolVar(&c.json, "json", false, "print only summary.json on stdout")
	fs.BoolVar(&c.noReport, "no-report", false, "write nothing: no report folder, no summary.json, no results file (the summary is still printed)")
	c.gates.Register(fs)
	fs.StringVar(&c.ipHeader, "ip-header", "X-Forwarded-For", "header carrying each client's address: X-Forwarded-For or CF-Connecting-IP")
	fs.DurationVar(&c.timeout, "timeout", 10*time.Second, "per-request timeout")
	c.denyStatus = attack.DefaultDenyStatus
	fs.Func("deny-status", "the `statuses` that are denials, separated by commas, e.g. 429,503 (default 429); another status counts as denied when the response's rate-limit fields say nothing remains, else as an error", func(v string) error {
		codes, err := attack.ParseDenyStatus(v)
		c.denyStatus = codes
		return err
	})
	fs.IntVar(&c.repeat, "repeat", 1, "run the attack `N` times, one after another (fresh run id and tokens each, a fresh built-in store), and write one summary whose repeats hold each run and their median and spread")
	if err := cli.Parse(fs, cli.Subcommand(args, Modes), stdout); err != nil {
		return nil, err
	}
	urlSet := false
	fs.Visit(func(f *flag.Flag) {
		c.scenarioSet = c.scenarioSet || f.Name == "scenario"
		urlSet = urlSet || f.Name == "url"
	})
	if urlSet && strings.TrimSpace(c.url) == "" {
		return nil, fmt.Errorf("-url is empty: give the target's URL, e.g. -url http://127.0.0.1:8787/, or leave -url out to attack the built-in target")
	}
	c.sets = liveWindowFollows(c.sets)
	if err := c.sh.validate(c, fs.Args()); err != nil {
		return nil, err
	}
	if c.sh.merge {
		c.mergeArgs = fs.Args()
		return c, c.gates.Validate()
	}
	switch fs.NArg() {
	case 0:
	case 1:
		if c.scenarioSet {
			return nil, fmt.Errorf("scenario given twice, as -scenario %s and as the argument %s: give one", c.scenarioFile, fs.Arg(0))
		}
		c.scenarioFile, c.scenarioSet = fs.Arg(0), true
	default:
		return nil, fmt.Errorf("too many arguments %q: give at most one scenario file", fs.Args())
	}
	if !slices.Contains(plan.BuiltinStores, c.store) {
		return nil, fmt.Errorf("-store %q is unknown: use memory, eventual, cloudflare or redis", c.store)
	}
	if err := c.cf.validate(c.store, c.url); err != nil {
		return nil, err
	}
	if err := c.rd.validate(c.store, c.url); err != nil {
		return nil, err
	}
	if err := c.gates.Validate(); err != nil {
		return nil, err
	}
	if c.duration < 0 || c.maxRequests < 0 || c.timeout <= 0 {
		return nil, fmt.Errorf("-duration, -max-requests must be >= 0 and -timeout > 0")
	}
	if c.timeout < MinTimeout {
		return nil, fmt.Errorf("-timeout %v is too short for any answer, even on loopback: give %v or more (default 10s)", c.timeout, MinTimeout)
	}
	if _, err := attack.IPHeader(c.ipHeader); err != nil {
		return nil, err
	}
	if c.repeat < 1 || c.repeat > MaxRepeat {
		return nil, fmt.Errorf("-repeat %d is out of range: give 1 to %d runs", c.repeat, MaxRepeat)
	}
	if c.repeat > 1 && (c.serve || c.sh.shard != nil) {
		return nil, fmt.Errorf("-repeat goes with a plain attack: not with -serve or -shard (repeat the sharded run instead)")
	}
	if c.url != "" && c.serve {
		return nil, fmt.Errorf("-url and -serve do not go together: -serve runs the built-in target, -url attacks another")
	}
	return c, nil
}

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
	if c.sh.merge {
		return mergeMain(c, env, stderr, c.mergeArgs)
	}
	// The default scenario is read from scenarios/default.yaml when run
	// from the repository, else from the copy embedded in the binary.
	var sc *scenario.Scenario
	if _, statErr := os.Stat(c.scenarioFile); !c.scenarioSet && statErr != nil {
		sc, err = scenario.Default(c.sets...)
	} else {
		sc, err = scenario.LoadWithOverrides(c.scenarioFile, c.sets)
	}
	if err != nil {
		fmt.Fprintf(stderr, "attack: %v\n", err)
		return cli.ExitBadInput
	}
	if c.store == StoreCloudflare && c.url == "" && !c.serve && c.maxRequests == 0 && sc.Live.MaxRequests == 0 {
		// Every request is billed API calls: bound the run unless the user did.
		c.maxRequests = DefaultCloudflareMaxRequests
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
		fmt.Fprintf(stderr, "attack: %s: %v\n", c.scenarioFile, err)
		return cli.ExitBadInput
	}
	lim, err := limiter.New(pl.Limiter)
	if err != nil {
		fmt.Fprintf(stderr, "attack: %s: %v\n", c.scenarioFile, err)
		return cli.ExitBadInput
	}
	lcfg, token := lim.Config(), pl.Token
	// Everything the run derives from the flags and the scenario is checked
	// now, before a store, a server or a file exists.
	if !c.serve {
		check := attack.Options{Plan: pl, URL: c.url, Duration: c.duration,
			MaxRequests: c.maxRequests, Seed: seed, IPHeader: c.ipHeader, Timeout: c.timeout, DenyStatus: c.denyStatus}
		if check.URL == "" {
			check.URL = "http://" + c.addr + "/"
		}
		if err := attack.Validate(check); err != nil {
			fmt.Fprintf(stderr, "attack: %s: %v\n", c.scenarioFile, err)
			return cli.ExitBadInput
		}
	}
	if !c.serve && (!c.noReport || c.sh.shard != nil) {
		// Found now rather than after a store, a preflight and a run.
		if err := report.CheckRoot(c.out); err != nil {
			fmt.Fprintf(stderr, "attack: %v\n", err)
			return cli.ExitBadInput
		}
	}

	// First signal: stop the attack (or the server) and write what was
	// measured; second: exit at once.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var leftovers leftovers // what a second signal removes before exiting
	stopWatch := make(chan struct{})
	defer close(stopWatch)
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
				if kept := leftovers.remove(); kept != "" {
					fmt.Fprintf(stderr, "attack: interrupted twice: exiting at once; the results written so far are in %s\n", kept)
				} else {
					fmt.Fprintln(stderr, "attack: interrupted twice: exiting without writing")
				}
				env.Exit(cli.ExitInterruptedTwice)
				return
			case <-stopWatch:
				return
			}
		}
	}()

	storeName := plan.LiveURL
	limit, window := lcfg.Limit, lcfg.Window
	var (
		srv     *target.Server
		bstore  *BuiltinStore
		tgtURL  = c.url
		what    = "any URL" // the target, for the console
		skew    = attack.DefaultSkew
		kvAddTo func(*measure.KVCounters)
	)
	if c.url == "" {
		bstore, err = c.newBuiltinStore(ctx, pl, seed)
		if err != nil {
			fmt.Fprintf(stderr, "attack: %v\n", err)
			return cli.ExitBadInput
		}
		if bstore.Close != nil {
			defer bstore.Close()
		}
		h, err := target.New(target.Config{Limiter: lim, Store: bstore.Store, Token: token, Key: pl.Key})
		if err != nil {
			fmt.Fprintf(stderr, "attack: %v\n", err)
			return cli.ExitBadInput
		}
		srv, err = target.Start(c.addr, h)
		if err != nil {
			fmt.Fprintf(stderr, "attack: %v\n", err)
			return cli.ExitBadInput
		}
		defer srv.Close()
		tgtURL = srv.URL()
		storeName = c.store
		kvAddTo = bstore.AddTo
		if c.serve {
			fmt.Fprintf(env.Stdout, "overshoot target: %s\n  limiter %s, %d per %v, %s, store %s\n  send the token in %s %s, the client address in X-Forwarded-For or CF-Connecting-IP, the location in %s\n  Ctrl-C stops\n",
				tgtURL, lcfg.Algorithm, lcfg.Limit, scenario.Duration(lcfg.Window), lcfg.Policy, bstore.Describe, token.From, token.Name, target.HeaderLocation)
			if env.Ready != nil {
				env.Ready(tgtURL)
			}
			<-ctx.Done()
			return cli.ExitOK
		}
	} else {
		u, err := url.Parse(c.url)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			fmt.Fprintf(stderr, "attack: -url %q is not an http(s) URL: give e.g. http://127.0.0.1:8787/\n", redact.URL(c.url))
			return cli.ExitBadInput
		}
		tl, labelled, err := preflight(ctx, c.url, token, c.timeout, c.denyStatus)
		if err != nil {
			fmt.Fprintf(stderr, "attack: %v\n", err)
			return cli.ExitBadInput
		}
		what += "; " + fieldsRead(tl)
		if target.IsLoopbackHost(u.Hostname()) {
			skew = 5 * time.Millisecond // one clock
		}
		if tl.Limit > 0 && tl.Window > 0 {
			if err := usablePolicy(tl, limit, window, skew, labelled); err != nil {
				fmt.Fprintf(stderr, "attack: -url %s: %v\n", c.url, err)
				return cli.ExitBadInput
			}
			if tl.Limit != limit || tl.Window != window {
				fmt.Fprintf(stderr, "attack: note: the target's %s says %d per %v; the scenario says %d per %v: counting against the target's\n",
					tl.Source, tl.Limit, tl.Window, limit, window)
			}
			limit, window = tl.Limit, tl.Window
		} else if tl.Limit > 0 && tl.Limit != limit {
			fmt.Fprintf(stderr, "attack: note: the target's %s says %d and states no window; the scenario says %d per %v: counting against the scenario's\n",
				tl.Source, tl.Limit, limit, window)
		}
	}

	// Against a URL, a real namespace or Redis the store may outlive the
	// run (a real Worker's KV): tokens carry a run id so that runs do not
	// count each other's requests.
	runID := ""
	if c.url != "" || c.store == plan.LiveCloudflare || c.store == plan.LiveRedis {
		runID = strconv.FormatInt(time.Now().UnixMilli(), 36)
	}

	if c.sh.shard != nil {
		ref := measure.Summary{Scenario: plan.ScenarioRef(sc, report.DescribeTraffic(sc)),
			Limiter: plan.LimiterRef(limiter.Config{Algorithm: lcfg.Algorithm, Limit: limit, Window: window, Policy: lcfg.Policy, Update: lcfg.Update, Burst: lcfg.Burst}, pl.Key, string(storeName)),
			Live:    &measure.Live{Target: string(storeName)}}
		return runShard(ctx, c, env, stderr, pl, sc, attack.Options{Plan: pl, URL: tgtURL, Limit: limit, Window: window,
			Duration: c.duration, MaxRequests: c.maxRequests, Seed: seed, IPHeader: c.ipHeader, Skew: skew,
			Timeout: c.timeout, DenyStatus: c.denyStatus, Summary: ref})
	}

	// Only now that the input is good is anything written; with
	// -no-report, nothing is: the results go nowhere.
	var dir, resultsPath, partial string
	var rf *os.File
	var results io.Writer
	if !c.noReport {
		dir, err = report.NewDir(c.out, sc.Name, time.Now())
		if err != nil {
			fmt.Fprintf(stderr, "attack: %v\n", err)
			return cli.ExitFailure
		}
		resultsPath = filepath.Join(dir, ResultsFileName)
		partial = resultsPath + ".partial"
		leftovers.set(dir, partial)
		rf, err = createResults(partial)
		if err != nil {
			fmt.Fprintf(stderr, "attack: creating the results file: %v\n", err)
			return cli.ExitFailure
		}
		results = rf
	}

	base := measure.Summary{
		Scenario: plan.ScenarioRef(sc, report.DescribeTraffic(sc)),
		Limiter:  plan.LimiterRef(limiter.Config{Algorithm: lcfg.Algorithm, Limit: limit, Window: window, Policy: lcfg.Policy, Update: lcfg.Update, Burst: lcfg.Burst}, pl.Key, string(storeName)),
		Live:     &measure.Live{Target: string(storeName)},
	}
	for _, n := range notes(sc, runDuration(c, pl)) {
		fmt.Fprintln(stderr, "attack: note:", n)
	}
	if !c.json {
		if bstore != nil {
			what = "built-in target, store " + bstore.Describe
		}
		hdr := measure.Summary{Mode: "attack", Scenario: base.Scenario, Limiter: base.Limiter, Seed: seed}
		measure.WriteHeader(env.Stdout, &hdr, cli.Width(env.Stdout))
		runs := ""
		if c.repeat > 1 {
			runs = fmt.Sprintf(", %d times", c.repeat)
		}
		fmt.Fprintf(env.Stdout, "  target:   %s (%s)\n  running up to %v%s; Ctrl-C stops and keeps what was measured\n",
			redact.URL(tgtURL), what, runDuration(c, pl), runs)
	}
	if env.Ready != nil {
		env.Ready(tgtURL)
	}
	var series []measure.LivePoint
	var samples []measure.LatencySample
	var progress func(int64, time.Duration)
	var run atomic.Int64 // the run under way, from 1 (-repeat)
	run.Store(1)
	if !c.json && cli.IsTerminal(env.Stderr) {
		progress = func(n int64, el time.Duration) {
			if line, ok := attackProgress(n, el, runDuration(c, pl), int(run.Load()), c.repeat); ok {
				fmt.Fprintf(stderr, "\r%s\033[K", line)
			}
		}
	}
	var fresh freshTarget
	if srv != nil && c.repeat > 1 {
		prev := srv
		fresh = func(i int) (string, func(*measure.KVCounters), func(), error) {
			prev.Close() // its port may be the one asked for
			bs, err := c.newBuiltinStore(ctx, pl, seed+uint64(i))
			if err != nil {
				return "", nil, nil, err
			}
			h, err := target.New(target.Config{Limiter: lim, Store: bs.Store, Token: token, Key: pl.Key})
			if err != nil {
				return "", nil, nil, err
			}
			ns, err := target.Start(c.addr, h)
			if err != nil {
				return "", nil, nil, err
			}
			prev = ns
			return ns.URL(), bs.AddTo, func() {
				ns.Close()
				if bs.Close != nil {
					bs.Close()
				}
			}, nil
		}
	}
	var announce func(i, n int)
	if !c.json {
		announce = func(i, n int) {
			run.Store(int64(i))
			if progress != nil {
				fmt.Fprint(stderr, "\r\033[K") // the last run's progress line
			}
			fmt.Fprintf(stderr, "attack: run %d of %d\n", i, n)
		}
	}
	// Each run starts, after its warm-up, when it fits in one window, as a
	// trial of the model does, so that it sees whole key-windows.
	fit := func() time.Time {
		at := fitStart(time.Now(), window, runDuration(c, pl))
		if !at.IsZero() {
			fmt.Fprintf(stderr, "attack: note: waiting %v for the next %v window, so that the run sees whole key-windows (the rest of this one is shorter than the run)\n",
				time.Until(at).Round(100*time.Millisecond), scenario.Duration(window))
		}
		return at
	}
	s, runErr := runRepeats(ctx, c.repeat, attack.Options{Plan: pl, URL: tgtURL, Limit: limit, Window: window,
		Duration: c.duration, MaxRequests: c.maxRequests, Seed: seed, IPHeader: c.ipHeader, Skew: skew, RunID: runID,
		Timeout: c.timeout, DenyStatus: c.denyStatus, Results: results, ResultsFile: resultsPath, KV: kvAddTo, Summary: base, Progress: progress,
		Series: &series, Samples: &samples, StartWhen: fit}, fresh, announce)
	if progress != nil {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if srv != nil {
		srv.Close()
	}
	if c.noReport {
		printRun(env.Stdout, c.json, &s, "", true)
		if runErr != nil {
			fmt.Fprintf(stderr, "attack: %v\n", runErr)
			return cli.ExitFailure
		}
		return verdict(&s, &c.gates, stderr)
	}
	closeErr := rf.Close()
	if runErr == nil && closeErr != nil {
		runErr = fmt.Errorf("closing the results file %s: %w", partial, closeErr)
	}
	if runErr != nil {
		// The results file is incomplete, but the summary holds everything
		// that was measured: keep it, marked incomplete, and say what failed.
		s.Complete = false
		if s.Live != nil {
			s.Live.ResultsFile = partial
		}
		_, kept := keepReport(dir, &s, &report.Extra{LiveSeries: series, LatencySamples: samples}, stderr)
		printRun(env.Stdout, c.json, &s, dir, true)
		fmt.Fprintf(stderr, "attack: %v: the results file is incomplete (what was written is in %s)", runErr, partial)
		if kept {
			fmt.Fprintf(stderr, "; summary.json, marked incomplete, is in %s", dir)
		}
		fmt.Fprintln(stderr)
		return cli.ExitFailure
	}
	if err := os.Rename(partial, resultsPath); err != nil {
		fmt.Fprintf(stderr, "attack: %v\n", err)
		return cli.ExitFailure
	}
	// Print first, so that a report that cannot be written loses nothing.
	printRun(env.Stdout, c.json, &s, dir, true)
	switch full, summary := keepReport(dir, &s, &report.Extra{LiveSeries: series, LatencySamples: samples}, stderr); {
	case !summary:
		fmt.Fprintf(stderr, "attack: neither the report nor summary.json was written; the summary is printed above and the results are in %s\n", resultsPath)
		return cli.ExitFailure
	case !full:
		fmt.Fprintf(stderr, "attack: the report was not written; summary.json and the results are in %s\n", dir)
		return cli.ExitFailure
	}
	return verdict(&s, &c.gates, stderr)
}

// verdict is the exit code of a run whose summary is out (printed, and
// written unless -no-report), and says on stderr why it is not 0.
func verdict(s *measure.Summary, gates *cli.Gates, stderr io.Writer) int {
	if !s.Complete {
		// Interrupted: what was measured is kept, but it is not the run
		// the scenario planned, so it is not a success (as simulate). This
		// comes before the threshold: an incomplete run cannot pass a gate.
		fmt.Fprintln(stderr, "attack: the run was interrupted: the summary covers only what was measured (marked incomplete)")
		return cli.ExitFailure
	}
	if s.Totals.Requests == 0 {
		// Nothing was counted: no summary of a limiter, whatever was sent.
		fmt.Fprintf(stderr, "attack: the run measured nothing: %s\n", nothingMeasured(s))
		return cli.ExitFailure
	}
	if s.ErrorsDominate() {
		// Most requests got no decision: the run measured the target's
		// failures, not its limiter, and cannot pass for a result.
		fmt.Fprintf(stderr, "attack: %d of %d requests got no decision (a status neither 2xx nor a denial status, or no response): the run did not measure the limiter; check the target, or name its denial statuses with -deny-status (the status counts are in the summary)\n",
			s.Totals.Errors, s.Totals.Requests)
		return cli.ExitFailure
	}
	broken, err := gates.Apply(s, "attack", stderr)
	if err != nil {
		fmt.Fprintln(stderr, "attack:", err)
		return cli.ExitFailure
	}
	if broken {
		return cli.ExitThreshold
	}
	return cli.ExitOK
}

// nothingMeasured says why a run counted no request.
func nothingMeasured(s *measure.Summary) string {
	if s.Live != nil && s.Live.Ambiguous > 0 {
		return fmt.Sprintf("all %s responses were too near a window boundary to count (ambiguous): the limiter's window (%s) is too short for a target that does not name each response's window (%s)",
			measure.Thousands(s.Live.Ambiguous), s.Limiter.Window, target.HeaderWindow)
	}
	return "no request was sent: check the scenario's traffic and the run's duration"
}

// liveWindowFollows returns sets with live.window set to the value of an
// explicit -set limiter.window, unless live.window is set too: a live run
// counts in live.window when the file gives one, and a window the user
// asked for on the command line must win over the file.
func liveWindowFollows(sets []string) []string {
	window := ""
	for _, s := range sets {
		path, value, _ := strings.Cut(s, "=")
		switch strings.TrimSpace(path) {
		case "live.window":
			return sets
		case "limiter.window":
			window = value
		}
	}
	if window == "" {
		return sets
	}
	return append(slices.Clip(sets), "live.window="+window)
}

// printRun prints the run's summary on stdout: summary.json itself with
// -json, else the summary for people and where the files are; its results
// only when the header was printed before the run (headerShown).
func printRun(w io.Writer, asJSON bool, s *measure.Summary, dir string, headerShown bool) {
	if asJSON {
		b, _ := json.MarshalIndent(s, "", "  ")
		w.Write(append(b, '\n'))
		return
	}
	if headerShown {
		measure.WriteResults(w, s)
		printFiles(w, s, dir)
		return
	}
	PrintSummary(w, s, dir)
}

// keepReport writes the report of s into dir, or at least summary.json when
// the report cannot be written, and says on stderr what failed. It reports
// whether the whole report was written, and whether summary.json was.
func keepReport(dir string, s *measure.Summary, extra *report.Extra, stderr io.Writer) (full, summary bool) {
	err := writeReport(dir, s, report.Options{Traffic: s.Scenario.Traffic, Extra: extra, Generated: time.Now()})
	if err == nil {
		return true, true
	}
	fmt.Fprintf(stderr, "attack: %v\n", err)
	if err := writeSummary(dir, s); err != nil {
		fmt.Fprintf(stderr, "attack: %v\n", err)
		return false, false
	}
	return false, true
}

// createResults creates the results file, writeReport the report and
// writeSummary summary.json alone; tests replace them to make writing fail.
var (
	createResults = os.Create
	writeReport   = report.Write
	writeSummary  = report.WriteSummary
)

// leftovers are the report folder and the results file a run has created
// so far, for a second signal to clean up before it exits at once.
type leftovers struct {
	mu           sync.Mutex
	dir, partial string
}

// set records the run's report folder and results file.
func (l *leftovers) set(dir, partial string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dir, l.partial = dir, partial
}

// remove deletes the results file when nothing reached it (an empty file
// is no result, only a puzzle), then the report folder and its scenario's
// folder when that left them empty. It returns the results file when it holds results and was
// kept, else "".
func (l *leftovers) remove() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dir == "" {
		return ""
	}
	kept := ""
	if fi, err := os.Stat(l.partial); err == nil && fi.Size() == 0 {
		os.Remove(l.partial)
	} else if err == nil {
		kept = l.partial
	}
	// Each fails, as it should, unless the folder is empty: the run's
	// folder, then its scenario's folder under -out.
	if os.Remove(l.dir) == nil {
		os.Remove(filepath.Dir(l.dir))
	}
	return kept
}

// notes says what of the scenario a live run of d leaves out.
func notes(sc *scenario.Scenario, d time.Duration) []string {
	var out []string
	if len(sc.Sweep) > 0 {
		out = append(out, "the scenario sweeps parameters; attack runs it as written (sweeps are for simulate)")
	}
	for _, p := range sc.Traffic {
		if p.Start.D() >= d {
			out = append(out, fmt.Sprintf("population %q starts at %v, after the live run ends (%v): it sends nothing", p.Name, p.Start, scenario.Duration(d)))
		}
	}
	return out
}

// runDuration is how long the run is planned to last, for the console.
func runDuration(c *config, pl *plan.Plan) time.Duration {
	if c.duration > 0 {
		return c.duration
	}
	if pl.Duration > 0 {
		return pl.Duration
	}
	return attack.DefaultDuration
}

// MinTimeout is the shortest -timeout accepted: below it no request gets
// an answer, and a run would measure only its own timeouts.
const MinTimeout = time.Millisecond

// preflight sends one request to u before any load, so that an unreachable
// target, or one that answers neither 2xx nor a denial status (a wrong
// path), is a clear error and nothing is written. It returns what the
// response's rate-limit fields say (attack.ReadLimits: the limit and window
// in any dialect that states them), and whether the answer names its window
// (target.HeaderWindow). Its errors hold no secret of u (redact).
func preflight(ctx context.Context, u string, token limiter.TokenSource, timeout time.Duration, deny []int) (attack.Limits, bool, error) {
	tl, named, err := preflightRaw(ctx, u, token, timeout, deny)
	if err != nil {
		err = errors.New(redact.Text(u, err.Error()))
	}
	return tl, named, err
}

func preflightRaw(ctx context.Context, u string, token limiter.TokenSource, timeout time.Duration, deny []int) (attack.Limits, bool, error) {
	var none attack.Limits
	ctx, cancel := context.WithTimeout(ctx, min(timeout, 10*time.Second))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return none, false, fmt.Errorf("-url %q: %v", u, err)
	}
	tok := "overshoot-preflight-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if token.From == "cookie" {
		req.AddCookie(&http.Cookie{Name: token.Name, Value: tok})
	} else {
		req.Header.Set(token.Name, tok)
	}
	resp, err := attack.NoRedirects(http.DefaultTransport, 10*time.Second).Do(req)
	if err != nil && ctx.Err() == context.DeadlineExceeded {
		return none, false, fmt.Errorf("-url %s did not answer the preflight request within %v (-timeout %v, at most 10s here): check that it answers, or give a longer -timeout", u, min(timeout, 10*time.Second), timeout)
	}
	if err != nil {
		return none, false, fmt.Errorf("cannot reach -url %s: %v (is the server running? for the example Worker: examples/worker/dev.sh start)", u, err)
	}
	if loc := resp.Header.Get("Location"); resp.StatusCode >= 300 && resp.StatusCode < 400 {
		resp.Body.Close()
		return none, false, fmt.Errorf("-url %s answered the preflight request with %s to %q: attack does not follow redirects (a login page would count as allowed); give the final URL", u, escape.Line(resp.Status), loc)
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	tl := attack.ReadLimits(resp.Header, time.Now())
	decided := resp.StatusCode >= 200 && resp.StatusCode < 300 || attack.IsDenyStatus(resp.StatusCode, deny) ||
		tl.HasRemaining && tl.Remaining <= 0
	if !decided {
		// A limiter answers 2xx (allowed) or a denial status (429), or says
		// nothing remains; anything else (a wrong path's 404, a 500, a
		// login redirect) would be measured as errors only.
		ds := attack.FormatDenyStatus(deny)
		return none, false, fmt.Errorf("-url %s answered the preflight request with %s, not 2xx or %s: check the URL and its path (attack counts 2xx as allowed and %s as denied; -deny-status names other denial statuses)",
			u, escape.Line(resp.Status), ds, ds)
	}
	return tl, resp.Header.Get(target.HeaderWindow) != "", nil
}

// fieldsRead says what the preflight's answer stated of its limits, for
// the console: which field, or that decisions come from statuses alone.
func fieldsRead(l attack.Limits) string {
	switch {
	case l.Limit > 0 && l.Window > 0:
		return fmt.Sprintf("it states %d per %v in %s", l.Limit, l.Window, l.Source)
	case l.Limit > 0:
		return fmt.Sprintf("it states a limit of %d in %s, no window", l.Limit, l.Source)
	case l.HasRemaining:
		return "it states what remains, no limit"
	}
	return "it sends no rate-limit fields: decisions from statuses alone"
}

// minPolicySkews is how many clock margins (attack.Options.Skew) the
// shortest window a target's rate-limit fields may put in place of the
// scenario's spans, when the target does not name each response's window:
// without that header a response is counted by its send time, and one
// whose span (latency and the margin either side) crosses a window
// boundary is ambiguous; the shorter the window, the more of them (at 1 ms,
// all). 20 margins keep them to a few in a hundred on loopback (100 ms)
// and across a network (1 s).
const minPolicySkews = 20

// usablePolicy says why the limit and window a target states (tl, from
// the preflight) cannot replace the scenario's limit per window, or nil
// when they can: a policy that contradicts the scenario with a window too
// short to count responses in, given the clock margin skew (labelled: the
// target names each response's window), is reported, not used.
func usablePolicy(tl attack.Limits, limit int64, window, skew time.Duration, labelled bool) error {
	q, w, least := tl.Limit, tl.Window, minPolicySkews*skew
	if (q == limit && w == window) || labelled || w >= least {
		return nil
	}
	return fmt.Errorf("the target's %s says %d per %v, the scenario %d per %v (limiter.window): a window under %v (%d clock margins of %v) cannot be counted in "+
		"unless the target names each response's window (%s): responses near a boundary are ambiguous, and in so short a window most or all are; fix the target's %s, "+
		"or give -set limiter.limit=%d -set limiter.window=%v if that policy is meant",
		tl.Source, q, w, limit, window, least, minPolicySkews, skew, target.HeaderWindow, tl.Source, q, w)
}

// PrintSummary prints a run's summary for people, as simulate does
// (wrapped to the terminal's width, else 80 columns), then where the
// report, summary and results files are.
func PrintSummary(w io.Writer, s *measure.Summary, dir string) {
	measure.WriteTextWidth(w, s, cli.Width(w))
	printFiles(w, s, dir)
}

// printFiles says where the report, summary and results files are.
func printFiles(w io.Writer, s *measure.Summary, dir string) {
	if dir != "" {
		fmt.Fprintf(w, "\nreport   %s\n", filepath.Join(dir, report.HTMLFile))
		fmt.Fprintf(w, "summary  %s\n", filepath.Join(dir, report.SummaryFile))
		if l := s.Live; l != nil && l.ResultsFile != "" {
			fmt.Fprintf(w, "results  %s  (go tool vegeta report < %s)\n", l.ResultsFile, l.ResultsFile)
		}
	}
}

// attackProgress is the progress line el into run of runs (each of d, at
// most): time, responses and roughly the time left. Not ok before
// cli.ProgressAfter of the first run: a short run shows none.
func attackProgress(n int64, el, d time.Duration, run, runs int) (string, bool) {
	runs = max(runs, 1)
	if run <= 1 && el < cli.ProgressAfter {
		return "", false
	}
	line := fmt.Sprintf("  %v of %v, %s responses", scenario.Duration(el.Round(time.Second)), scenario.Duration(d.Round(time.Second)), measure.Thousands(n))
	if runs > 1 {
		line = fmt.Sprintf("  run %d of %d:%s", run, runs, line[1:])
	}
	left := d - el + time.Duration(runs-run)*d
	return line + ", " + cli.TimeLeft(left), true
}

// lockedWriter serialises writes from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write writes p under the lock.
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
