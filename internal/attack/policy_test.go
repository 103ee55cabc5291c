package attack

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

func TestParsePolicy(t *testing.T) {
	tests := []struct {
		in     string
		limit  int64
		window time.Duration
	}{
		{`"default";q=5;w=10`, 5, 10 * time.Second},
		{`"roast";q=100;w=86400, "burst";q=10;w=1`, 100, 24 * time.Hour},
		{`"x"; w=0.5; q=3`, 3, 500 * time.Millisecond},
		{`"100-in-1min"; q=100; w=60; pk=:MmI4ZDU3:`, 100, time.Minute}, // express-rate-limit draft-8
		{`100;w=60`, 100, time.Minute},                                  // drafts 6 and 7
		{` 7 ; w=2, 100;w=3600`, 7, 2 * time.Second},
		{`"x";q=5`, 0, 0},
		{`"x";w=60`, 0, 0},
		{`"x";q=-5;w=60`, 0, 0},
		{`-5;w=60`, 0, 0},
		{`"x";q=abc;w=60`, 0, 0},
		{`"x";q=5;w=0.0001`, 0, 0},
		{`"x";q=5;w=1e10`, 0, 0},
		{``, 0, 0},
		{`q=5;w=10`, 0, 0},
	}
	for _, tc := range tests {
		l, w := ParsePolicy(tc.in)
		if l != tc.limit || w != tc.window {
			t.Errorf("ParsePolicy(%q) = %d, %v; want %d, %v", tc.in, l, w, tc.limit, tc.window)
		}
	}
}

func TestRemaining(t *testing.T) {
	tests := []struct {
		in   string
		n    int64
		says bool
	}{
		{`"default";r=4;t=10`, 4, true},
		{`"default";t=10; r=0`, 0, true},
		{`"a";r=99999999999999999999`, 0, false},
		{`"a";r=7, "b";r=1`, 7, true},
		{`"a";t=3, "b";r=1`, 0, false},
		{`"a";r=`, 0, false},
		{``, 0, false},
	}
	for _, tc := range tests {
		if n, says := remaining(tc.in); n != tc.n || says != tc.says {
			t.Errorf("remaining(%q) = %d, %v; want %d, %v", tc.in, n, says, tc.n, tc.says)
		}
	}
}

// now is the arrival time of the responses in TestReadLimits.
var now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// TestReadLimits reads every dialect as the servers that speak it send it.
func TestReadLimits(t *testing.T) {
	tests := []struct {
		name string
		h    http.Header
		want Limits
	}{
		{"none", http.Header{"Content-Type": {"text/plain"}}, Limits{}},
		{"IETF draft 8 (overshoot's target)", http.Header{
			"Ratelimit-Policy": {`"default";q=5;w=10`}, "Ratelimit": {`"default";r=3;t=7`}},
			Limits{Limit: 5, Window: 10 * time.Second, Source: "RateLimit-Policy", Remaining: 3, HasRemaining: true, Reset: 7 * time.Second, HasReset: true}},
		{"express-rate-limit draft-8", http.Header{
			"Ratelimit-Policy": {`"5-in-2sec"; q=5; w=2; pk=:ZmU2OTk3:`}, "Ratelimit": {`"5-in-2sec"; r=0; t=2`}},
			Limits{Limit: 5, Window: 2 * time.Second, Source: "RateLimit-Policy", Remaining: 0, HasRemaining: true, Reset: 2 * time.Second, HasReset: true}},
		{"draft 7", http.Header{
			"Ratelimit-Policy": {`100;w=60`}, "Ratelimit": {`limit=100, remaining=42, reset=17`}},
			Limits{Limit: 100, Window: time.Minute, Source: "RateLimit-Policy", Remaining: 42, HasRemaining: true, Reset: 17 * time.Second, HasReset: true}},
		{"draft 7 without a policy", http.Header{"Ratelimit": {`limit=100, remaining=0, reset=5`}},
			Limits{Limit: 100, Source: "RateLimit", Remaining: 0, HasRemaining: true, Reset: 5 * time.Second, HasReset: true}},
		{"draft 6 (express-rate-limit)", http.Header{
			"Ratelimit-Policy": {`5;w=2`}, "Ratelimit-Limit": {"5"}, "Ratelimit-Remaining": {"4"}, "Ratelimit-Reset": {"2"}},
			Limits{Limit: 5, Window: 2 * time.Second, Source: "RateLimit-Policy", Remaining: 4, HasRemaining: true, Reset: 2 * time.Second, HasReset: true}},
		{"draft 3 quota policy in the limit field", http.Header{
			"Ratelimit-Limit": {"10, 10;w=1, 1000;w=3600"}, "Ratelimit-Remaining": {"9"}, "Ratelimit-Reset": {"1"}},
			Limits{Limit: 10, Window: time.Second, Source: "RateLimit-Limit", Remaining: 9, HasRemaining: true, Reset: time.Second, HasReset: true}},
		{"Kong", http.Header{
			"Ratelimit-Limit": {"5"}, "Ratelimit-Remaining": {"2"}, "Ratelimit-Reset": {"38"},
			"X-Ratelimit-Limit-Minute": {"5"}, "X-Ratelimit-Remaining-Minute": {"2"}, "X-Ratelimit-Limit-Hour": {"100"}},
			Limits{Limit: 5, Window: time.Minute, Source: "RateLimit-Limit", Remaining: 2, HasRemaining: true, Reset: 38 * time.Second, HasReset: true}},
		{"Kong's unit fields alone", http.Header{"X-Ratelimit-Limit-Hour": {"100"}, "X-Ratelimit-Limit-Second": {"3"}},
			Limits{Limit: 3, Window: time.Second, Source: "X-RateLimit-Limit-Second"}},
		{"GitHub: the reset is a Unix time", http.Header{
			"X-Ratelimit-Limit": {"60"}, "X-Ratelimit-Remaining": {"56"}, "X-Ratelimit-Used": {"4"},
			"X-Ratelimit-Reset": {fmt.Sprint(now.Unix() + 1800)}, "X-Ratelimit-Resource": {"core"}},
			Limits{Limit: 60, Source: "X-RateLimit-Limit", Remaining: 56, HasRemaining: true, Reset: 30 * time.Minute, HasReset: true}},
		{"a Unix reset in milliseconds", http.Header{"X-Ratelimit-Remaining": {"1"}, "X-Ratelimit-Reset": {fmt.Sprint(now.UnixMilli() + 2500)}},
			Limits{Remaining: 1, HasRemaining: true, Reset: 2500 * time.Millisecond, HasReset: true}},
		{"a Unix reset already past", http.Header{"X-Ratelimit-Reset": {fmt.Sprint(now.Unix() - 5)}},
			Limits{HasReset: true}},
		{"Envoy: seconds, the window in the limit field", http.Header{
			"X-Ratelimit-Limit": {`10, 10;w=60;name="per-user"`}, "X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"45"}},
			Limits{Limit: 10, Window: time.Minute, Source: "X-RateLimit-Limit", Remaining: 0, HasRemaining: true, Reset: 45 * time.Second, HasReset: true}},
		{"Retry-After seconds", http.Header{"Retry-After": {"120"}}, Limits{Reset: 2 * time.Minute, HasReset: true}},
		{"Retry-After an HTTP date", http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}},
			Limits{Reset: 90 * time.Second, HasReset: true}},
		{"a reset field wins over Retry-After", http.Header{"Ratelimit-Reset": {"3"}, "Retry-After": {"9"}},
			Limits{Reset: 3 * time.Second, HasReset: true}},
		{"the IETF fields win over the legacy ones", http.Header{
			"Ratelimit-Policy": {`5;w=2`}, "Ratelimit-Remaining": {"4"}, "X-Ratelimit-Limit": {"9"}, "X-Ratelimit-Remaining": {"8"}},
			Limits{Limit: 5, Window: 2 * time.Second, Source: "RateLimit-Policy", Remaining: 4, HasRemaining: true}},
		{"a field that does not parse falls through", http.Header{
			"Ratelimit-Remaining": {"many"}, "X-Ratelimit-Remaining": {"3"}, "Ratelimit-Reset": {"-1"}, "Retry-After": {"soon"}},
			Limits{Remaining: 3, HasRemaining: true}},
		{"a remaining below zero is stated", http.Header{"X-Ratelimit-Remaining": {"-2"}}, Limits{Remaining: -2, HasRemaining: true}},
		{"bounds", http.Header{"X-Ratelimit-Limit": {"0"}, "Ratelimit-Reset": {"99999999999"}, "Retry-After": {"Fri, 31 Dec 9999 23:59:59 GMT"}},
			Limits{Reset: time.Duration(maxSeconds) * time.Second, HasReset: true}},
	}
	for _, tc := range tests {
		if got := ReadLimits(tc.h, now); got != tc.want {
			t.Errorf("%s: ReadLimits(%v)\n = %+v\nwant %+v", tc.name, tc.h, got, tc.want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		says bool
	}{
		{"0", 0, true},
		{" 30 ", 30 * time.Second, true},
		{"Tue, 01 Dec 2026 12:00:10 GMT", 10 * time.Second, true},
		{"Tuesday, 01-Dec-26 12:00:10 GMT", 10 * time.Second, true}, // RFC 850
		{"Tue Dec  1 12:00:10 2026", 10 * time.Second, true},        // ANSI C
		{"Tue, 01 Dec 2026 11:00:00 GMT", 0, true},                  // past
		{"-5", 0, false},
		{"1.5", 0, false},
		{"", 0, false},
		{"tomorrow", 0, false},
	}
	for _, tc := range tests {
		if d, says := RetryAfter(tc.in, now); d != tc.want || says != tc.says {
			t.Errorf("RetryAfter(%q) = %v, %v; want %v, %v", tc.in, d, says, tc.want, tc.says)
		}
	}
}

func TestParseDenyStatus(t *testing.T) {
	tests := []struct {
		in   string
		want []int
		err  string
	}{
		{"429", []int{429}, ""},
		{"503, 429,429", []int{429, 503}, ""},
		{"403,503", []int{403, 503}, ""},
		{"", nil, `"" is not an HTTP status`},
		{"429,", nil, `"" is not an HTTP status`},
		{"4294967725", nil, `"4294967725" is not an HTTP status`},
		{"+429", nil, `"+429" is not an HTTP status`},
		{"99", nil, "99 is not an HTTP status (100-599)"},
		{"600", nil, "600 is not an HTTP status (100-599)"},
		{"200", nil, "200 is a success"},
		{"429,204", nil, "204 is a success"},
	}
	for _, tc := range tests {
		got, err := ParseDenyStatus(tc.in)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if !slices.Equal(got, tc.want) || (tc.err == "") != (err == nil) || !contains(msg, tc.err) {
			t.Errorf("ParseDenyStatus(%q) = %v, %v; want %v, an error containing %q", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// TestAccountDecisions: the accountant takes denials from the statuses it
// is given and from any dialect's remaining, and reads the remaining of an
// allowed response in any dialect.
func TestAccountDecisions(t *testing.T) {
	type resp struct {
		code uint16
		h    http.Header
	}
	x := func(rem string) http.Header { return http.Header{"X-Ratelimit-Remaining": {rem}} }
	tests := []struct {
		name                    string
		deny                    []int
		resps                   []resp
		allowed, denied, errors int64
		readGroup               int64 // most allowed of a window that read the same count
	}{
		{"429 alone by default", nil, []resp{{200, nil}, {429, nil}, {503, nil}}, 1, 1, 1, 0},
		{"-deny-status 429,503", []int{429, 503}, []resp{{200, nil}, {429, nil}, {503, nil}, {500, nil}}, 1, 2, 1, 0},
		{"-deny-status 503 alone", []int{503}, []resp{{429, nil}, {503, nil}}, 0, 1, 1, 0},
		{"another status whose legacy fields say nothing remains", nil, []resp{{403, x("0")}, {403, x("2")}}, 0, 1, 1, 0},
		{"a draft 7 remaining of 0 on a 503", nil, []resp{{503, http.Header{"Ratelimit": {"limit=5, remaining=0, reset=3"}}}}, 0, 1, 0, 0},
		{"no response is an error whatever it says", []int{429}, []resp{{0, x("0")}}, 0, 0, 1, 0},
		// Two allowed responses that both say 4 remain read the same count.
		{"remaining read from X-RateLimit-Remaining", nil, []resp{{200, x("4")}, {200, x("4")}}, 2, 0, 0, 2},
		{"remaining read from RateLimit-Remaining", nil, []resp{{200, http.Header{"Ratelimit-Remaining": {"3"}}}, {200, http.Header{"Ratelimit-Remaining": {"3"}}}}, 2, 0, 0, 2},
	}
	for _, tc := range tests {
		start := time.Unix(1_800_000_000, 0)
		a := newAccountant(newTestRecorder(start), map[string]int{"bot": 0}, 1, 10*time.Second, DefaultSkew, start, tc.deny)
		for i, r := range tc.resps {
			h := r.h.Clone()
			if h == nil {
				h = http.Header{}
			}
			h.Set("X-Overshoot-Window", "1")
			a.add(&vegeta.Result{Attack: "bot", Code: r.code, Timestamp: start.Add(time.Duration(i) * time.Millisecond), Latency: time.Millisecond, Headers: h}, "k", 0)
		}
		tr := a.rec.Finish(time.Second)
		if got := tr.Totals; got.Allowed != tc.allowed || got.Denied != tc.denied || got.Errors != tc.errors || tr.ReadGroup != tc.readGroup {
			t.Errorf("%s: allowed %d, denied %d, errors %d, read group %d; want %d, %d, %d, %d",
				tc.name, got.Allowed, got.Denied, got.Errors, tr.ReadGroup, tc.allowed, tc.denied, tc.errors, tc.readGroup)
		}
	}
}

func FuzzRemaining(f *testing.F) {
	for _, s := range []string{`"default";r=4;t=10`, `"a";r=-1`, `;;r=;=`, `"x";r=9223372036854775807`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, says := remaining(s)
		if !says && n != 0 {
			t.Errorf("remaining(%q) = %d, false: a field that says nothing must give 0", s, n)
		}
	})
}

func FuzzParsePolicy(f *testing.F) {
	for _, s := range []string{`"default";q=5;w=10`, `"a";q=1;w=0.001, "b"`, `;;;=`, `"x";w=1e300;q=9223372036854775807`, `100;w=60`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, w := ParsePolicy(s)
		if (l == 0) != (w == 0) || l < 0 || w < 0 {
			t.Errorf("ParsePolicy(%q) = %d, %v: both or neither must be set, never negative", s, l, w)
		}
	})
}

// FuzzReadLimits puts one value in every field read: whatever it is, the
// result is within bounds and says nothing it does not claim.
func FuzzReadLimits(f *testing.F) {
	for _, s := range []string{`"default";q=5;w=10`, `limit=5, remaining=0, reset=3`, `10, 10;w=60`, `1800000000`,
		`Tue, 01 Dec 2026 12:00:10 GMT`, `-1`, `=,;=`, `99999999999999999999`} {
		f.Add(s)
	}
	keys := []string{hRateLimitPolicy, hRateLimit, hRateLimitLimit, hRateLimitRemaining, hRateLimitReset,
		hXLimit, hXRemaining, hXReset, hRetryAfter, "X-Ratelimit-Limit-Minute"}
	f.Fuzz(func(t *testing.T, s string) {
		h := http.Header{}
		for _, k := range keys {
			h[k] = []string{s}
		}
		l := ReadLimits(h, now)
		switch {
		case l.Limit < 0 || l.Window < 0 || l.Window > time.Duration(maxSeconds)*time.Second:
			t.Errorf("ReadLimits(%q): limit %d, window %v out of bounds", s, l.Limit, l.Window)
		case (l.Limit > 0) != (l.Source != ""):
			t.Errorf("ReadLimits(%q): limit %d from %q: a limit names its field, and only a limit", s, l.Limit, l.Source)
		case l.Window > 0 && l.Limit == 0:
			t.Errorf("ReadLimits(%q): a window %v without a limit", s, l.Window)
		case !l.HasRemaining && l.Remaining != 0, !l.HasReset && l.Reset != 0:
			t.Errorf("ReadLimits(%q) = %+v: a value not stated must be 0", s, l)
		case l.Reset < 0 || l.Reset > time.Duration(maxSeconds)*time.Second:
			t.Errorf("ReadLimits(%q): reset %v out of bounds", s, l.Reset)
		}
	})
}

func FuzzParseDenyStatus(f *testing.F) {
	for _, s := range []string{"429", "429,503", " 503 , 429", "200", "", ",", "1e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		codes, err := ParseDenyStatus(s)
		if err != nil {
			if codes != nil {
				t.Errorf("ParseDenyStatus(%q) = %v with error %v", s, codes, err)
			}
			return
		}
		if len(codes) == 0 || !slices.IsSorted(codes) || checkDenyStatus(codes) != nil {
			t.Errorf("ParseDenyStatus(%q) = %v: want a sorted list of valid statuses", s, codes)
		}
		if again, err := ParseDenyStatus(FormatDenyStatus(codes)); err != nil || !slices.Equal(again, codes) {
			t.Errorf("ParseDenyStatus(FormatDenyStatus(%v)) = %v, %v", codes, again, err)
		}
	})
}

func ExampleParsePolicy() {
	limit, window := ParsePolicy(`"default";q=5;w=10`)
	fmt.Println(limit, window)
	// Output: 5 10s
}

func ExampleReadLimits() {
	h := http.Header{}
	h.Set("X-RateLimit-Limit", "60")
	h.Set("X-RateLimit-Remaining", "0")
	h.Set("Retry-After", "30")
	l := ReadLimits(h, time.Now())
	fmt.Println(l.Limit, l.Source, l.Remaining, l.Reset)
	// Output: 60 X-RateLimit-Limit 0 30s
}
