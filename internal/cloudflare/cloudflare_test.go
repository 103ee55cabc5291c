package cloudflare

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/fakeclock"
	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/kvemu"
)

const (
	testAccount   = "0123456789abcdef0123456789abcdef"
	testNamespace = "fedcba9876543210fedcba9876543210"
	testToken     = "s3cr3t-T0KEN-must-never-leak-0123456789"
)

type fixture struct {
	emu   *kvemu.Emulator
	clock *fakeclock.Clock
	srv   *httptest.Server
}

// newFixture starts the emulator on loopback with a fake clock.
func newFixture(t *testing.T, mod func(*kvemu.Config)) *fixture {
	t.Helper()
	clk := fakeclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	cfg := kvemu.Config{AccountID: testAccount, Token: testToken, Namespaces: []string{testNamespace}, Now: clk.Now}
	if mod != nil {
		mod(&cfg)
	}
	emu, err := kvemu.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(emu)
	t.Cleanup(srv.Close)
	return &fixture{emu: emu, clock: clk, srv: srv}
}

func (f *fixture) baseURL() string { return f.srv.URL + kvemu.Prefix }

func (f *fixture) store(t *testing.T, mod func(*Config)) *Store {
	t.Helper()
	cfg := Config{AccountID: testAccount, Token: testToken, NamespaceID: testNamespace, BaseURL: f.baseURL(), HTTPClient: f.srv.Client()}
	if mod != nil {
		mod(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestGetMissing(t *testing.T) {
	s := newFixture(t, nil).store(t, nil)
	v, found, err := s.Get(context.Background(), "missing")
	if err != nil || found || v != "" {
		t.Fatalf("Get(missing) = %q, %v, %v; want \"\", false, nil", v, found, err)
	}
}

func TestPutGet(t *testing.T) {
	f := newFixture(t, nil)
	s := f.store(t, nil)
	ctx := context.Background()
	if err := s.Put(ctx, "rl:default:tok:1.2.3.4:42", "3", 90*time.Second); err != nil {
		t.Fatal(err)
	}
	v, found, err := s.Get(ctx, "rl:default:tok:1.2.3.4:42")
	if err != nil || !found || v != "3" {
		t.Fatalf("Get = %q, %v, %v; want \"3\", true, nil", v, found, err)
	}
	// An empty value is a value, not a missing key.
	f.clock.Advance(time.Second)
	if err := s.Put(ctx, "empty", "", time.Minute); err != nil {
		t.Fatal(err)
	}
	if v, found, err := s.Get(ctx, "empty"); err != nil || !found || v != "" {
		t.Fatalf("Get(empty) = %q, %v, %v", v, found, err)
	}
	if st := f.emu.Stats(); st.Writes != 2 || st.Reads != 2 {
		t.Fatalf("emulator saw %+v, want 2 writes and 2 reads: one request per call, no retries", st)
	}
}

func TestWriteRateLimited(t *testing.T) {
	f := newFixture(t, nil)
	s := f.store(t, nil)
	ctx := context.Background()
	if err := s.Put(ctx, "k", "1", time.Minute); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(500 * time.Millisecond)
	err := s.Put(ctx, "k", "2", time.Minute)
	if !errors.Is(err, kv.ErrWriteRateLimited) {
		t.Fatalf("second write within 1 s: %v, want kv.ErrWriteRateLimited", err)
	}
	if err.Error() != "KV PUT failed: 429 Too Many Requests" {
		t.Fatalf("message %q, want the runtime's", err.Error())
	}
	if st := f.emu.Stats(); st.RateLimited != 1 || st.Writes != 1 {
		t.Fatalf("emulator saw %+v: the 429 must not be retried", st)
	}
	f.clock.Advance(500 * time.Millisecond)
	if err := s.Put(ctx, "k", "2", time.Minute); err != nil {
		t.Fatalf("write a second later: %v", err)
	}
}

func TestInvalidTTL(t *testing.T) {
	s := newFixture(t, nil).store(t, nil)
	for _, ttl := range []time.Duration{30 * time.Second, 59 * time.Second, 59900 * time.Millisecond} {
		err := s.Put(context.Background(), "k", "1", ttl)
		if !errors.Is(err, kv.ErrInvalidTTL) {
			t.Fatalf("ttl %v: %v, want kv.ErrInvalidTTL", ttl, err)
		}
		if want := kv.NewInvalidTTL("k", ttl).Msg; err.Error() != want {
			t.Fatalf("ttl %v: message %q, want %q", ttl, err.Error(), want)
		}
	}
}

func TestExpiry(t *testing.T) {
	f := newFixture(t, nil)
	s := f.store(t, nil)
	ctx := context.Background()
	if err := s.Put(ctx, "k", "1", 60*time.Second); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(59 * time.Second)
	if _, found, err := s.Get(ctx, "k"); err != nil || !found {
		t.Fatalf("before expiry: found=%v err=%v", found, err)
	}
	f.clock.Advance(time.Second)
	if _, found, err := s.Get(ctx, "k"); err != nil || found {
		t.Fatalf("at expiry: found=%v err=%v, want missing", found, err)
	}
}

func TestKeyEscaping(t *testing.T) {
	f := newFixture(t, nil)
	s := f.store(t, nil)
	ctx := context.Background()
	keys := []string{
		"a/b", "a?b", "100%", "with space", "a%2Fb", "a#b", "../x", "a/../b", "..a",
		"rl:n:tok en/x?y:10.0.0.1, 10.0.0.2:123", "é", "+plus", "semi;colon", "comma,x", "tab\tx",
	}
	for i, k := range keys {
		if err := s.Put(ctx, k, fmt.Sprint(i), time.Minute); err != nil {
			t.Fatalf("Put(%q): %v", k, err)
		}
	}
	for i, k := range keys {
		v, found, err := s.Get(ctx, k)
		if err != nil || !found || v != fmt.Sprint(i) {
			t.Fatalf("Get(%q) = %q, %v, %v; want %q: keys collided or were mangled", k, v, found, err, fmt.Sprint(i))
		}
	}
	// "." and ".." must reach the API as keys, not as dot segments of the URL.
	for _, k := range []string{".", ".."} {
		_, _, err := s.Get(ctx, k)
		if err == nil || !strings.Contains(err.Error(), "Illegal key name") {
			t.Fatalf("Get(%q): %v, want the API's illegal key error", k, err)
		}
	}
}

func TestKeyTooLong(t *testing.T) {
	s := newFixture(t, nil).store(t, nil)
	long := strings.Repeat("k", 513)
	if err := s.Put(context.Background(), long, "1", time.Minute); !errors.Is(err, kv.ErrKeyTooLong) {
		t.Fatalf("Put: %v, want kv.ErrKeyTooLong", err)
	}
	if _, _, err := s.Get(context.Background(), long); !errors.Is(err, kv.ErrKeyTooLong) {
		t.Fatalf("Get: %v, want kv.ErrKeyTooLong", err)
	}
}

func TestDailyQuota(t *testing.T) {
	f := newFixture(t, func(c *kvemu.Config) { c.DailyWrites = 1 })
	s := f.store(t, nil)
	ctx := context.Background()
	if err := s.Put(ctx, "a", "1", time.Minute); err != nil {
		t.Fatal(err)
	}
	err := s.Put(ctx, "b", "1", time.Minute)
	if !errors.Is(err, kv.ErrDailyQuota) || err.Error() != "KV put() limit exceeded for the day." {
		t.Fatalf("write past the quota: %v, want kv.ErrDailyQuota", err)
	}
}

func TestRefusals(t *testing.T) {
	f := newFixture(t, nil)
	for _, tc := range []struct {
		name   string
		mod    func(*Config)
		target error
		want   []string
	}{
		{"wrong token", func(c *Config) { c.Token = "wrong-" + testToken }, ErrAuth, []string{"403", "Authentication error", EnvToken, testAccount}},
		{"wrong account", func(c *Config) { c.AccountID = "ffff" }, ErrAuth, []string{"403", EnvToken, "ffff"}},
		{"wrong namespace", func(c *Config) { c.NamespaceID = "nope" }, ErrNamespaceNotFound, []string{"404", "namespace nope not found", "wrangler kv namespace list"}},
		{"wrong base URL", func(c *Config) { c.BaseURL = f.srv.URL + "/elsewhere/" }, nil, []string{"404", "check the base URL"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := f.store(t, tc.mod)
			err := s.Check(context.Background())
			if err == nil {
				t.Fatal("Check passed")
			}
			if !errors.Is(err, kv.ErrUnavailable) {
				t.Fatalf("%v: not kv.ErrUnavailable", err)
			}
			if tc.target != nil && !errors.Is(err, tc.target) {
				t.Fatalf("%v: does not match %v", err, tc.target)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("%q does not say %q", err.Error(), w)
				}
			}
			if strings.Contains(err.Error(), testToken) {
				t.Fatalf("the error contains the token: %q", err.Error())
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("the error is not one line: %q", err.Error())
			}
		})
	}
	if err := f.store(t, nil).Check(context.Background()); err != nil {
		t.Fatalf("Check with the right settings: %v", err)
	}
}

func TestUnreachable(t *testing.T) {
	f := newFixture(t, nil)
	s := f.store(t, nil)
	f.srv.Close()
	_, _, err := s.Get(context.Background(), "k")
	if !errors.Is(err, kv.ErrUnavailable) || !strings.Contains(err.Error(), "cannot reach the Cloudflare API") {
		t.Fatalf("Get on a closed server: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = s.Put(ctx, "k", "1", time.Minute)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, kv.ErrUnavailable) {
		t.Fatalf("Put with a cancelled context: %v, want kv.ErrUnavailable wrapping context.Canceled", err)
	}
}

// TestTokenNeverPrinted formats a config and a store every way a log or a
// report could, and checks the token never shows.
func TestTokenNeverPrinted(t *testing.T) {
	f := newFixture(t, nil)
	cfg := Config{AccountID: testAccount, Token: testToken, NamespaceID: testNamespace, BaseURL: f.baseURL()}
	s := f.store(t, nil)
	var outputs []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d"} {
		outputs = append(outputs, fmt.Sprintf(verb, cfg), fmt.Sprintf(verb, &cfg), fmt.Sprintf(verb, cfg.Token), fmt.Sprintf(verb, s))
	}
	js, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	outputs = append(outputs, string(js), s.String())
	var logged strings.Builder
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("config", "cfg", cfg, "token", cfg.Token)
	slog.New(slog.NewTextHandler(&logged, nil)).Info("config", "cfg", cfg, "token", cfg.Token)
	outputs = append(outputs, logged.String())
	for _, out := range outputs {
		if strings.Contains(out, testToken) || strings.Contains(out, fmt.Sprintf("%x", testToken)) {
			t.Fatalf("the token leaked: %s", out)
		}
	}
	if !strings.Contains(fmt.Sprint(cfg), "[redacted]") {
		t.Fatalf("the config does not show the token as redacted: %v", cfg)
	}
}

// TestTokenNotEchoed covers an API that echoes the token back in its message:
// the store's error must still not contain it.
func TestTokenNotEchoed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"success":false,"errors":[{"code":9999,"message":"bad header %s"}],"messages":[],"result":null}`, r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	s, err := New(Config{AccountID: testAccount, Token: testToken, NamespaceID: testNamespace, BaseURL: srv.URL + "/client/v4/"})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = s.Get(context.Background(), "k")
	if err == nil || strings.Contains(err.Error(), testToken) || !strings.Contains(err.Error(), "[redacted]") {
		t.Fatalf("error %v: want the echoed token redacted", err)
	}
}

func TestConfigFromLookup(t *testing.T) {
	env := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		ns   string
		want []string // substrings of the error; none means success
	}{
		{"both missing", map[string]string{}, "ns", []string{EnvToken, EnvAccount}},
		{"token missing", map[string]string{EnvAccount: "acct"}, "ns", []string{EnvToken}},
		{"token blank", map[string]string{EnvAccount: "acct", EnvToken: "  "}, "ns", []string{EnvToken}},
		{"account missing", map[string]string{EnvToken: testToken}, "ns", []string{EnvAccount}},
		{"namespace missing", map[string]string{EnvToken: testToken, EnvAccount: "acct"}, "", []string{"namespace"}},
		{"namespace is a title", map[string]string{EnvToken: testToken, EnvAccount: "acct"}, "my ns/x", []string{"not an identifier"}},
		{"ok", map[string]string{EnvToken: testToken, EnvAccount: "acct", "CLOUDFLARE_API_KEY": "k", "CLOUDFLARE_BASE_URL": "http://evil"}, "ns", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := ConfigFromLookup(env(tc.env), tc.ns)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				if cfg.AccountID != "acct" || string(cfg.Token) != testToken || cfg.NamespaceID != "ns" || cfg.BaseURL != "" {
					t.Fatalf("cfg = %+v: only the two variables may be read", cfg)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("%q does not name %q", err, w)
				}
			}
			if strings.Contains(err.Error(), testToken) {
				t.Fatalf("the error contains the token: %q", err)
			}
		})
	}
}

// TestEnvIgnored checks that cloudflare-go's own environment variables do not
// reach the requests: no API key header, no other base URL.
func TestEnvIgnored(t *testing.T) {
	t.Setenv("CLOUDFLARE_API_KEY", "legacy-key")
	t.Setenv("CLOUDFLARE_EMAIL", "someone@example.com")
	t.Setenv("CLOUDFLARE_BASE_URL", "http://127.0.0.1:1/")
	var seen http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r.Header.Clone()
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write([]byte("v"))
	}))
	defer srv.Close()
	s, err := New(Config{AccountID: testAccount, Token: testToken, NamespaceID: testNamespace, BaseURL: srv.URL + "/client/v4/"})
	if err != nil {
		t.Fatal(err)
	}
	if v, found, err := s.Get(context.Background(), "k"); err != nil || !found || v != "v" {
		t.Fatalf("Get = %q, %v, %v", v, found, err)
	}
	if seen.Get("X-Auth-Key") != "" || seen.Get("X-Auth-Email") != "" || seen.Get("Authorization") != "Bearer "+testToken {
		t.Fatalf("request headers %v: want only the bearer token", seen)
	}
}

func TestNewValidates(t *testing.T) {
	for _, cfg := range []Config{
		{Token: testToken, NamespaceID: "ns"},
		{AccountID: "a", NamespaceID: "ns"},
		{AccountID: "a", Token: testToken},
		{AccountID: "a", Token: testToken, NamespaceID: "ns", BaseURL: "ftp://x"},
		{AccountID: "a/b", Token: testToken, NamespaceID: "ns"},
	} {
		if _, err := New(cfg); err == nil {
			t.Fatalf("New(%v) accepted an invalid config", cfg)
		} else if strings.Contains(err.Error(), testToken) {
			t.Fatalf("error contains the token: %v", err)
		}
	}
}

func BenchmarkGet(b *testing.B) {
	emu, err := kvemu.New(kvemu.Config{AccountID: testAccount, Token: testToken, Namespaces: []string{testNamespace}})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(emu)
	defer srv.Close()
	s, err := New(Config{AccountID: testAccount, Token: testToken, NamespaceID: testNamespace, BaseURL: srv.URL + kvemu.Prefix, HTTPClient: srv.Client()})
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Put(context.Background(), "bench", "1", time.Minute); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := s.Get(context.Background(), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReadThrottled: a 429 on a read cannot be Workers KV's per-key write
// limit; it is the REST API's request limit, reported as unavailable with
// what to do, not counted as a write-rate-limited write.
func TestReadThrottled(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"success":false,"errors":[{"code":971,"message":"Please wait and consider throttling your request speed"}],"messages":[],"result":null}`)
	}))
	defer srv.Close()
	s, err := New(Config{AccountID: testAccount, Token: testToken, NamespaceID: testNamespace, BaseURL: srv.URL + "/client/v4/"})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = s.Get(context.Background(), "k")
	if kv.KindOf(err) != kv.Unavailable || !strings.Contains(err.Error(), "request rate limit") || !strings.Contains(err.Error(), "-max-requests") {
		t.Fatalf("get answered 429: error %v (kind %v), want unavailable naming the API's request limit", err, kv.KindOf(err))
	}
	if err := s.Put(context.Background(), "k", "1", time.Minute); kv.KindOf(err) != kv.WriteRateLimited {
		t.Fatalf("put answered 429: error %v, want write rate limited", err)
	}
}

// TestRedirectNotFollowed points the store at an API base that answers with a
// redirect to another server on the same host: the store must not follow it
// (that server would receive the token and be measured instead) and must say
// it was redirected, with the client given in the Config as with its own.
func TestRedirectNotFollowed(t *testing.T) {
	f := newFixture(t, nil)
	var mu sync.Mutex
	var reached []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		reached = append(reached, r.Header.Get("Authorization"))
		mu.Unlock()
		f.emu.ServeHTTP(w, r)
	}))
	defer other.Close()
	for _, status := range []int{http.StatusTemporaryRedirect, http.StatusMovedPermanently, http.StatusFound} {
		redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+r.URL.RequestURI(), status)
		}))
		for _, client := range []*http.Client{nil, redirector.Client()} {
			s, err := New(Config{AccountID: testAccount, Token: testToken, NamespaceID: testNamespace, BaseURL: redirector.URL + kvemu.Prefix, HTTPClient: client})
			if err != nil {
				t.Fatal(err)
			}
			_, _, getErr := s.Get(context.Background(), "k")
			putErr := s.Put(context.Background(), "k", "1", time.Minute)
			checkErr := s.Check(context.Background())
			for _, err := range []error{getErr, putErr, checkErr} {
				if !errors.Is(err, kv.ErrUnavailable) || !errors.Is(err, ErrRedirect) || !strings.Contains(err.Error(), "redirect") {
					t.Errorf("status %d: %v, want kv.ErrUnavailable matching ErrRedirect", status, err)
				}
				if err != nil && strings.Contains(err.Error(), testToken) {
					t.Errorf("the token leaked: %v", err)
				}
			}
		}
		if client := redirector.Client(); client.CheckRedirect != nil {
			t.Errorf("New changed the caller's http.Client")
		}
		redirector.Close()
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reached) > 0 {
		t.Fatalf("the redirect was followed %d times (Authorization %q)", len(reached), reached[0])
	}
}

// TestMessageEscaped: an API message with terminal escape sequences comes
// back in the error as text.
func TestMessageEscaped(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"success":false,"errors":[{"code":9999,"message":"bad \u001b[2J\u001b]0;owned\u0007 request"}],"messages":[],"result":null}`)
	}))
	defer srv.Close()
	s, err := New(Config{AccountID: testAccount, Token: testToken, NamespaceID: testNamespace, BaseURL: srv.URL + "/client/v4/"})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = s.Get(context.Background(), "k")
	if err == nil || strings.ContainsAny(err.Error(), "\x1b\x07") || !strings.Contains(err.Error(), `bad \x1b[2J`) {
		t.Fatalf("error %q: want the message's escape sequences as text", err)
	}
}
