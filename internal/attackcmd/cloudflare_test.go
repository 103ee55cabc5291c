package attackcmd

import (
	"crypto/rand"
	"encoding/base64"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/cli"
	"github.com/overshoot-dev/overshoot/internal/cloudflare"
	"github.com/overshoot-dev/overshoot/internal/kvemu"
)

const (
	emuAccount   = "0123456789abcdef0123456789abcdef"
	emuNamespace = "overshoot0000000000000000000000"
)

// fastClock returns a clock that starts now and runs scale times faster than
// the wall clock, for the emulator: with scale 10 its 1 write/s per key rule
// spans 100 ms of real time, so a test can space writes past it without
// sleeping whole seconds.
func fastClock(scale float64) func() time.Time {
	start := time.Now()
	return func() time.Time {
		return start.Add(time.Duration(float64(time.Since(start)) * scale))
	}
}

// startEmulator serves a Workers KV API emulator on loopback for the test,
// accepting token, and returns its base URL.
func startEmulator(t *testing.T, token string, now func() time.Time) (string, *kvemu.Emulator) {
	t.Helper()
	emu, err := kvemu.New(kvemu.Config{AccountID: emuAccount, Token: token, Namespaces: []string{emuNamespace}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(emu) // 127.0.0.1
	t.Cleanup(srv.Close)
	return srv.URL + kvemu.Prefix, emu
}

// cfEnv sets the two variables the cloudflare store reads, for this test.
func cfEnv(t *testing.T, token, account string) {
	t.Setenv(cloudflare.EnvToken, token)
	t.Setenv(cloudflare.EnvAccount, account)
}

// One caller, one request at a time, spaced past the emulator's write limit.
const cfSequentialYAML = `
name: cf-seq
limiter: {name: t, limit: 5, window: 2s}
traffic:
  - name: bot
    identity: {token: per-client, ip: none}
    closed_loop: {concurrency: 1, think: 150ms}
live: {duration: 2500ms, max_requests: 1000}
`

// One caller as fast as it can: every write after the first within a
// (emulated) second is refused with 429.
const cfHammerYAML = `
name: cf-hammer
limiter: {name: t, limit: 5, window: 10s, error_policy: fail-open}
traffic:
  - name: bot
    identity: {token: per-client, ip: none}
    closed_loop: {concurrency: 1, think: 0s}
live: {duration: 400ms, max_requests: 2000}
`

// TestCloudflareStoreAttack runs attack.Main with -store cloudflare against
// the emulator on loopback, whose clock runs 10x (1 write/s per key = 100 ms).
// It is also the token test: each run's stdout, stderr and every file it
// wrote are searched for the API token.
func TestCloudflareStoreAttack(t *testing.T) {
	// A recognisable token: the runs' output and files must not show it.
	token := "OVERSHOOT-SECRET-" + rand.Text()
	base, emu := startEmulator(t, token, fastClock(10))
	cfEnv(t, token, emuAccount)

	t.Run("sequential caller gets exactly the limit", func(t *testing.T) {
		out := t.TempDir()
		code, stdout, stderr := runMain(t, Env{}, "-out", out, "-store", "cloudflare", "-namespace", emuNamespace,
			"-cf-base-url", base, cliScenario(t, cfSequentialYAML))
		if code != cli.ExitOK {
			t.Fatalf("exit %d; stderr: %s", code, stderr)
		}
		assertNoToken(t, token, out, stdout, stderr)
		s, _ := readSummary(t, out)
		if s.Limiter.Store != string(StoreCloudflare) || !strings.Contains(stdout, "cloudflare KV namespace "+emuNamespace) {
			t.Errorf("store %q, stdout %q: want the cloudflare namespace named", s.Limiter.Store, stdout)
		}
		o := s.Overshoot
		if s.Totals.Requests < 8 || s.Totals.Errors != 0 || s.Totals.FailOpen != 0 {
			t.Fatalf("totals %+v: want >= 8 requests, no errors, no fail-open (writes are 1.5 emulated s apart)", s.Totals)
		}
		// A 2.5 s run over 2 s windows has one window of at least 1.25 s:
		// 150 ms apart, that is more than 5 requests, of which exactly 5 pass.
		if o.MaxAllowed != 5 || o.OverLimit != 0 {
			t.Errorf("most allowed in a window %d, windows over the limit %d; want exactly 5 and none over", o.MaxAllowed, o.OverLimit)
		}
		if s.KV.Writes == 0 || s.KV.Reads < s.Totals.Requests || s.KV.WriteRateLimited != 0 {
			t.Errorf("kv %+v: want a read per request, writes, none rate-limited", s.KV)
		}
	})

	t.Run("429 from the write limit is fail-open", func(t *testing.T) {
		before := emu.Stats().RateLimited
		out := t.TempDir()
		code, stdout, stderr := runMain(t, Env{}, "-out", out, "-json", "-store", "cloudflare", "-namespace", emuNamespace,
			"-cf-base-url", base, cliScenario(t, cfHammerYAML))
		if code != cli.ExitOK {
			t.Fatalf("exit %d; stderr: %s", code, stderr)
		}
		assertNoToken(t, token, out, stdout, stderr)
		s, _ := readSummary(t, out)
		limited := int64(emu.Stats().RateLimited - before)
		if limited == 0 {
			t.Fatal("the emulator refused no write: the caller was not fast enough to hit 1 write/s")
		}
		if s.KV.WriteRateLimited != limited || s.Totals.FailOpen != limited {
			t.Errorf("summary kv.write_rate_limited %d, totals.fail_open %d; want both %d (the emulator's 429s)",
				s.KV.WriteRateLimited, s.Totals.FailOpen, limited)
		}
		if s.Overshoot.MaxAllowed <= 5 {
			t.Errorf("most allowed in a window %d: fail-open on 429 should let more than the limit of 5 through", s.Overshoot.MaxAllowed)
		}
	})

	t.Run("no request bound given: at most 500", func(t *testing.T) {
		// The hammer without live.max_requests, for longer than 500
		// requests take: the default bound stops it (every request is
		// billed API calls on a real namespace).
		yaml := strings.Replace(strings.Replace(cfHammerYAML, ", max_requests: 2000", "", 1), "400ms", "5s", 1)
		out := t.TempDir()
		code, _, stderr := runMain(t, Env{}, "-out", out, "-json", "-store", "cloudflare", "-namespace", emuNamespace,
			"-cf-base-url", base, cliScenario(t, yaml))
		if code != cli.ExitOK {
			t.Fatalf("exit %d; stderr: %s", code, stderr)
		}
		s, _ := readSummary(t, out)
		if s.Totals.Requests != DefaultCloudflareMaxRequests {
			t.Errorf("%d requests, want the default bound of %d", s.Totals.Requests, DefaultCloudflareMaxRequests)
		}
		if !strings.Contains(stderr, "at most 500 requests") {
			t.Errorf("stderr %q does not say the run is bounded", stderr)
		}
	})
}

// TestCloudflareStoreBadInput: a missing variable, a refused token, an
// unknown namespace or an unreachable API is exit 2, a message saying what to
// check, before any load, and nothing written.
func TestCloudflareStoreBadInput(t *testing.T) {
	const token = "cf-bad-input-token"
	base, emu := startEmulator(t, token, nil)
	good := cliScenario(t, sequentialYAML)
	tests := []struct {
		name           string
		token, account string
		args           []string
		want           []string
	}{
		{"no token", "", emuAccount, []string{"-namespace", emuNamespace, "-cf-base-url", base}, []string{cloudflare.EnvToken}},
		{"no account", token, "", []string{"-namespace", emuNamespace, "-cf-base-url", base}, []string{cloudflare.EnvAccount}},
		{"neither", "", "", []string{"-namespace", emuNamespace}, []string{cloudflare.EnvToken, cloudflare.EnvAccount}},
		{"no namespace", token, emuAccount, []string{"-cf-base-url", base}, []string{"-namespace"}},
		{"refused token", "not-the-token-OVERSHOOT-SECRET", emuAccount, []string{"-namespace", emuNamespace, "-cf-base-url", base},
			[]string{"refused the token", cloudflare.EnvToken}},
		{"other account", token, "ffffffffffffffffffffffffffffffff", []string{"-namespace", emuNamespace, "-cf-base-url", base},
			[]string{cloudflare.EnvAccount}},
		{"unknown namespace", token, emuAccount, []string{"-namespace", "nosuchnamespace", "-cf-base-url", base},
			[]string{"nosuchnamespace", "not found", "wrangler kv namespace list"}},
		{"unreachable API", token, emuAccount, []string{"-namespace", emuNamespace, "-cf-base-url", "http://" + closedPort(t) + "/client/v4/"},
			[]string{"cannot reach the Cloudflare API"}},
		{"with -url", token, emuAccount, []string{"-namespace", emuNamespace, "-url", "http://127.0.0.1:1/"}, []string{"-url"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfEnv(t, tc.token, tc.account)
			out := t.TempDir()
			before := emu.Stats()
			args := append([]string{"-out", out, "-store", "cloudflare"}, tc.args...)
			code, stdout, stderr := runMain(t, Env{}, append(args, good)...)
			if code != cli.ExitBadInput {
				t.Errorf("exit %d, want %d; stderr: %s", code, cli.ExitBadInput, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not mention %q", stderr, w)
				}
			}
			if strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr %q: want one line", stderr)
			}
			if f := files(t, out); len(f) > 0 {
				t.Errorf("wrote %v on bad input", f)
			}
			if stdout != "" {
				t.Errorf("stdout %q on bad input", stdout)
			}
			if tc.token != "" && strings.Contains(stderr, tc.token) {
				t.Errorf("stderr %q shows the token", stderr)
			}
			if after := emu.Stats(); after.Writes != before.Writes {
				t.Errorf("%d writes reached the emulator: no load may be sent on bad input", after.Writes-before.Writes)
			}
		})
	}
}

// assertNoToken fails the test when token shows, raw or base64-encoded, in
// stdout, stderr or any file under out (results.bin, summary.json, the
// report and its figures), and when the run wrote no results or summary to
// look in.
func assertNoToken(t *testing.T, token, out, stdout, stderr string) {
	t.Helper()
	needles := []string{token, base64.StdEncoding.EncodeToString([]byte(token)), base64.RawURLEncoding.EncodeToString([]byte(token))}
	check := func(where, text string) {
		t.Helper()
		for _, n := range needles {
			if strings.Contains(text, n) {
				t.Errorf("%s contains the API token (as %q)", where, n)
			}
		}
	}
	check("stdout", stdout)
	check("stderr", stderr)
	names := map[string]bool{}
	written := files(t, out)
	for _, f := range written {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		check(f, string(b))
		names[filepath.Base(f)] = true
	}
	for _, want := range []string{ResultsFileName, "summary.json", "report.html"} {
		if !names[want] {
			t.Errorf("files written %v: no %s, so it was not checked", written, want)
		}
	}
}
