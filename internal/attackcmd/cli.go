// Package attackcmd is the attack command: flags to scenario, scenario to a
// live plan, the built-in target and its store (or a preflight of -url),
// the run (internal/attack), then summary.json, results.bin and the report.
// cmd/attack only calls Main.
package attackcmd

import (
	"context"
	"encoding/json"
	"errors"

	"fmt"
	"io"
	"net/http"

	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

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
