package kvemu

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/fakeclock"
)

const (
	testAccount   = "acct0123456789"
	testToken     = "tok-secret-0123456789"
	testNamespace = "ns0123456789"
)

// clock is a settable fake clock.
func newClock() *fakeclock.Clock { return fakeclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)) }

func newEmu(t testing.TB, mod func(*Config)) (*Emulator, *fakeclock.Clock) {
	t.Helper()
	clk := newClock()
	cfg := Config{AccountID: testAccount, Token: testToken, Namespaces: []string{testNamespace}, Now: clk.Now}
	if mod != nil {
		mod(&cfg)
	}
	e, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return e, clk
}

func valuesPath(account, namespace, escapedKey string) string {
	return Prefix + "accounts/" + account + "/storage/kv/namespaces/" + namespace + "/values/" + escapedKey
}

type call struct {
	method, path, token, query, contentType string
	body                                    string
}

type reply struct {
	status int
	body   []byte
	header http.Header
}

func do(e http.Handler, c call) reply {
	target := c.path
	if c.query != "" {
		target += "?" + c.query
	}
	req := httptest.NewRequest(c.method, "http://127.0.0.1"+target, strings.NewReader(c.body))
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.contentType != "" {
		req.Header.Set("Content-Type", c.contentType)
	}
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	return reply{status: rec.Code, body: rec.Body.Bytes(), header: rec.Header()}
}

// errorOf decodes a failure envelope and returns its one code and message.
func errorOf(t testing.TB, r reply) (int, string) {
	t.Helper()
	var env struct {
		Success  *bool `json:"success"`
		Errors   []responseInfo
		Messages []responseInfo
		Result   any
	}
	if err := json.Unmarshal(r.body, &env); err != nil {
		t.Fatalf("status %d: body is not a JSON envelope: %v: %q", r.status, err, r.body)
	}
	if env.Success == nil || *env.Success || len(env.Errors) != 1 || env.Messages == nil || env.Result != nil {
		t.Fatalf("status %d: not a failure envelope with one error: %s", r.status, r.body)
	}
	return env.Errors[0].Code, env.Errors[0].Message
}

func put(key, value, query string) call {
	return call{method: http.MethodPut, path: valuesPath(testAccount, testNamespace, url.PathEscape(key)), token: testToken, query: query, body: value}
}

func get(key string) call {
	return call{method: http.MethodGet, path: valuesPath(testAccount, testNamespace, url.PathEscape(key)), token: testToken}
}

func TestNewRejectsIncompleteConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"no account", Config{Token: "t", Namespaces: []string{"n"}}},
		{"no token", Config{AccountID: "a", Namespaces: []string{"n"}}},
		{"no namespaces", Config{AccountID: "a", Token: "t"}},
		{"slash in namespace", Config{AccountID: "a", Token: "t", Namespaces: []string{"a/b"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := New(tc.cfg); err == nil {
				t.Fatal("New accepted an incomplete config")
			}
		})
	}
}

func TestErrors(t *testing.T) {
	long := strings.Repeat("k", 513)
	for _, tc := range []struct {
		name   string
		call   call
		status int
		code   int
		msg    string // substring
	}{
		{"missing key", get("nope"), 404, CodeKeyNotFound, "key not found"},
		{"no token", call{method: "GET", path: valuesPath(testAccount, testNamespace, "k")}, 403, CodeAuthentication, "Authentication error"},
		{"wrong token", call{method: "GET", path: valuesPath(testAccount, testNamespace, "k"), token: "wrong"}, 403, CodeAuthentication, "Authentication error"},
		{"other account", call{method: "GET", path: valuesPath("other", testNamespace, "k"), token: testToken}, 403, CodeAuthentication, "Authentication error"},
		{"unknown namespace get", call{method: "GET", path: valuesPath(testAccount, "nons", "k"), token: testToken}, 404, CodeNamespaceNotFound, "namespace not found"},
		{"unknown namespace put", call{method: "PUT", path: valuesPath(testAccount, "nons", "k"), token: testToken, body: "1"}, 404, CodeNamespaceNotFound, "namespace not found"},
		{"no route", call{method: "GET", path: "/client/v4/accounts/" + testAccount + "/workers", token: testToken}, 404, CodeNoRoute, "No route"},
		{"empty key", call{method: "GET", path: valuesPath(testAccount, testNamespace, ""), token: testToken}, 404, CodeNoRoute, "No route"},
		{"method", call{method: "POST", path: valuesPath(testAccount, testNamespace, "k"), token: testToken}, 405, CodeMethodNotAllowed, "Method not allowed"},
		{"ttl 30", put("k", "1", "expiration_ttl=30"), 400, CodeInvalidExpirationTTL, "Invalid expiration_ttl of 30. Expiration TTL must be at least 60."},
		{"ttl 59", put("k", "1", "expiration_ttl=59"), 400, CodeInvalidExpirationTTL, "Invalid expiration_ttl of 59. Expiration TTL must be at least 60."},
		{"ttl 0", put("k", "1", "expiration_ttl=0"), 400, CodeInvalidExpirationTTL, "Please specify integer greater than 0."},
		{"ttl text", put("k", "1", "expiration_ttl=abc"), 400, CodeInvalidExpirationTTL, "Invalid expiration_ttl of abc."},
		{"ttl fraction", put("k", "1", "expiration_ttl=60.5"), 400, CodeInvalidExpirationTTL, "integer"},
		{"expiration past", put("k", "1", "expiration=1000"), 400, CodeInvalidExpiration, "Invalid expiration of 1000."},
		{"expiration soon", put("k", "1", fmt.Sprintf("expiration=%d", newClock().Now().Unix()+30)), 400, CodeInvalidExpiration, "at least 60 seconds in the future"},
		{"key too long get", get(long), 414, CodeKeyTooLong, "UTF-8 encoded length of 513 exceeds key length limit of 512."},
		{"key too long put", put(long, "1", "expiration_ttl=60"), 414, CodeKeyTooLong, "exceeds key length limit"},
		{"dot key", call{method: "GET", path: valuesPath(testAccount, testNamespace, "%2E"), token: testToken}, 400, CodeIllegalKeyName, "Illegal key name"},
		{"multipart without value", call{method: "PUT", path: valuesPath(testAccount, testNamespace, "k"), token: testToken,
			contentType: "multipart/form-data; boundary=xyz", body: "--xyz\r\nContent-Disposition: form-data; name=\"metadata\"\r\n\r\n{}\r\n--xyz--\r\n"}, 400, CodeMalformedValue, "no \"value\" part"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newEmu(t, nil)
			r := do(e, tc.call)
			if r.status != tc.status {
				t.Fatalf("status = %d, want %d (%s)", r.status, tc.status, r.body)
			}
			code, msg := errorOf(t, r)
			if code != tc.code || !strings.Contains(msg, tc.msg) {
				t.Fatalf("error = %d %q, want %d containing %q", code, msg, tc.code, tc.msg)
			}
			if strings.Contains(string(r.body), testToken) {
				t.Fatalf("the reply contains the token: %s", r.body)
			}
		})
	}
}

func TestPutGetRawAndMultipart(t *testing.T) {
	e, clk := newEmu(t, nil)
	if r := do(e, put("raw", "v1", "expiration_ttl=120")); r.status != 200 {
		t.Fatalf("raw put: %d %s", r.status, r.body)
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("value", "v2")
	_ = mw.WriteField("metadata", `{"a":1}`)
	_ = mw.Close()
	c := put("form", buf.String(), "")
	c.contentType = mw.FormDataContentType()
	r := do(e, c)
	if r.status != 200 {
		t.Fatalf("multipart put: %d %s", r.status, r.body)
	}
	var env envelope
	if err := json.Unmarshal(r.body, &env); err != nil || !env.Success || len(env.Errors) != 0 {
		t.Fatalf("put reply is not a success envelope: %s", r.body)
	}
	for key, want := range map[string]string{"raw": "v1", "form": "v2"} {
		r := do(e, get(key))
		if r.status != 200 || string(r.body) != want {
			t.Fatalf("get %s = %d %q, want 200 %q", key, r.status, r.body, want)
		}
	}
	if got, want := do(e, get("raw")).header.Get("Expiration"), fmt.Sprint(clk.Now().Unix()+120); got != want {
		t.Fatalf("Expiration header = %q, want %q", got, want)
	}
	if got := do(e, get("form")).header.Get("Expiration"); got != "" {
		t.Fatalf("a key without TTL has Expiration %q", got)
	}
	if s := e.Stats(); s.Writes != 2 || s.Reads != 4 {
		t.Fatalf("stats = %+v, want 2 writes and 4 reads", s)
	}
}

func TestWriteLimitOnePerSecondPerKey(t *testing.T) {
	e, clk := newEmu(t, nil)
	steps := []struct {
		advance time.Duration
		key     string
		status  int
	}{
		{0, "a", 200},
		{0, "b", 200},                      // another key is not limited
		{999 * time.Millisecond, "a", 429}, // within the second
		{0, "a", 429},                      // a refused write does not move the window
		{time.Millisecond, "a", 200},       // a full second after the last accepted write
		{500 * time.Millisecond, "a", 429},
	}
	for i, s := range steps {
		clk.Advance(s.advance)
		r := do(e, put(s.key, fmt.Sprint(i), "expiration_ttl=60"))
		if r.status != s.status {
			t.Fatalf("step %d: put %s = %d, want %d (%s)", i, s.key, r.status, s.status, r.body)
		}
		if r.status == 429 {
			if code, _ := errorOf(t, r); code != CodeTooManyRequests {
				t.Fatalf("step %d: code %d, want %d", i, code, CodeTooManyRequests)
			}
		}
	}
	if got := string(do(e, get("a")).body); got != "4" {
		t.Fatalf("value = %q, want the last accepted write \"4\"", got)
	}
	if s := e.Stats(); s.RateLimited != 3 {
		t.Fatalf("RateLimited = %d, want 3", s.RateLimited)
	}
}

func TestExpiry(t *testing.T) {
	e, clk := newEmu(t, nil)
	do(e, put("ttl", "1", "expiration_ttl=60"))
	do(e, put("abs", "1", fmt.Sprintf("expiration=%d", clk.Now().Unix()+90)))
	do(e, put("both", "1", fmt.Sprintf("expiration_ttl=60&expiration=%d", clk.Now().Unix()+900)))
	clk.Advance(59 * time.Second)
	for _, k := range []string{"ttl", "abs", "both"} {
		if r := do(e, get(k)); r.status != 200 {
			t.Fatalf("%s before expiry: %d", k, r.status)
		}
	}
	clk.Advance(time.Second)
	for k, want := range map[string]int{"ttl": 404, "both": 404, "abs": 200} {
		if r := do(e, get(k)); r.status != want {
			t.Fatalf("%s at 60 s: %d, want %d", k, r.status, want)
		}
	}
	clk.Advance(30 * time.Second)
	if r := do(e, get("abs")); r.status != 404 {
		t.Fatalf("abs at 90 s: %d, want 404", r.status)
	}
	// A put restarts the TTL.
	do(e, put("renew", "1", "expiration_ttl=60"))
	clk.Advance(50 * time.Second)
	do(e, put("renew", "2", "expiration_ttl=60"))
	clk.Advance(50 * time.Second)
	if r := do(e, get("renew")); r.status != 200 || string(r.body) != "2" {
		t.Fatalf("renewed key: %d %q", r.status, r.body)
	}
}

func TestDelete(t *testing.T) {
	e, clk := newEmu(t, nil)
	del := call{method: http.MethodDelete, path: valuesPath(testAccount, testNamespace, "k"), token: testToken}
	do(e, put("k", "1", ""))
	if r := do(e, del); r.status != 429 {
		t.Fatalf("delete within a second of the write: %d, want 429", r.status)
	}
	clk.Advance(time.Second)
	if r := do(e, del); r.status != 200 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	if r := do(e, get("k")); r.status != 404 {
		t.Fatalf("get after delete: %d", r.status)
	}
}

func TestDailyQuota(t *testing.T) {
	e, clk := newEmu(t, func(c *Config) { c.DailyWrites = 2; c.DailyReads = 3 })
	clk.Advance(11*time.Hour + 59*time.Minute) // 23:59 UTC
	do(e, put("a", "1", ""))
	do(e, put("b", "1", ""))
	r := do(e, put("c", "1", ""))
	if code, msg := errorOf(t, r); r.status != 429 || code != CodeDailyQuota || msg != "KV put() limit exceeded for the day." {
		t.Fatalf("third write: %d %d %q", r.status, code, msg)
	}
	for i := 0; i < 3; i++ {
		do(e, get("a"))
	}
	if r := do(e, get("a")); r.status != 429 || !strings.Contains(string(r.body), "KV get() limit exceeded for the day.") {
		t.Fatalf("fourth read: %d %s", r.status, r.body)
	}
	clk.Advance(time.Minute) // 00:00 UTC: the quotas reset
	if r := do(e, put("c", "1", "")); r.status != 200 {
		t.Fatalf("write after midnight: %d %s", r.status, r.body)
	}
	if r := do(e, get("a")); r.status != 200 {
		t.Fatalf("read after midnight: %d %s", r.status, r.body)
	}
}

// TestTooLarge checks that an oversized value or metadata is refused with
// its real length, raw or in a multipart form.
func TestTooLarge(t *testing.T) {
	form := func(name string, n int) call {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		_ = mw.WriteField(name, strings.Repeat("x", n))
		if name != "value" {
			_ = mw.WriteField("value", "1")
		}
		_ = mw.Close()
		c := put("big", buf.String(), "")
		c.contentType = mw.FormDataContentType()
		return c
	}
	for _, tc := range []struct {
		name string
		call call
		msg  string
	}{
		{"raw, one byte over", put("big", strings.Repeat("x", MaxValueBytes+1), ""),
			fmt.Sprintf("Value length of %d exceeds limit of %d.", MaxValueBytes+1, MaxValueBytes)},
		{"raw, 1000 bytes over", put("big", strings.Repeat("x", MaxValueBytes+1000), ""),
			fmt.Sprintf("Value length of %d exceeds limit of %d.", MaxValueBytes+1000, MaxValueBytes)},
		{"raw, past what is read", put("big", strings.Repeat("x", maxBodyBytes+10), ""),
			fmt.Sprintf("Value length of more than %d exceeds limit of %d.", maxBodyBytes, MaxValueBytes)},
		{"multipart value", form("value", MaxValueBytes+1000),
			fmt.Sprintf("Value length of %d exceeds limit of %d.", MaxValueBytes+1000, MaxValueBytes)},
		{"multipart metadata", form("metadata", 2000), "Metadata length of 2000 exceeds limit of 1024."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newEmu(t, nil)
			r := do(e, tc.call)
			code, msg := errorOf(t, r)
			if r.status != 413 || code != CodePayloadTooLarge || msg != tc.msg {
				t.Fatalf("got %d %d %q, want 413 %d %q", r.status, code, msg, CodePayloadTooLarge, tc.msg)
			}
		})
	}
}

// TestBearerScheme checks that the scheme of the Authorization header is
// matched case-insensitively and may be followed by several spaces (RFC
// 9110, sections 11.1 and 11.4), while the token itself is exact.
func TestBearerScheme(t *testing.T) {
	for _, tc := range []struct {
		header string
		status int
	}{
		{"Bearer " + testToken, 200},
		{"bearer " + testToken, 200},
		{"BEARER " + testToken, 200},
		{"bEaReR " + testToken, 200},
		{"Bearer   " + testToken, 200},
		{"Bearer " + strings.ToUpper(testToken), 403},
		{"Bearer" + testToken, 403},
		{"Bearer", 403},
		{"Basic " + testToken, 403},
		{"Bearers " + testToken, 403},
		{testToken, 403},
		{"Bearer " + testToken + " ", 403},
	} {
		t.Run(tc.header, func(t *testing.T) {
			e, _ := newEmu(t, nil)
			req := httptest.NewRequest(http.MethodPut, "http://127.0.0.1"+valuesPath(testAccount, testNamespace, "k"), strings.NewReader("1"))
			req.Header.Set("Authorization", tc.header)
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Fatalf("Authorization %q: status %d, want %d (%s)", tc.header, rec.Code, tc.status, rec.Body)
			}
		})
	}
}

// TestBadEscapeOverHTTP sends requests net/http cannot parse over a real
// connection: the emulator, served on Listener, answers them with the API's
// envelope and says what to do, where bare net/http answers in plain text.
func TestBadEscapeOverHTTP(t *testing.T) {
	e, _ := newEmu(t, nil)
	srv := httptest.NewUnstartedServer(e)
	srv.Listener = Listener(srv.Listener)
	srv.Start()
	defer srv.Close()
	good := valuesPath(testAccount, testNamespace, "k")
	for _, tc := range []struct {
		name, request string
		status        int
		msg           string // substring
	}{
		{"bad escape in the key", "GET " + valuesPath(testAccount, testNamespace, "a%zz") + " HTTP/1.1\r\nHost: x\r\n\r\n", 400, "write '%' in a key as %25"},
		{"lone percent", "PUT " + valuesPath(testAccount, testNamespace, "100%") + " HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\n1", 400, "two hex digits"},
		{"no Host", "GET " + good + " HTTP/1.1\r\n\r\n", 400, "missing required Host header"},
		{"malformed header", "GET " + good + " HTTP/1.1\r\nHost: x\r\nno colon\r\n\r\n", 400, "could not parse the request"},
		{"a good request still works", "GET " + good + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + testToken + "\r\nConnection: close\r\n\r\n", 404, "key not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, tc.request); err != nil {
				t.Fatal(err)
			}
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("reading the answer: %v", err)
			}
			body, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != tc.status || res.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("status %d, Content-Type %q, want %d and application/json: %s", res.StatusCode, res.Header.Get("Content-Type"), tc.status, body)
			}
			if _, msg := errorOf(t, reply{status: res.StatusCode, body: body}); !strings.Contains(msg, tc.msg) {
				t.Fatalf("message %q does not say %q", msg, tc.msg)
			}
		})
	}
}

// TestOverHTTP runs the emulator behind a real loopback server, where the
// request path goes through net/http's parsing.
func TestOverHTTP(t *testing.T) {
	e, _ := newEmu(t, nil)
	srv := httptest.NewServer(e)
	defer srv.Close()
	key := "a/b?c%d e#f"
	u := srv.URL + valuesPath(testAccount, testNamespace, url.PathEscape(key)) + "?expiration_ttl=60"
	req, _ := http.NewRequest(http.MethodPut, u, strings.NewReader("v"))
	req.Header.Set("Authorization", "Bearer "+testToken)
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("put: %d", res.StatusCode)
	}
	// The stored key is the decoded one.
	if r := do(e, get(key)); r.status != 200 || string(r.body) != "v" {
		t.Fatalf("get %q: %d %q", key, r.status, r.body)
	}
}

// FuzzKeyRoundTrip checks that any valid key, escaped as a client escapes it,
// is stored under exactly that key and read back.
func FuzzKeyRoundTrip(f *testing.F) {
	for _, k := range []string{"k", "a/b", "a?b", "100%", "sp ace", "rl:x:tok:127.0.0.1:29933753", "é", "a%2Fb", "..a", "+", "a#b", "\x00"} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, key string) {
		e, _ := newEmu(t, nil)
		r := do(e, call{method: http.MethodPut, path: valuesPath(testAccount, testNamespace, url.PathEscape(key)), token: testToken, body: "v:" + key})
		switch {
		case key == "":
			if r.status != 404 {
				t.Fatalf("empty key: %d", r.status)
			}
			return
		case len(key) > 512:
			if r.status != 414 {
				t.Fatalf("long key: %d", r.status)
			}
			return
		case key == "." || key == "..":
			if r.status != 400 {
				t.Fatalf("dot key: %d", r.status)
			}
			return
		}
		if r.status != 200 {
			t.Fatalf("put %q: %d %s", key, r.status, r.body)
		}
		g := do(e, get(key))
		if g.status != 200 || string(g.body) != "v:"+key {
			t.Fatalf("get %q: %d %q", key, g.status, g.body)
		}
	})
}

// FuzzServePath sends arbitrary paths, queries and bodies: the emulator must
// never panic, and every failure must be a well-formed envelope.
func FuzzServePath(f *testing.F) {
	f.Add("PUT", valuesPath(testAccount, testNamespace, "k"), "expiration_ttl=60", "1")
	f.Add("GET", valuesPath(testAccount, testNamespace, "a%2F%3F"), "", "")
	f.Add("DELETE", "/client/v4/accounts//storage/kv/namespaces//values/", "", "")
	f.Add("PUT", valuesPath(testAccount, testNamespace, "%"), "expiration_ttl=1e400", "")
	f.Add("GET", "/client/v4/accounts/"+testAccount+"/storage/kv/namespaces/"+testNamespace+"/values/a/values/b", "", "")
	f.Fuzz(func(t *testing.T, method, path, query, body string) {
		u, err := url.Parse("http://127.0.0.1" + path)
		if err != nil || !strings.HasPrefix(path, "/") {
			return
		}
		u.RawQuery = query
		req := &http.Request{Method: method, URL: u, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(body)), Host: "127.0.0.1"}
		req.Header.Set("Authorization", "Bearer "+testToken)
		e, _ := newEmu(t, nil)
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		if rec.Code == 200 {
			return
		}
		errorOf(t, reply{status: rec.Code, body: rec.Body.Bytes()})
	})
}

func BenchmarkPutGet(b *testing.B) {
	e, clk := newEmu(b, nil)
	for i := 0; b.Loop(); i++ {
		clk.Advance(time.Second)
		do(e, put("bench", "1", "expiration_ttl=60"))
		do(e, get("bench"))
	}
}

func TestCheckLoopback(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:8787": true, "[::1]:8787": true, "localhost:8787": true, "127.0.0.2:1": true,
		":8787": false, "0.0.0.0:8787": false, "[::]:8787": false, "10.0.0.1:8787": false,
		"example.com:8787": false, "127.0.0.1": false, "": false,
	} {
		if err := CheckLoopback(addr); (err == nil) != ok {
			t.Errorf("CheckLoopback(%q) = %v, want ok=%v", addr, err, ok)
		}
	}
}
