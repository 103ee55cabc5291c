package limiter

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// callerCases is Caller("tok", h) as the seed's JavaScript computes it;
// TestCallerAgainstWorker runs the ASCII rows through the example Worker's
// own callerOf with node.
var callerCases = []struct {
	name string
	h    http.Header
	want string
}{
	{"CF-Connecting-IP wins", http.Header{"Cf-Connecting-Ip": {"9.9.9.9"}, "X-Forwarded-For": {"1.2.3.4"}}, "tok:9.9.9.9"},
	{"CF-Connecting-IP present but empty is not missing", http.Header{"Cf-Connecting-Ip": {""}, "X-Forwarded-For": {"1.2.3.4"}}, "tok:"},
	{"XFF first entry trimmed", http.Header{"X-Forwarded-For": {" 1.2.3.4 , 5.6.7.8"}}, "tok:1.2.3.4"},
	{"XFF single", http.Header{"X-Forwarded-For": {"1.2.3.4"}}, "tok:1.2.3.4"},
	{"XFF present but empty", http.Header{"X-Forwarded-For": {""}}, "tok:"},
	{"XFF empty first entry", http.Header{"X-Forwarded-For": {" , 5.6.7.8"}}, "tok:"},
	{"both missing", http.Header{"User-Agent": {"curl"}}, "tok:unknown"},
	{"nil header", nil, "tok:unknown"},
	{"multiple XFF lines join with a comma", http.Header{"X-Forwarded-For": {"1.1.1.1", "2.2.2.2"}}, "tok:1.1.1.1"},
	{"multiple CF-Connecting-IP lines join with \", \"", http.Header{"Cf-Connecting-Ip": {"1.1.1.1", "2.2.2.2"}}, "tok:1.1.1.1, 2.2.2.2"},
	{"CF-Connecting-IP is not trimmed", http.Header{"Cf-Connecting-Ip": {" 1.1.1.1 "}}, "tok: 1.1.1.1 "},
	{"JS trim strips U+FEFF", http.Header{"X-Forwarded-For": {"\ufeff1.2.3.4\u3000,x"}}, "tok:1.2.3.4"},
	{"JS trim keeps U+0085", http.Header{"X-Forwarded-For": {"\u00851.2.3.4,x"}}, "tok:\u00851.2.3.4"},
}

func TestCaller(t *testing.T) {
	for _, c := range callerCases {
		if got := Caller("tok", c.h); got != c.want {
			t.Errorf("%s: Caller = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestCallerFromWire reads the headers from a real request, so that Go's
// header parsing (canonical names, repeated lines) is part of the test.
func TestCallerFromWire(t *testing.T) {
	raw := "GET / HTTP/1.1\r\nHost: x\r\nx-forwarded-for:  10.0.0.1 ,10.0.0.2\r\nX-Forwarded-For: 10.0.0.3\r\nX-Anon-Token: anon_abc\r\n\r\n"
	r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw)))
	if err != nil {
		t.Fatal(err)
	}
	tok := DefaultTokenSource.Token(r)
	if got := Caller(tok, r.Header); got != "anon_abc:10.0.0.1" {
		t.Errorf("Caller = %q, want anon_abc:10.0.0.1", got)
	}
}

func TestTokenSource(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("X-Anon-Token", "from-header")
	r.Header.Set("X-Empty", "")
	r.AddCookie(&http.Cookie{Name: "anon", Value: "from-cookie"})
	cases := []struct {
		src  TokenSource
		want string
	}{
		{DefaultTokenSource, "from-header"},
		{TokenSource{From: "header", Name: "x-anon-token"}, "from-header"},
		{TokenSource{From: "header", Name: "X-Missing"}, NoToken},
		{TokenSource{From: "header", Name: "X-Empty"}, ""},
		{TokenSource{From: "cookie", Name: "anon"}, "from-cookie"},
		{TokenSource{From: "cookie", Name: "missing"}, NoToken},
	}
	for _, c := range cases {
		if err := c.src.Validate(); err != nil {
			t.Errorf("%+v: Validate: %v", c.src, err)
		}
		if got := c.src.Token(r); got != c.want {
			t.Errorf("%+v: Token = %q, want %q", c.src, got, c.want)
		}
	}
	for _, c := range []struct {
		src  TokenSource
		want string
	}{
		{TokenSource{From: "query", Name: "t"}, `"query" is unknown`},
		{TokenSource{From: "cookie"}, "cookie has no name"},
	} {
		if err := c.src.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: Validate = %v, want an error saying %q", c.src, err, c.want)
		}
	}
}

var refTrimmed = regexp.MustCompile(`(?s)^[` + jsSpace + `]*(.*?)[` + jsSpace + `]*$`)

// FuzzCaller checks the ip part against a plain reading of the seed: never
// a panic, CF-Connecting-IP as it is, else the first X-Forwarded-For entry
// trimmed as String.prototype.trim trims (checked by a regexp).
func FuzzCaller(f *testing.F) {
	f.Add("", false, " 1.2.3.4 , 5.6.7.8", true)
	f.Add("9.9.9.9", true, "", true)
	f.Add("", true, "\ufeff1.2.3.4\u0085,", true)
	f.Add("", false, "\xa0\xff 1.2.3.4\xe2\x80", true)
	f.Fuzz(func(t *testing.T, cf string, hasCF bool, xff string, hasXFF bool) {
		h := http.Header{}
		if hasCF {
			h["Cf-Connecting-Ip"] = []string{cf}
		}
		if hasXFF {
			h["X-Forwarded-For"] = []string{xff}
		}
		want := "unknown"
		switch {
		case hasCF:
			want = cf
		case hasXFF:
			first, _, _ := strings.Cut(xff, ",")
			want = refTrimmed.FindStringSubmatch(first)[1]
		}
		if got := Caller("t", h); got != "t:"+want {
			t.Fatalf("Caller with CF %q (%v) XFF %q (%v) = %q, want %q", cf, hasCF, xff, hasXFF, got, "t:"+want)
		}
	})
}

func TestTokenSourceNames(t *testing.T) {
	for _, tt := range []struct {
		src TokenSource
		ok  bool
	}{
		{TokenSource{From: "header", Name: "X-Anon-Token"}, true},
		{TokenSource{From: "cookie", Name: "anon_token"}, true},
		{TokenSource{From: "header", Name: "bad name"}, false},
		{TokenSource{From: "cookie", Name: "a;b"}, false},
		{TokenSource{From: "header", Name: "X-Tök"}, false},
		{TokenSource{From: "header", Name: ""}, false},
		{TokenSource{From: "query", Name: "t"}, false},
	} {
		if err := tt.src.Validate(); (err == nil) != tt.ok {
			t.Errorf("Validate(%+v) = %v, want ok %v", tt.src, err, tt.ok)
		}
	}
}
