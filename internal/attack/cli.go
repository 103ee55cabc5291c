package attack

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
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/report"
	"github.com/overshoot-dev/overshoot/internal/scenario"
	"github.com/overshoot-dev/overshoot/internal/target"
)

// Exit codes of the attack command.
const (
	ExitOK       = 0
	ExitFailure  = 1 // anything else: a results file that cannot be written, ...
	ExitBadInput = 2 // bad flags, bad scenario, unreachable URL, port in use
	ExitBroken   = 3 // -max-ratio broken (measure.Threshold, as simulate)
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

// sets is a repeatable -set flag.
type sets []string

// String lists the overrides given, for flag.
func (s *sets) String() string { return strings.Join(*s, ",") }

// Set adds one override, for flag.
func (s *sets) Set(v string) error { *s = append(*s, v); return nil }

// config is the parsed command line.
type config struct {
	scenarioFile string
	sets         sets
	url          string
	serve        bool
	store        string
	addr         string
	duration     time.Duration
	maxRequests  int64
	seed         uint64
	seedSet      bool
	out          string
	json         bool
	threshold    measure.Threshold
	scenarioSet  bool
	ipHeader     string
	timeout      time.Duration
	cf           cloudflareFlags // -namespace, -cf-base-url (cloudflare.go)
}

// usage is printed by -h and after a bad flag.
const usage = `usage: attack [flags] [SCENARIO.yaml]

Runs a scenario's traffic for real against a rate limiter and measures how far
past its limit it lets callers go. With no -url it starts the built-in target
(the same limiter over the chosen store) on 127.0.0.1 and attacks that;
nothing leaves loopback unless you name a URL. Writes summary.json and a vegeta
results file (read it with: go tool vegeta report < results.bin) under -out.

Exit codes: 0 ok, 1 failure or interrupted (what was measured is still
written), 2 bad input, 3 -max-ratio broken; a second Ctrl-C exits 130 at once.

flags:
`

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	c := &config{}
	fs := flag.NewFlagSet("attack", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	fs.StringVar(&c.scenarioFile, "scenario", DefaultScenarioFile, "scenario `file` to run (also accepted as the argument)")
	fs.Var(&c.sets, "set", "override a scenario value, `path=value` (e.g. limiter.limit=10); repeatable")
	fs.StringVar(&c.url, "url", "", "attack this `URL` instead of the built-in target (a Worker under wrangler dev, a staging deployment)")
	fs.BoolVar(&c.serve, "serve", false, "only run the built-in target until Ctrl-C, and print its address")
	fs.StringVar(&c.store, "store", "eventual", "built-in target's store: memory, eventual (the KV model on the wall clock) or cloudflare (a real Workers KV namespace: -namespace)")
	c.cf.register(fs)
	fs.StringVar(&c.addr, "addr", "127.0.0.1:0", "built-in target's listen `address` (loopback only; port 0 picks one)")
	fs.DurationVar(&c.duration, "duration", 0, "how long to attack (default: the scenario's live.duration)")
	fs.Int64Var(&c.maxRequests, "max-requests", 0, "stop after this many requests (default: the scenario's live.max_requests; with -store cloudflare and neither given, "+
		strconv.Itoa(DefaultCloudflareMaxRequests)+", since every request is billed API calls)")
	fs.Func("seed", "seed for Poisson arrivals and think times (default: the scenario's seed)", func(v string) error {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("must be a whole number >= 0")
		}
		c.seed, c.seedSet = n, true
		return nil
	})
	fs.StringVar(&c.out, "out", "reports", "`folder` under which each run writes <scenario>/<time>/")
	fs.BoolVar(&c.json, "json", false, "print only summary.json on stdout")
	fs.Float64Var(&c.threshold.Max, "max-ratio", 0, "exit 3 when the overshoot ratio (allowed/limit per key-window) at -at exceeds `X` (0: no gate)")
	fs.StringVar(&c.threshold.At, "at", "max", "statistic -max-ratio applies to: "+strings.Join(measure.ThresholdStats, ", "))
	fs.StringVar(&c.ipHeader, "ip-header", "X-Forwarded-For", "header carrying each client's address: X-Forwarded-For or CF-Connecting-IP")
	fs.DurationVar(&c.timeout, "timeout", 10*time.Second, "per-request timeout")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	fs.Visit(func(f *flag.Flag) { c.scenarioSet = c.scenarioSet || f.Name == "scenario" })
	switch fs.NArg() {
	case 0:
	case 1:
		c.scenarioFile, c.scenarioSet = fs.Arg(0), true
	default:
		return nil, fmt.Errorf("too many arguments %q: give at most one scenario file", fs.Args())
	}
	if c.store != "memory" && c.store != "eventual" && c.store != StoreCloudflare {
		return nil, fmt.Errorf("-store %q is unknown: use memory, eventual or cloudflare", c.store)
	}
	if err := c.cf.validate(c.store, c.url); err != nil {
		return nil, err
	}
	if err := c.threshold.Validate(); err != nil {
		return nil, err
	}
	if c.duration < 0 || c.maxRequests < 0 || c.timeout <= 0 {
		return nil, fmt.Errorf("-duration, -max-requests must be >= 0 and -timeout > 0")
	}
	if _, err := ipHeader(c.ipHeader); err != nil {
		return nil, err
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
	c, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "attack: %v\n", err)
		return ExitBadInput
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
		return ExitBadInput
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
	lcfg := limiter.Config{Name: sc.Limiter.Name, Algorithm: limiter.Algorithm(sc.Limiter.Algorithm),
		Limit: sc.Limiter.Limit, Window: sc.Limiter.Window.D(), Policy: limiter.Policy(sc.Limiter.ErrorPolicy)}
	if w := sc.Live.Window.D(); w > 0 {
		lcfg.Window = w
	}
	lim, err := limiter.New(lcfg)
	if err != nil {
		fmt.Fprintf(stderr, "attack: %s: %v\n", c.scenarioFile, err)
		return ExitBadInput
	}
	lcfg = lim.Config()
	token := limiter.TokenSource{From: sc.Limiter.Token.From, Name: sc.Limiter.Token.Name}
	// Everything the run derives from the flags and the scenario is checked
	// now, before a store, a server or a file exists.
	if !c.serve {
		check := Options{Scenario: sc, URL: c.url, Limit: lcfg.Limit, Window: lcfg.Window, Duration: c.duration,
			MaxRequests: c.maxRequests, Seed: seed, IPHeader: c.ipHeader, Timeout: c.timeout}
		if check.URL == "" {
			check.URL = "http://" + c.addr + "/"
		}
		if err := Validate(check); err != nil {
			fmt.Fprintf(stderr, "attack: %s: %v\n", c.scenarioFile, err)
			return ExitBadInput
		}
	}

	// First signal: stop the attack (or the server) and write what was
	// measured; second: exit at once.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
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
				fmt.Fprintln(stderr, "attack: interrupted twice: exiting without writing")
				env.Exit(130)
				return
			case <-stopWatch:
				return
			}
		}
	}()

	storeName := "url"
	limit, window := lcfg.Limit, lcfg.Window
	var (
		srv     *target.Server
		bstore  *BuiltinStore
		tgtURL  = c.url
		skew    = DefaultSkew
		kvAddTo func(*measure.KVCounters)
	)
	if c.url == "" {
		bstore, err = c.newBuiltinStore(ctx, sc, seed)
		if err != nil {
			fmt.Fprintf(stderr, "attack: %v\n", err)
			return ExitBadInput
		}
		h, err := target.New(target.Config{Limiter: lim, Store: bstore.Store, Token: token})
		if err != nil {
			fmt.Fprintf(stderr, "attack: %v\n", err)
			return ExitBadInput
		}
		srv, err = target.Start(c.addr, h)
		if err != nil {
			fmt.Fprintf(stderr, "attack: %v\n", err)
			return ExitBadInput
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
			return ExitOK
		}
	} else {
		u, err := url.Parse(c.url)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			fmt.Fprintf(stderr, "attack: -url %q is not an http(s) URL: give e.g. http://127.0.0.1:8787/\n", c.url)
			return ExitBadInput
		}
		pl, pw, err := preflight(ctx, c.url, token, c.timeout)
		if err != nil {
			fmt.Fprintf(stderr, "attack: %v\n", err)
			return ExitBadInput
		}
		if pl > 0 && pw > 0 {
			if pl != limit || pw != window {
				fmt.Fprintf(stderr, "attack: note: the target's RateLimit-Policy says %d per %v; the scenario says %d per %v: counting against the target's\n",
					pl, pw, limit, window)
			}
			limit, window = pl, pw
		}
		if target.IsLoopbackHost(u.Hostname()) {
			skew = 5 * time.Millisecond // one clock
		}
	}

	// Against a URL the store may outlive the run (a real Worker's KV):
	// tokens carry a run id so that runs do not count each other's requests.
	runID := ""
	if c.url != "" {
		runID = strconv.FormatInt(time.Now().UnixMilli(), 36)
	}

	// Only now that the input is good is anything written.
	dir, err := report.NewDir(c.out, sc.Name, time.Now())
	if err != nil {
		fmt.Fprintf(stderr, "attack: %v\n", err)
		return ExitFailure
	}
	resultsPath := filepath.Join(dir, ResultsFileName)
	partial := resultsPath + ".partial"
	rf, err := createResults(partial)
	if err != nil {
		fmt.Fprintf(stderr, "attack: creating the results file: %v\n", err)
		return ExitFailure
	}

	base := measure.Summary{
		Scenario: measure.ScenarioRef{Name: sc.Name, File: sc.Source(), Hash: sc.Hash(), Question: sc.Question, Params: sc.Overrides(),
			Traffic: report.DescribeTraffic(sc), Headline: sc.Report.Headline},
		Limiter: limiterRef(limiter.Config{Algorithm: lcfg.Algorithm, Limit: limit, Window: window, Policy: lcfg.Policy}, storeName),
		Live:    &measure.Live{Target: storeName},
	}
	for _, n := range notes(sc, runDuration(c, sc)) {
		fmt.Fprintln(stderr, "attack: note:", n)
	}
	if !c.json {
		what := "built-in target, store " + storeName
		if bstore != nil {
			what = "built-in target, store " + bstore.Describe
		} else {
			what = "any URL"
		}
		fmt.Fprintf(env.Stdout, "overshoot attack: scenario %s, %s %d per %v, %s\n  target  %s (%s)\n  running up to %v; Ctrl-C stops and keeps what was measured\n",
			sc.Name, lcfg.Algorithm, limit, scenario.Duration(window), lcfg.Policy, tgtURL, what, runDuration(c, sc))
	}
	if env.Ready != nil {
		env.Ready(tgtURL)
	}
	var series []report.LivePoint
	var progress func(int64, time.Duration)
	if !c.json && isTerminal(env.Stderr) {
		progress = func(n int64, el time.Duration) {
			fmt.Fprintf(stderr, "\r  %6.1fs  %d responses", el.Seconds(), n)
		}
	}
	s, runErr := Run(ctx, Options{Scenario: sc, URL: tgtURL, Limit: limit, Window: window,
		Duration: c.duration, MaxRequests: c.maxRequests, Seed: seed, IPHeader: c.ipHeader, Skew: skew, RunID: runID,
		Timeout: c.timeout, Results: rf, ResultsFile: resultsPath, KV: kvAddTo, Summary: base, Progress: progress, Series: &series})
	if progress != nil {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if srv != nil {
		srv.Close()
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
		kept := keepReport(dir, &s, series, stderr)
		printRun(env.Stdout, c.json, &s, dir)
		fmt.Fprintf(stderr, "attack: %v: the results file is incomplete (what was written is in %s)", runErr, partial)
		if kept {
			fmt.Fprintf(stderr, "; summary.json, marked incomplete, is in %s", dir)
		}
		fmt.Fprintln(stderr)
		return ExitFailure
	}
	if err := os.Rename(partial, resultsPath); err != nil {
		fmt.Fprintf(stderr, "attack: %v\n", err)
		return ExitFailure
	}
	// Print first, so that a report that cannot be written loses nothing.
	printRun(env.Stdout, c.json, &s, dir)
	if err := report.Write(dir, &s, report.Options{Traffic: s.Scenario.Traffic,
		Extra: &report.Extra{LiveSeries: series}, Generated: time.Now()}); err != nil {
		// Keep what was measured: summary.json alone, then say what failed.
		if werr := report.WriteSummary(dir, &s); werr != nil {
			fmt.Fprintf(stderr, "attack: %v\n", werr)
		}
		fmt.Fprintf(stderr, "attack: %v (summary.json and the results are in %s)\n", err, dir)
		return ExitFailure
	}
	if !s.Complete {
		// Interrupted: what was measured is written, but it is not the run
		// the scenario planned, so it is not a success (as simulate). This
		// comes before the threshold: an incomplete run cannot pass a gate.
		fmt.Fprintln(stderr, "attack: the run was interrupted: results and summary cover only what was measured (marked incomplete)")
		return ExitFailure
	}
	if broken := c.threshold.Check(&s); len(broken) > 0 {
		for _, b := range broken {
			fmt.Fprintln(stderr, "attack: threshold broken:", b)
		}
		return ExitBroken
	}
	return ExitOK
}

// printRun prints the run's summary on stdout: summary.json itself with
// -json, else the summary for people and where the files are.
func printRun(w io.Writer, asJSON bool, s *measure.Summary, dir string) {
	if asJSON {
		b, _ := json.MarshalIndent(s, "", "  ")
		w.Write(append(b, '\n'))
		return
	}
	PrintSummary(w, s, dir)
}

// keepReport writes the report of s into dir, or at least summary.json when
// the report cannot be written, and says on stderr what failed. It reports
// whether summary.json was written.
func keepReport(dir string, s *measure.Summary, series []report.LivePoint, stderr io.Writer) bool {
	err := report.Write(dir, s, report.Options{Traffic: s.Scenario.Traffic, Extra: &report.Extra{LiveSeries: series}, Generated: time.Now()})
	if err == nil {
		return true
	}
	fmt.Fprintf(stderr, "attack: %v\n", err)
	if err := report.WriteSummary(dir, s); err != nil {
		fmt.Fprintf(stderr, "attack: %v\n", err)
		return false
	}
	return true
}

// createResults creates the results file; tests replace it to make writing
// fail.
var createResults = os.Create

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
func runDuration(c *config, sc *scenario.Scenario) time.Duration {
	if c.duration > 0 {
		return c.duration
	}
	if d := sc.Live.Duration.D(); d > 0 {
		return d
	}
	return DefaultDuration
}

// preflight sends one request to u before any load, so that an unreachable
// target, or one that answers neither 2xx nor 429 (a wrong path), is a clear
// error and nothing is written. It returns the limit and
// window of the target's RateLimit-Policy when it states one.
func preflight(ctx context.Context, u string, token limiter.TokenSource, timeout time.Duration) (int64, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, min(timeout, 10*time.Second))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, 0, fmt.Errorf("-url %q: %v", u, err)
	}
	tok := "overshoot-preflight-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if token.From == "cookie" {
		req.AddCookie(&http.Cookie{Name: token.Name, Value: tok})
	} else {
		req.Header.Set(token.Name, tok)
	}
	resp, err := noRedirects(http.DefaultTransport, 10*time.Second).Do(req)
	if err != nil {
		return 0, 0, fmt.Errorf("cannot reach -url %s: %v (is the server running? for the example Worker: examples/worker/dev.sh start)", u, err)
	}
	if loc := resp.Header.Get("Location"); resp.StatusCode >= 300 && resp.StatusCode < 400 {
		resp.Body.Close()
		return 0, 0, fmt.Errorf("-url %s answered the preflight request with %s to %q: attack does not follow redirects (a login page would count as allowed); give the final URL", u, resp.Status, loc)
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if ok := resp.StatusCode >= 200 && resp.StatusCode < 300 || resp.StatusCode == http.StatusTooManyRequests; !ok {
		// A limiter answers 2xx (allowed) or 429 (denied); anything else
		// (a wrong path's 404, a 500, a login redirect) would be measured
		// as errors only.
		return 0, 0, fmt.Errorf("-url %s answered the preflight request with %s, not 2xx or 429: check the URL and its path (attack counts only 2xx as allowed and 429 as denied)",
			u, resp.Status)
	}
	q, w := ParsePolicy(resp.Header.Get("RateLimit-Policy"))
	return q, w, nil
}

// ParsePolicy reads the quota (q) and window (w, seconds) of the first
// policy in an IETF draft RateLimit-Policy field such as
// `"default";q=100;w=60`. It returns zeros when the field is absent or
// does not state both.
func ParsePolicy(v string) (limit int64, window time.Duration) {
	first, _, _ := strings.Cut(v, ",")
	for _, p := range strings.Split(first, ";")[1:] {
		k, val, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok {
			continue
		}
		switch k {
		case "q":
			if n, err := strconv.ParseInt(val, 10, 64); err == nil && n > 0 {
				limit = n
			}
		case "w":
			if f, err := strconv.ParseFloat(val, 64); err == nil && f > 0 && f < 1e9 {
				window = time.Duration(f * float64(time.Second)).Round(time.Millisecond)
			}
		}
	}
	if limit == 0 || window == 0 {
		return 0, 0
	}
	return limit, window
}

// PrintSummary prints a run's summary for people, as simulate does, then
// where the report, summary and results files are.
func PrintSummary(w io.Writer, s *measure.Summary, dir string) {
	measure.WriteText(w, s)
	if dir != "" {
		fmt.Fprintf(w, "\nreport   %s\n", filepath.Join(dir, report.HTMLFile))
		fmt.Fprintf(w, "summary  %s\n", filepath.Join(dir, report.SummaryFile))
		if l := s.Live; l != nil && l.ResultsFile != "" {
			fmt.Fprintf(w, "results  %s  (go tool vegeta report < %s)\n", l.ResultsFile, l.ResultsFile)
		}
	}
}

// isTerminal reports whether w is a terminal (a character device), where a
// progress line rewritten with \r belongs; in a pipe or a log file it would
// be noise, so it is only drawn on a terminal, as simulate does.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
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

// noRedirects is an HTTP client that returns a redirect as the response
// instead of following it: a limiter answers 2xx or 429 itself, and a
// followed redirect (to a login page, say) would be counted as allowed.
func noRedirects(tr http.RoundTripper, timeout time.Duration) *http.Client {
	return &http.Client{Transport: tr, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}
