package attackcmd

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/overshoot-dev/overshoot/internal/attack"
	"github.com/overshoot-dev/overshoot/internal/cli"
	"github.com/overshoot-dev/overshoot/internal/escape"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/redact"
	"github.com/overshoot-dev/overshoot/internal/report"
	"github.com/overshoot-dev/overshoot/internal/scenario"
	"github.com/overshoot-dev/overshoot/internal/shard"
)

// A sharded attack: N processes, anywhere, each sending its part of the
// scenario's load (attack.Options.Shard) at one shared target from one
// agreed instant, with one run id so that callers the scenario shares stay
// shared across shards. Each writes its results and a shard file under
// -out; `attack -merge` accounts for all the shards' results as one run.
// The shard files and the merge's checks are internal/shard's.

// shardFlags are the flags of a sharded run.
type shardFlags struct {
	shard   *plan.Shard
	startAt time.Time
	runID   string
}

// register adds -start-at and -run-id to fs (-shard is a shared flag,
// cli.Shared; merge is a mode).
func (f *shardFlags) register(fs *flag.FlagSet) {
	fs.Func("start-at", "with -shard: the agreed wall-clock `time` every shard starts at (RFC 3339, e.g. 2026-12-01T10:00:00Z)", func(v string) error {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return fmt.Errorf("give an RFC 3339 time such as 2026-12-01T10:00:00Z")
		}
		f.startAt = t
		return nil
	})
	fs.StringVar(&f.runID, "run-id", "", "with -shard: the run's `id`, the same on every shard (it prefixes every token, so shards share callers and runs do not)")
}

// runIDPattern is what a run id may hold: it goes into tokens and file names.
var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// maxEarly is how far ahead -start-at may be: a shard waits for it.
const maxEarly = 24 * time.Hour

// maxLate is how long after -start-at a shard may still start: beyond it
// the shards would not be attacking at once.
const maxLate = shard.MaxLate

// validate checks the shard flags against the rest of the command line.
func (f *shardFlags) validate(c *config) error {
	if f.shard == nil {
		if !f.startAt.IsZero() || f.runID != "" {
			return fmt.Errorf("-start-at and -run-id go with -shard I/N")
		}
		return nil
	}
	switch {
	case c.url == "":
		return fmt.Errorf("-shard needs -url: the shards attack one target together (start it with attack -serve, or give your Worker's URL)")
	case f.startAt.IsZero():
		return fmt.Errorf("-shard needs -start-at TIME: the instant every shard starts at, e.g. -start-at %s", time.Now().Add(time.Minute).UTC().Format(time.RFC3339))
	case !runIDPattern.MatchString(f.runID):
		return fmt.Errorf("-shard needs -run-id ID (letters, digits, . _ -; the same on every shard), got %q", f.runID)
	case c.json:
		return fmt.Errorf("-shard writes a shard file, not a summary: -json goes with -merge")
	case time.Until(f.startAt) > maxEarly:
		return fmt.Errorf("-start-at %s is %v from now, over %v: give an instant within that (every shard waits for it)",
			f.startAt.Format(time.RFC3339), time.Until(f.startAt).Round(time.Minute), maxEarly)
	}
	return nil
}

// runShard runs this process's shard of the attack and writes its results
// and shard file under c.out.
func runShard(ctx context.Context, c *config, env Env, stderr io.Writer, pl *plan.Plan, sc *scenario.Scenario, o attack.Options) int {
	sh := c.sh.shard
	offset, err := clockOffset(ctx, c.url, c.timeout)
	if err != nil {
		fmt.Fprintf(stderr, "attack: -shard: %s\n", redact.Text(c.url, err.Error()))
		return cli.ExitBadInput
	}
	if late := time.Since(c.sh.startAt); late > maxLate {
		fmt.Fprintf(stderr, "attack: -shard: -start-at %s was %v ago: give every shard a time still to come\n",
			c.sh.startAt.Format(time.RFC3339), late.Round(time.Millisecond))
		return cli.ExitBadInput
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		fmt.Fprintf(stderr, "attack: -shard: %v\n", err)
		return cli.ExitFailure
	}
	base := shard.Base(sh.Index, sh.Count)
	resultsPath := filepath.Join(c.out, base+".bin")
	rf, err := createResults(resultsPath)
	if err != nil {
		fmt.Fprintf(stderr, "attack: creating the results file: %v\n", err)
		return cli.ExitFailure
	}
	o.Shard, o.Start, o.RunID = *sh, c.sh.startAt, c.sh.runID
	o.Results, o.ResultsFile = rf, resultsPath
	fmt.Fprintf(env.Stdout, "overshoot attack shard %d/%d of run %s: scenario %s, target %s, starting at %s (in %v)\n",
		sh.Index, sh.Count, c.sh.runID, escape.Line(sc.Name), redact.URL(c.url), c.sh.startAt.Format(time.RFC3339Nano), max(0, time.Until(c.sh.startAt)).Round(time.Millisecond))
	if env.Ready != nil {
		env.Ready(c.url)
	}
	late := max(0, time.Since(c.sh.startAt))
	s, runErr := attack.Run(ctx, o)
	if err := rf.Close(); runErr == nil && err != nil {
		runErr = err
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "attack: -shard: %v\n", runErr)
		return cli.ExitFailure
	}
	dg, err := shard.DigestFile(resultsPath)
	if err != nil {
		fmt.Fprintf(stderr, "attack: -shard: reading back %s: %v\n", resultsPath, err)
		return cli.ExitFailure
	}
	f := shard.AttackFile{Header: shard.NewAttackHeader(sh.Index, sh.Count), RunID: c.sh.runID,
		Scenario: s.Scenario, Seed: s.Seed, URL: redact.URL(c.url), Limit: o.Limit, WindowMs: o.Window.Milliseconds(),
		Limiter: s.Limiter, SkewMs: o.Skew.Milliseconds(), DenyStatus: o.DenyStatus, StartAt: c.sh.startAt, LateMs: late.Milliseconds(),
		ElapsedMs: int64(s.Live.DurationSecs * 1000), ClockOffsetMs: offset.Milliseconds(),
		Offered: s.Live.OfferedRate * s.Live.DurationSecs, Results: filepath.Base(resultsPath), ResultsCount: dg.Results, ResultsSHA256: dg.SHA256, Complete: s.Complete}
	b, _ := json.MarshalIndent(&f, "", "  ")
	path := filepath.Join(c.out, base+".json")
	if err := shard.Write(path, append(b, '\n')); err != nil {
		fmt.Fprintf(stderr, "attack: -shard: %v\n", err)
		return cli.ExitFailure
	}
	fmt.Fprintf(env.Stdout, "shard %d/%d: %d responses; %s and %s written (merge: attack -merge %s)\n",
		sh.Index, sh.Count, s.Totals.Requests+s.Totals.Errors, path, resultsPath, c.out)
	if !s.Complete {
		fmt.Fprintln(stderr, "attack: the shard was interrupted: its file is marked incomplete and cannot be merged")
		return cli.ExitFailure
	}
	return cli.ExitOK
}

// clockOffset asks the target for its time (the Date header of one
// request) and returns it minus this machine's, to a second.
func clockOffset(ctx context.Context, url string, timeout time.Duration) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, min(timeout, 10*time.Second))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("X-Anon-Token", "overshoot-clock-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	sent := time.Now()
	resp, err := attack.NoRedirects(http.DefaultTransport, timeout).Do(req)
	if err != nil {
		return 0, fmt.Errorf("cannot reach -url %s: %v", url, err)
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	mid := sent.Add(time.Since(sent) / 2)
	d, err := http.ParseTime(resp.Header.Get("Date"))
	if err != nil {
		return 0, nil // no Date header: nothing to compare
	}
	return d.Sub(mid.Truncate(time.Second)).Round(time.Second), nil
}

// mergeMain is attack -merge: it reads the shard files named by args (or
// found in the folders named), checks that they make one run, accounts for
// their results as one run, and writes the run's summary, results and
// report under c.out.
func mergeMain(c *config, env Env, stderr io.Writer, args []string) int {
	files, dirs, err := shard.ReadAttack(args)
	if err == nil {
		err = shard.CheckAttackRun(files, dirs)
	}
	if err != nil {
		fmt.Fprintf(stderr, "attack: -merge: %v\n", err)
		return cli.ExitBadInput
	}
	first := files[0]
	sc, pl, err := mergeScenario(first)
	if err != nil {
		fmt.Fprintf(stderr, "attack: -merge: %v\n", err)
		return cli.ExitBadInput
	}
	if err := shard.CheckResults(files, dirs); err != nil {
		fmt.Fprintf(stderr, "attack: -merge: %v\n", err)
		return cli.ExitBadInput
	}
	readers, closeAll, err := openResults(files, dirs)
	if err != nil {
		fmt.Fprintf(stderr, "attack: -merge: %v\n", err)
		return cli.ExitBadInput
	}
	defer closeAll()
	var elapsed int64
	var offered float64
	for _, f := range files {
		elapsed = max(elapsed, f.ElapsedMs)
		offered += f.Offered
	}
	if first.Limit <= 0 || first.WindowMs <= 0 {
		fmt.Fprintf(stderr, "attack: -merge: %s: limit %d, window_ms %d: both are positive in a shard file attack -shard wrote: merge the files as written\n",
			filepath.Join(dirs[0], shard.Base(first.Shard, first.Shards)+".json"), first.Limit, first.WindowMs)
		return cli.ExitBadInput
	}
	// The report folder and results file are made at Merge's first write:
	// it reads and checks every result before, so a merge refused for its
	// input writes nothing.
	var dir, resultsPath string
	out := &lazyFile{open: func() (*os.File, error) {
		var err error
		if dir, err = report.NewDir(c.out, sc.Name, time.Now()); err != nil {
			return nil, err
		}
		resultsPath = filepath.Join(dir, ResultsFileName)
		return createResults(resultsPath)
	}}
	ref := measure.Summary{Scenario: first.Scenario, Seed: first.Seed, Limiter: first.Limiter, Complete: true,
		Live: &measure.Live{Target: string(plan.LiveURL)}}
	s, err := attack.Merge(attack.MergeOptions{Plan: pl, Limit: first.Limit, Window: time.Duration(first.WindowMs) * time.Millisecond,
		Skew: time.Duration(first.SkewMs) * time.Millisecond, DenyStatus: first.DenyStatus, Start: first.StartAt, Elapsed: time.Duration(elapsed) * time.Millisecond,
		Offered: offered, Results: readers, Out: out, ResultsFile: ResultsFileName, URL: first.URL, Summary: ref})
	if err != nil && out.f == nil {
		fmt.Fprintf(stderr, "attack: -merge: %v\n", err)
		return cli.ExitBadInput
	}
	if err == nil && out.f == nil {
		_, err = out.Write(nil) // no results: the folder and an empty results file
	}
	if cerr := out.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(stderr, "attack: -merge: %v\n", err)
		return cli.ExitFailure
	}
	s.Live.ResultsFile = resultsPath
	printRun(env.Stdout, c.json, &s, dir, false)
	if err := writeReport(dir, &s, report.Options{Traffic: s.Scenario.Traffic, Generated: time.Now()}); err != nil {
		fmt.Fprintf(stderr, "attack: %v\n", err)
		return cli.ExitFailure
	}
	return verdict(&s, &c.gates, stderr)
}

// mergeScenario loads the scenario the shards ran (the file the first
// names, with its -set values; the embedded default when that is the
// default file and it is not found) and compiles its live plan, refusing a
// file that changed since the shards ran.
func mergeScenario(first shard.AttackFile) (*scenario.Scenario, *plan.Plan, error) {
	sets := first.Scenario.Params
	var sc *scenario.Scenario
	var err error
	if _, statErr := os.Stat(first.Scenario.File); statErr != nil && (first.Scenario.File == "" || first.Scenario.File == DefaultScenarioFile) {
		sc, err = scenario.Default(sets...)
	} else {
		sc, err = scenario.LoadWithOverrides(first.Scenario.File, sets)
	}
	if err == nil && sc.Hash() != first.Scenario.Hash {
		err = fmt.Errorf("%s changed since the shards ran (hash %s, now %s): merge with the scenario they ran", first.Scenario.File, first.Scenario.Hash, sc.Hash())
	}
	if err != nil {
		return nil, nil, err
	}
	pl, err := plan.CompileLive(sc)
	if err != nil {
		return nil, nil, err
	}
	return sc, pl, nil
}

// openResults opens every shard's results file, beside its shard file,
// and returns them with a function that closes them all.
func openResults(files []shard.AttackFile, dirs []string) ([]io.Reader, func(), error) {
	var opened []*os.File
	closeAll := func() {
		for _, f := range opened {
			f.Close()
		}
	}
	var readers []io.Reader
	for i, f := range files {
		rf, err := os.Open(filepath.Join(dirs[i], f.Results))
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("shard %d's results: %v", f.Shard, err)
		}
		opened = append(opened, rf)
		readers = append(readers, rf)
	}
	return readers, closeAll, nil
}

// lazyFile is a file opened at the first write.
type lazyFile struct {
	open func() (*os.File, error)
	f    *os.File
}

// Write opens the file if it is not yet open, then writes p to it.
func (l *lazyFile) Write(p []byte) (int, error) {
	if l.f == nil {
		f, err := l.open()
		if err != nil {
			return 0, err
		}
		l.f = f
	}
	return l.f.Write(p)
}

// Close closes the file if it was opened.
func (l *lazyFile) Close() error {
	if l.f == nil {
		return nil
	}
	return l.f.Close()
}
