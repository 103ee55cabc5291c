package attackcmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/overshoot-dev/overshoot/internal/attack"
	"github.com/overshoot-dev/overshoot/internal/cli"
	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/report"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// cliScenario writes a short scenario file and returns its path.
func cliScenario(t *testing.T, yaml string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// runMain runs Main and returns its exit code and output.
func runMain(t *testing.T, env Env, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	env.Stdout, env.Stderr = &out, &errb
	if env.Exit == nil {
		env.Exit = func(code int) { t.Errorf("Exit(%d) called", code) }
	}
	code := Main(args, env)
	return code, out.String(), errb.String()
}

// files lists every file under dir.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestMainBadInput: every kind of bad input exits 2 with a message naming
// what was wrong, and writes nothing.
func TestMainBadInput(t *testing.T) {
	good := cliScenario(t, sequentialYAML)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	defer broken.Close()
	// A redirect to a page that answers 200 must not pass for a limiter
	// that allows everything.
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/login" {
			w.Write([]byte("log in"))
			return
		}
		http.Redirect(w, r, "/login", http.StatusFound)
	}))
	defer redirect.Close()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"url answers 404", []string{"-url", notFound.URL + "/nonexistent", good}, notFound.URL + "/nonexistent answered the preflight request with 404 Not Found"},
		{"url answers 503", []string{"-url", broken.URL + "/", good}, broken.URL + "/ answered the preflight request with 503 Service Unavailable"},
		{"url redirects", []string{"-url", redirect.URL + "/", good}, `answered the preflight request with 302 Found to "/login"`},
		{"unknown flag", []string{"-bogus"}, "bogus"},
		{"repeat zero", []string{"-repeat", "0", good}, "-repeat 0 is out of range: give 1 to 100 runs"},
		{"unknown store", []string{"-store", "dynamo", good}, "dynamo"},
		{"unknown statistic", []string{"-at", "p42", good}, "p42"},
		{"negative ratio", []string{"-max-ratio", "-1", good}, "max-ratio"},
		{"a gate on no population", []string{"-threshold", "robots:ratio.max<=1.5", good}, `the scenario has no population "robots"`},
		{"a store the target cannot run", []string{cliScenario(t, strings.Replace(sequentialYAML, "kind: memory", "kind: durable-object", 1))}, "the scenario's store is durable-object, which the built-in target cannot run: give -store memory"},
		{"a redis scenario without its servers", []string{cliScenario(t, strings.Replace(sequentialYAML, "kind: memory", "kind: redis", 1))}, "give -store redis with -redis-harness"},
		{"two files", []string{good, good}, "too many arguments"},
		{"scenario twice", []string{"-scenario", good, good}, "scenario given twice"},
		{"missing scenario", []string{filepath.Join(t.TempDir(), "nope.yaml")}, "nope.yaml"},
		{"bad scenario", []string{cliScenario(t, "limiter: {limit: -3}\n")}, "limit"},
		{"bad override", []string{"-set", "limiter.limit=zero", good}, "limiter.limit"},
		{"public address", []string{"-store", "memory", "-addr", "0.0.0.0:0", good}, "loopback"},
		{"port in use", []string{"-store", "memory", "-addr", busy.Addr().String(), good}, "in use"},
		{"unreachable url", []string{"-url", "http://" + closedPort(t) + "/", good}, "cannot reach"},
		{"not a url", []string{"-url", "ftp://x/", good}, "not an http"},
		{"empty url", []string{"-url", "", good}, "-url is empty"},
		{"bad ip header", []string{"-store", "memory", "-ip-header", "X-Real-IP", good}, "-ip-header \"X-Real-IP\""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			code, stdout, stderr := runMain(t, Env{}, append([]string{"-out", out}, tc.args...)...)
			if code != cli.ExitBadInput {
				t.Errorf("exit %d, want %d; stderr: %s", code, cli.ExitBadInput, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q does not mention %q", stderr, tc.want)
			}
			if f := files(t, out); len(f) > 0 {
				t.Errorf("wrote %v on bad input", f)
			}
			if stdout != "" {
				t.Errorf("stdout %q on bad input", stdout)
			}
		})
	}
}

// readSummary reads the summary.json Main wrote under out.
func readSummary(t *testing.T, out string) (measure.Summary, string) {
	t.Helper()
	var found []string
	for _, f := range files(t, out) {
		if filepath.Base(f) == "summary.json" {
			found = append(found, f)
		}
	}
	if len(found) != 1 {
		t.Fatalf("summary.json files under %s: %v, want one", out, files(t, out))
	}
	b, err := os.ReadFile(found[0])
	if err != nil {
		t.Fatal(err)
	}
	var s measure.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("summary.json: %v", err)
	}
	return s, filepath.Dir(found[0])
}

// decodeAll decodes a results file with vegeta's decoder.
func decodeAll(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := vegeta.NewDecoder(f)
	n := 0
	for {
		var r vegeta.Result
		if err := dec.Decode(&r); errors.Is(err, io.EOF) {
			return n
		} else if err != nil {
			t.Fatalf("%s: result %d: %v", path, n, err)
		}
		n++
	}
}

// TestMainJSON runs the command with -json: stdout is exactly the summary,
// which is also written beside a results file vegeta reads.
func TestMainJSON(t *testing.T) {
	out := t.TempDir()
	sc := cliScenario(t, strings.Replace(sequentialYAML, "1600ms", "400ms", 1))
	code, stdout, stderr := runMain(t, Env{}, "-json", "-store", "memory", "-out", out, "-scenario", sc)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s measure.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("stdout is not the summary: %v\n%s", err, stdout)
	}
	written, dir := readSummary(t, out)
	if written.Totals != s.Totals || !s.Complete || s.Mode != "attack" || s.Limiter.Store != "memory" {
		t.Errorf("stdout summary %+v vs written %+v", s.Totals, written.Totals)
	}
	if !s.KV.Observed || s.KV.Reads == 0 {
		t.Errorf("kv %+v: the built-in target's store is in sight, want observed with reads", s.KV)
	}
	if s.Scenario.Hash == "" || s.Scenario.File != sc || s.Limiter.Window != "500ms" {
		t.Errorf("scenario ref %+v, limiter %+v", s.Scenario, s.Limiter)
	}
	if n := decodeAll(t, filepath.Join(dir, ResultsFileName)); int64(n) != s.Totals.Requests {
		t.Errorf("results file holds %d results, summary counted %d", n, s.Totals.Requests)
	}
	if s.Live.ResultsFile != filepath.Join(dir, ResultsFileName) {
		t.Errorf("live.results_file = %q", s.Live.ResultsFile)
	}
}

// TestMainThreshold: the race breaks -max-ratio 1 (exit 3); a generous
// threshold passes.
func TestMainThreshold(t *testing.T) {
	sc := cliScenario(t, strings.Replace(raceYAML, "store: {kind: memory}", "store: {kind: memory, latency: 20ms}", 1))
	code, _, stderr := runMain(t, Env{}, "-store", "memory", "-out", t.TempDir(), "-duration", "300ms", "-max-ratio", "1", sc)
	if code != cli.ExitThreshold || !strings.Contains(stderr, "threshold broken") {
		t.Errorf("exit %d, stderr %q; want %d and a threshold message", code, stderr, cli.ExitThreshold)
	}
	code, _, stderr = runMain(t, Env{}, "-store", "memory", "-out", t.TempDir(), "-duration", "300ms", "-max-ratio", "1000", "-at", "p50", sc)
	if code != cli.ExitOK {
		t.Errorf("exit %d with a threshold of 1000: %s", code, stderr)
	}
}

// TestMainURL attacks a running target through -url: a preflight, then the
// run, counted against the target's RateLimit-Policy.
func TestMainURL(t *testing.T) {
	sc := parse(t, sequentialYAML)
	url, _ := serve(t, sc, kv.NewMemory(kv.MemoryOptions{}))
	// The scenario file says limit 7 per 1s; the target says 5 per 500ms.
	file := cliScenario(t, strings.Replace(strings.Replace(sequentialYAML, "limit: 5", "limit: 7", 1), "500ms", "1s", 1))
	out := t.TempDir()
	code, stdout, stderr := runMain(t, Env{}, "-url", url, "-duration", "1100ms", "-out", out, file)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	s, _ := readSummary(t, out)
	if s.Limiter.Limit != 5 || s.Limiter.Window != "500ms" || s.Limiter.Store != "url" || s.Live.URL != url {
		t.Errorf("limiter %+v, live url %q: want the target's policy 5 per 500ms", s.Limiter, s.Live.URL)
	}
	if s.Overshoot.MaxAllowed != 5 {
		t.Errorf("max allowed %d, want 5", s.Overshoot.MaxAllowed)
	}
	if !strings.Contains(stderr, "RateLimit-Policy says 5 per 500ms") || !strings.Contains(stdout, "summary") {
		t.Errorf("stderr %q, stdout %q", stderr, stdout)
	}
	// The target's store is out of sight: its KV work is not observed,
	// and the console says so rather than printing zeros.
	if s.KV.Observed || !strings.Contains(stdout, "store: not observed") {
		t.Errorf("kv.observed %v, stdout %q: want the store reported as not observed", s.KV.Observed, stdout)
	}
}

// TestMainInterrupt: the first interrupt stops the attack, drains, writes
// results and a summary marked incomplete, and exits 1; the second exits 130
// at once.
func TestMainInterrupt(t *testing.T) {
	sc := cliScenario(t, strings.Replace(sequentialYAML, "1600ms", "60s", 1))
	out := t.TempDir()
	sig := make(chan os.Signal, 2)
	var mu sync.Mutex
	var exits []int
	env := Env{Signals: sig,
		Exit: func(code int) { mu.Lock(); exits = append(exits, code); mu.Unlock() },
		Ready: func(string) {
			time.AfterFunc(300*time.Millisecond, func() { sig <- syscall.SIGINT })
		}}
	began := time.Now()
	code, stdout, stderr := runMain(t, env, "-store", "eventual", "-set", "live.time_scale=100", "-out", out, sc)
	within(t, "an interrupted 60 s run", time.Since(began), 10*time.Second)
	if code != cli.ExitFailure {
		t.Fatalf("exit %d, want %d (an interrupted run is not a success): %s", code, cli.ExitFailure, stderr)
	}
	s, dir := readSummary(t, out)
	if s.Complete || s.Totals.Requests == 0 {
		t.Errorf("complete %v, requests %d: want an incomplete summary of what was measured", s.Complete, s.Totals.Requests)
	}
	if n := decodeAll(t, filepath.Join(dir, ResultsFileName)); n == 0 {
		t.Errorf("results file empty")
	}
	if !strings.Contains(stdout, "INCOMPLETE") || !strings.Contains(stderr, "interrupted") {
		t.Errorf("stdout %q / stderr %q: want the run marked incomplete", stdout, stderr)
	}
	if len(exits) != 0 {
		t.Errorf("Exit called %v after one interrupt", exits)
	}

	// Two interrupts: Exit(130) at once.
	exited := make(chan int, 1)
	sig2 := make(chan os.Signal, 2)
	env2 := Env{Signals: sig2, Exit: func(code int) { exited <- code },
		Ready: func(string) { sig2 <- syscall.SIGINT; sig2 <- syscall.SIGINT }}
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		// Exit is faked here, so Main goes on after it; the first
		// interrupt has stopped the run, so it ends soon.
		runMain(t, env2, "-store", "memory", "-out", t.TempDir(), sc)
	}()
	select {
	case c := <-exited:
		if c != 130 {
			t.Errorf("second interrupt exited %d, want 130", c)
		}
	case <-time.After(5 * time.Second):
		t.Errorf("second interrupt did not exit")
	}
	<-finished
}

// TestMainServe runs only the target until interrupted.
func TestMainServe(t *testing.T) {
	sig := make(chan os.Signal, 1)
	got := make(chan string, 1)
	env := Env{Signals: sig, Ready: func(url string) { got <- url }}
	done := make(chan int, 1)
	var out, errb bytes.Buffer
	env.Stdout, env.Stderr = &out, &errb
	go func() {
		done <- Main([]string{"-serve", "-store", "memory", "-scenario", cliScenario(t, sequentialYAML)}, env)
	}()
	var url string
	select {
	case url = <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("target did not start")
	}
	s, err := attack.Run(t.Context(), attack.Options{Plan: livePlan(t, parse(t, sequentialYAML)), URL: url, Limit: 5, Window: 500 * time.Millisecond, Duration: 200 * time.Millisecond})
	if err != nil || s.Totals.Allowed == 0 {
		t.Errorf("attacking the served target: %v, %+v", err, s.Totals)
	}
	sig <- syscall.SIGINT
	select {
	case code := <-done:
		if code != cli.ExitOK {
			t.Errorf("exit %d", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("-serve did not stop on interrupt")
	}
	if !strings.Contains(out.String(), url) {
		t.Errorf("stdout %q does not print the address", out.String())
	}
}

// TestMainDefaultScenario runs with no scenario from a folder without
// scenarios/default.yaml: the copy embedded in the binary is used.
func TestMainDefaultScenario(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runMain(t, Env{}, "-json", "-store", "memory", "-duration", "300ms", "-out", out)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s measure.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatal(err)
	}
	if s.Scenario.Name != "default" || s.Scenario.File != "scenarios/default.yaml" || s.Limiter.Limit != 5 || s.Scenario.Traffic == "" {
		t.Errorf("scenario %+v, limiter %+v: want the embedded default", s.Scenario, s.Limiter)
	}
}

// TestMainBaseHash: a run with -set records the hash of the scenario it
// ran and, as scenario.base_hash, the hash of the file before -set (what
// simulate -compare checks a run against a calibrated scenario by).
func TestMainBaseHash(t *testing.T) {
	code, stdout, stderr := runMain(t, Env{}, "-json", "-store", "memory", "-duration", "300ms", "-no-report", "-set", "limiter.limit=6")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s measure.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatal(err)
	}
	base, err := scenario.Default()
	if err != nil {
		t.Fatal(err)
	}
	ran, err := scenario.Default("limiter.limit=6")
	if err != nil {
		t.Fatal(err)
	}
	if s.Scenario.BaseHash != base.Hash() || s.Scenario.Hash != ran.Hash() || s.Scenario.Hash == s.Scenario.BaseHash {
		t.Errorf("scenario hash %q, base hash %q; want %q (as run) and %q (the default as written)", s.Scenario.Hash, s.Scenario.BaseHash, ran.Hash(), base.Hash())
	}
}

// TestMainNoProgressOffTerminal: when stderr is not a terminal (a buffer,
// a pipe, a log file) no progress line, carriage return or escape sequence
// is written to it.
func TestMainNoProgressOffTerminal(t *testing.T) {
	sc := cliScenario(t, strings.Replace(sequentialYAML, "1600ms", "1200ms", 1))
	code, _, stderr := runMain(t, Env{}, "-store", "memory", "-out", t.TempDir(), sc)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.ContainsAny(stderr, "\r\x1b") {
		t.Errorf("stderr is not a terminal but got progress output: %q", stderr)
	}
	if cli.IsTerminal(&bytes.Buffer{}) {
		t.Errorf("a buffer taken for a terminal")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if cli.IsTerminal(f) {
		t.Errorf("a regular file taken for a terminal")
	}
}

// TestMainResultsWriteFails: when the results file cannot be written (here
// a full disk, /dev/full), the summary of what was measured is still
// written, marked incomplete, and stderr says what failed; exit 1.
func TestMainResultsWriteFails(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full to stand for a full disk")
	}
	defer func(f func(string) (*os.File, error)) { createResults = f }(createResults)
	createResults = func(string) (*os.File, error) { return os.OpenFile("/dev/full", os.O_WRONLY, 0) }
	sc := cliScenario(t, strings.Replace(sequentialYAML, "1600ms", "500ms", 1))
	out := t.TempDir()
	code, stdout, stderr := runMain(t, Env{}, "-store", "memory", "-out", out, sc)
	if code != cli.ExitFailure {
		t.Fatalf("exit %d, want %d: %s", code, cli.ExitFailure, stderr)
	}
	s, dir := readSummary(t, out)
	if s.Complete || s.Totals.Requests == 0 {
		t.Errorf("complete %v, requests %d: want the measured run kept, marked incomplete", s.Complete, s.Totals.Requests)
	}
	if !strings.Contains(stderr, "no space left on device") || !strings.Contains(stderr, "summary.json, marked incomplete, is in "+dir) {
		t.Errorf("stderr %q: want what failed and where the summary is", stderr)
	}
	if !strings.Contains(stdout, "INCOMPLETE") {
		t.Errorf("stdout %q: want the summary printed, marked incomplete", stdout)
	}
}

// TestMainSetWindowWins: an explicit -set limiter.window is the window a
// live run counts in, even when the file gives a live.window.
func TestMainSetWindowWins(t *testing.T) {
	yaml := strings.Replace(sequentialYAML, "window: 500ms", "window: 60s", 1)
	file := cliScenario(t, strings.Replace(yaml, "max_requests: 1000000}", "max_requests: 1000000, window: 500ms}", 1))
	for _, tc := range []struct {
		sets []string
		want string
	}{
		{nil, "500ms"},
		{[]string{"-set", "limiter.window=400ms"}, "400ms"},
		{[]string{"-set", "limiter.window=400ms", "-set", "live.window=300ms"}, "300ms"},
	} {
		out := t.TempDir()
		args := append([]string{"-out", out, "-store", "memory", "-duration", "200ms"}, tc.sets...)
		code, _, stderr := runMain(t, Env{}, append(args, file)...)
		if code != cli.ExitOK {
			t.Fatalf("%v: exit %d: %s", tc.sets, code, stderr)
		}
		s, _ := readSummary(t, out)
		if s.Limiter.Window != tc.want {
			t.Errorf("%v: the run counted in %s windows, want %s", tc.sets, s.Limiter.Window, tc.want)
		}
	}
}

// TestMainInterruptTwiceCleansUp: a second interrupt exits at once without
// leaving an empty results.bin.partial or an empty report folder behind; a
// results file that holds results is kept, and stderr names it. The
// interrupts arrive while the results file has just been created, so what
// is on disk when Exit is called is known.
func TestMainInterruptTwiceCleansUp(t *testing.T) {
	sc := cliScenario(t, strings.Replace(sequentialYAML, "1600ms", "60s", 1))
	for _, tc := range []struct {
		name     string
		written  string // what the results file holds when the interrupts come
		wantLeft []string
		wantErr  string
	}{
		{"empty results file", "", nil, "exiting without writing"},
		{"results written", "some results", []string{ResultsFileName + ".partial"}, ResultsFileName + ".partial"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			sig := make(chan os.Signal, 2)
			left := make(chan []string, 1)
			defer func(f func(string) (*os.File, error)) { createResults = f }(createResults)
			createResults = func(p string) (*os.File, error) {
				f, err := os.Create(p)
				if err == nil && tc.written != "" {
					_, err = f.WriteString(tc.written)
				}
				sig <- syscall.SIGINT
				sig <- syscall.SIGINT
				select {
				case <-left: // Exit has listed what was left; put it back for the test
				case <-time.After(5 * time.Second):
					t.Errorf("second interrupt did not exit")
				}
				return f, err
			}
			var got []string
			var code int
			env := Env{Signals: sig, Exit: func(c int) {
				code = c
				filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
					if err == nil && p != out {
						got = append(got, filepath.Base(p))
					}
					return nil
				})
				left <- got
			}}
			_, _, stderr := runMain(t, env, "-store", "memory", "-out", out, sc)
			if code != cli.ExitInterruptedTwice {
				t.Errorf("exit %d, want %d", code, cli.ExitInterruptedTwice)
			}
			var files []string
			for _, g := range got {
				if strings.HasPrefix(g, ResultsFileName) {
					files = append(files, g)
				}
			}
			if strings.Join(files, " ") != strings.Join(tc.wantLeft, " ") {
				t.Errorf("left %v on disk at exit, want results files %v", got, tc.wantLeft)
			}
			if tc.wantLeft == nil && len(got) != 0 {
				t.Errorf("left %v on disk at exit, want nothing (no empty folders)", got)
			}
			if !strings.Contains(stderr, tc.wantErr) {
				t.Errorf("stderr %q does not mention %q", stderr, tc.wantErr)
			}
		})
	}
}

// TestMainReportFallbacks: when the report cannot be written, summary.json
// is written alone; when that fails too, stderr says so and names the
// results file instead of claiming a summary that is not there. Exit 1
// either way.
func TestMainReportFallbacks(t *testing.T) {
	sc := cliScenario(t, strings.Replace(sequentialYAML, "1600ms", "300ms", 1))
	failReport := func(string, *measure.Summary, report.Options) error {
		return errors.New("report: drawing figure \"ratio-cdf\": out of ink")
	}
	failSummary := func(string, *measure.Summary) error {
		return errors.New("report: writing summary.json: out of paper")
	}
	fullDisk := func(string) (*os.File, error) { return os.OpenFile("/dev/full", os.O_WRONLY, 0) }
	for _, tc := range []struct {
		name         string
		summaryFails bool
		resultsFail  bool
		wantSummary  bool
		want         []string // in stderr; DIR stands for the report folder
		notWant      string
	}{
		{"report fails", false, false, true,
			[]string{"out of ink", "the report was not written; summary.json and the results are in DIR"}, ""},
		{"report and summary fail", true, false, false,
			[]string{"out of ink", "out of paper", "neither the report nor summary.json was written", "the results are in DIR/" + ResultsFileName}, "summary.json and the results are in"},
		{"results, report fail", false, true, true,
			[]string{"no space left on device", "out of ink", "summary.json, marked incomplete, is in DIR"}, ""},
		{"results, report and summary fail", true, true, false,
			[]string{"no space left on device", "out of ink", "out of paper", "what was written is in DIR/" + ResultsFileName + ".partial"}, "summary.json, marked incomplete"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := os.Stat("/dev/full"); err != nil && tc.resultsFail {
				t.Skip("no /dev/full to stand for a full disk")
			}
			defer func(c func(string) (*os.File, error), r func(string, *measure.Summary, report.Options) error, s func(string, *measure.Summary) error) {
				createResults, writeReport, writeSummary = c, r, s
			}(createResults, writeReport, writeSummary)
			writeReport = failReport
			if tc.summaryFails {
				writeSummary = failSummary
			}
			if tc.resultsFail {
				createResults = fullDisk
			}
			out := t.TempDir()
			code, stdout, stderr := runMain(t, Env{}, "-store", "memory", "-out", out, sc)
			if code != cli.ExitFailure {
				t.Errorf("exit %d, want %d: %s", code, cli.ExitFailure, stderr)
			}
			dirs, _ := filepath.Glob(filepath.Join(out, "seq", "*"))
			if len(dirs) != 1 {
				t.Fatalf("report folders %v, want one", dirs)
			}
			dir := dirs[0]
			if _, err := os.Stat(filepath.Join(dir, ResultsFileName)); err != nil && !tc.resultsFail {
				t.Errorf("no results file: %v", err)
			}
			_, err := os.Stat(filepath.Join(dir, report.SummaryFile))
			if got := err == nil; got != tc.wantSummary {
				t.Errorf("summary.json written %v, want %v", got, tc.wantSummary)
			}
			for _, w := range tc.want {
				if w = strings.ReplaceAll(w, "DIR", dir); !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not say %q", stderr, w)
				}
			}
			if tc.notWant != "" && strings.Contains(stderr, tc.notWant) {
				t.Errorf("stderr %q says %q, but summary.json was not written", stderr, tc.notWant)
			}
			if !strings.Contains(stdout, "let through") {
				t.Errorf("stdout %q: want the summary printed whatever failed", stdout)
			}
		})
	}
}

// TestMainErrorsDominate: a target that answers the preflight and then
// mostly 500s is not a limiter that let nothing through: the headline and
// summary.json say errors dominate and the command exits 1. A run with a
// few errors among decisions passes.
func TestMainErrorsDominate(t *testing.T) {
	sc := cliScenario(t, strings.Replace(sequentialYAML, "1600ms", "300ms", 1))
	for _, tc := range []struct {
		name     string
		fail     func(n int64) bool // whether the nth request (1: the preflight) gets a 500
		wantCode int
		wantWarn bool
	}{
		{"only 500s after the preflight", func(n int64) bool { return n > 1 }, cli.ExitFailure, true},
		{"one in ten fails", func(n int64) bool { return n%10 == 0 }, cli.ExitOK, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.fail(n.Add(1)) {
					http.Error(w, "boom", http.StatusInternalServerError)
					return
				}
				w.Write([]byte("ok\n"))
			}))
			defer srv.Close()
			out := t.TempDir()
			code, stdout, stderr := runMain(t, Env{}, "-url", srv.URL+"/", "-out", out, sc)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d; stderr: %s", code, tc.wantCode, stderr)
			}
			s, _ := readSummary(t, out)
			warned := len(s.Warnings) > 0 && strings.HasPrefix(s.Warnings[0], "errors dominate")
			if warned != tc.wantWarn || strings.Contains(stdout, "WARNING: errors dominate") != tc.wantWarn {
				t.Errorf("summary warnings %q, stdout %q: want errors-dominate warning %v", s.Warnings, stdout, tc.wantWarn)
			}
			if tc.wantWarn && !strings.Contains(stderr, "did not measure the limiter") {
				t.Errorf("stderr %q does not say why the run failed", stderr)
			}
		})
	}
}

// TestMainStoreFromScenario: without -store the built-in target runs the
// store the scenario names (memory here), not the KV model.
func TestMainStoreFromScenario(t *testing.T) {
	sc := cliScenario(t, strings.Replace(sequentialYAML, "1600ms", "300ms", 1))
	code, stdout, stderr := runMain(t, Env{}, "-json", "-no-report", sc)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s measure.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("stdout is not the summary: %v\n%s", err, stdout)
	}
	if s.Limiter.Store != "memory" {
		t.Errorf("store %q, want the scenario's memory", s.Limiter.Store)
	}
}
