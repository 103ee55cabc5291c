package attack

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The rate-limit header fields targets answer with, in the dialects real
// servers send (docs/attack.md lists them with examples):
//
//   - IETF draft 8 on (draft-ietf-httpapi-ratelimit-headers), structured
//     fields: RateLimit-Policy `"default";q=100;w=60` states the quota and
//     window, RateLimit `"default";r=4;t=10` what remains and when it resets;
//   - draft 7: RateLimit `limit=100, remaining=4, reset=10`, with
//     RateLimit-Policy `100;w=60`;
//   - draft 6 (Kong, express-rate-limit): RateLimit-Limit, RateLimit-Remaining
//     and RateLimit-Reset (seconds), with RateLimit-Policy `100;w=60`; Kong
//     states its window as X-RateLimit-Limit-Minute (or -Second, -Hour, ...);
//   - X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (GitHub,
//     Envoy's ratelimit service, express-rate-limit's legacy headers): a
//     reset of 1,000,000,000 or more is a Unix time (GitHub's, in seconds;
//     from 10^12, in milliseconds), a smaller one seconds from now (Envoy's);
//     Envoy's limit field may carry its window, `10, 10;w=60`;
//   - Retry-After: seconds, or an HTTP date, until the next request may
//     succeed; it stands for the reset when no other field states one.
//
// Where a response carries several, the earlier in this list wins, field by
// field. Every value is bounded: a field that does not parse says nothing.

// Canonical header keys of the fields read (http.CanonicalHeaderKey form,
// as a response's header map holds them).
const (
	hRateLimitPolicy    = "Ratelimit-Policy"
	hRateLimit          = "Ratelimit"
	hRateLimitLimit     = "Ratelimit-Limit"
	hRateLimitRemaining = "Ratelimit-Remaining"
	hRateLimitReset     = "Ratelimit-Reset"
	hXLimit             = "X-Ratelimit-Limit"
	hXRemaining         = "X-Ratelimit-Remaining"
	hXReset             = "X-Ratelimit-Reset"
	hRetryAfter         = "Retry-After"
)

// maxSeconds bounds every duration read (about 31 years): larger values
// are not a rate limit's window or reset, and would overflow.
const maxSeconds = 1e9

// unixSeconds is where a reset stops being seconds from now and becomes a
// Unix time (2001-09-09), and unixMillis where it is one in milliseconds.
const (
	unixSeconds = 1_000_000_000
	unixMillis  = 1_000_000_000_000
)

// Limits is what one response's rate-limit header fields say. A zero field
// was not stated.
type Limits struct {
	// Limit is the quota of a window and Window its length; Source names
	// the header field they were read from (e.g. "RateLimit-Policy"), for
	// messages. A dialect that states no window leaves Window 0.
	Limit  int64
	Window time.Duration
	Source string
	// Remaining is how many requests the window has left after this one,
	// when HasRemaining.
	Remaining    int64
	HasRemaining bool
	// Reset is how long until the window resets (or, from Retry-After,
	// until a request may succeed), when HasReset; never negative.
	Reset    time.Duration
	HasReset bool
}

// ReadLimits reads the rate-limit fields of a response's header h, in any
// of the dialects above; now is when the response arrived (for a reset
// stated as a Unix time or an HTTP date).
func ReadLimits(h http.Header, now time.Time) Limits {
	var l Limits
	l.Limit, l.Window, l.Source = readLimit(h)
	l.Remaining, l.HasRemaining = readRemaining(h)
	l.Reset, l.HasReset = readReset(h, now)
	return l
}

// readLimit returns the quota and window a response states and the field
// that states them: the RateLimit-Policy field when it states both, else
// the first dialect's limit field that states a limit, with its window when
// it states one.
func readLimit(h http.Header) (int64, time.Duration, string) {
	if q, w := ParsePolicy(first(h, hRateLimitPolicy)); q > 0 {
		return q, w, "RateLimit-Policy"
	}
	if d, ok := draft7(first(h, hRateLimit)); ok && d.limit > 0 {
		return d.limit, 0, "RateLimit"
	}
	if q, w := parseLimitField(first(h, hRateLimitLimit)); q > 0 {
		if w == 0 {
			w = kongWindow(h, q)
		}
		return q, w, "RateLimit-Limit"
	}
	if q, w := parseLimitField(first(h, hXLimit)); q > 0 {
		if w == 0 {
			w = kongWindow(h, q)
		}
		return q, w, "X-RateLimit-Limit"
	}
	if q, w, unit := kongLimit(h); q > 0 {
		return q, w, "X-RateLimit-Limit-" + unit
	}
	return 0, 0, ""
}

// readRemaining returns what a response says remains of its window, and
// whether it says so: the RateLimit field (draft 8's r, draft 7's
// remaining), else RateLimit-Remaining, else X-RateLimit-Remaining.
func readRemaining(h http.Header) (int64, bool) {
	v := first(h, hRateLimit)
	if d, ok := draft7(v); ok && d.hasRemaining {
		return d.remaining, true
	}
	if n, ok := remaining(v); ok {
		return n, true
	}
	if n, ok := parseInt(first(h, hRateLimitRemaining)); ok {
		return n, true
	}
	if n, ok := parseInt(first(h, hXRemaining)); ok {
		return n, true
	}
	return 0, false
}

// readReset returns how long until a response's window resets, and
// whether it says: the RateLimit field (draft 8's t, draft 7's reset), else
// RateLimit-Reset, else X-RateLimit-Reset (seconds, or a Unix time), else
// Retry-After (seconds or an HTTP date).
func readReset(h http.Header, now time.Time) (time.Duration, bool) {
	v := first(h, hRateLimit)
	if d, ok := draft7(v); ok && d.hasReset {
		return d.reset, true
	}
	if s, ok := param(v, "t"); ok {
		if d, ok := seconds(s); ok {
			return d, true
		}
	}
	if d, ok := seconds(first(h, hRateLimitReset)); ok {
		return d, true
	}
	if d, ok := resetOrUnix(first(h, hXReset), now); ok {
		return d, true
	}
	return RetryAfter(first(h, hRetryAfter), now)
}

// ParsePolicy reads the quota and window of the first policy of a
// RateLimit-Policy field: draft 8's `"default";q=100;w=60` or drafts 6 and
// 7's `100;w=60`. It returns zeros when the field is absent or does not
// state both.
func ParsePolicy(v string) (limit int64, window time.Duration) {
	item, _, _ := strings.Cut(v, ",")
	bare, params, _ := strings.Cut(item, ";")
	if n, ok := parseInt(bare); ok && n > 0 {
		limit = n
	}
	for p := range strings.SplitSeq(params, ";") {
		k, val, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok {
			continue
		}
		switch k {
		case "q":
			if n, ok := parseInt(val); ok && n > 0 {
				limit = n
			}
		case "w":
			window = windowSeconds(val)
		}
	}
	if limit == 0 || window == 0 {
		return 0, 0
	}
	return limit, window
}

// parseLimitField reads a RateLimit-Limit or X-RateLimit-Limit field: a
// limit (`100`), optionally followed by quota policies (`100, 100;w=60`,
// drafts 3 to 5 and Envoy), of which the first with the same quota gives
// the window. It returns zeros when the field states no positive limit.
func parseLimitField(v string) (int64, time.Duration) {
	head, rest, _ := strings.Cut(v, ",")
	limit, ok := parseInt(head)
	if !ok || limit <= 0 {
		return 0, 0
	}
	for item := range strings.SplitSeq(rest, ",") {
		if q, w := ParsePolicy(item); q == limit {
			return limit, w
		}
	}
	return limit, 0
}

// kongUnits are Kong's X-RateLimit-Limit-<unit> fields, shortest window
// first, with the windows Kong counts them in.
var kongUnits = []struct {
	name   string
	window time.Duration
}{
	{"Second", time.Second},
	{"Minute", time.Minute},
	{"Hour", time.Hour},
	{"Day", 24 * time.Hour},
	{"Month", 30 * 24 * time.Hour},
	{"Year", 365 * 24 * time.Hour},
}

// kongLimit returns the limit and window of Kong's shortest
// X-RateLimit-Limit-<unit> field, and the unit's name.
func kongLimit(h http.Header) (int64, time.Duration, string) {
	for _, u := range kongUnits {
		if n, ok := parseInt(first(h, "X-Ratelimit-Limit-"+u.name)); ok && n > 0 {
			return n, u.window, u.name
		}
	}
	return 0, 0, ""
}

// kongWindow returns the window of the shortest Kong X-RateLimit-Limit-<unit>
// field whose limit is limit, or 0.
func kongWindow(h http.Header, limit int64) time.Duration {
	for _, u := range kongUnits {
		if n, ok := parseInt(first(h, "X-Ratelimit-Limit-"+u.name)); ok && n == limit {
			return u.window
		}
	}
	return 0
}

// draft7Field is what a draft 7 RateLimit field states.
type draft7Field struct {
	limit                  int64
	remaining              int64
	hasRemaining, hasReset bool
	reset                  time.Duration
}

// draft7 reads a draft 7 RateLimit field, `limit=100, remaining=4,
// reset=10`; ok is false when v is not one (no member is limit, remaining
// or reset: e.g. draft 8's `"default";r=4;t=10`).
func draft7(v string) (d draft7Field, ok bool) {
	for m := range strings.SplitSeq(v, ",") {
		k, val, found := strings.Cut(strings.TrimSpace(m), "=")
		if !found {
			continue
		}
		switch k {
		case "limit":
			ok = true
			if n, good := parseInt(val); good && n > 0 {
				d.limit = n
			}
		case "remaining":
			ok = true
			d.remaining, d.hasRemaining = parseInt(val)
		case "reset":
			ok = true
			d.reset, d.hasReset = seconds(val)
		}
	}
	return d, ok
}

// remaining returns what a draft 8 RateLimit field (e.g.
// `"default";r=4;t=10`) says remains of the first policy, and whether it
// says so.
func remaining(v string) (int64, bool) {
	s, ok := param(v, "r")
	if !ok {
		return 0, false
	}
	return parseInt(s)
}

// param returns the value of parameter k of the first item of a
// structured field list such as `"default";r=4;t=10`.
func param(v, k string) (string, bool) {
	item, _, _ := strings.Cut(v, ",")
	_, params, _ := strings.Cut(item, ";")
	for p := range strings.SplitSeq(params, ";") {
		if key, val, ok := strings.Cut(strings.TrimSpace(p), "="); ok && key == k {
			return val, true
		}
	}
	return "", false
}

// RetryAfter reads a Retry-After field, seconds (`120`) or an HTTP date
// (`Wed, 21 Oct 2026 07:28:00 GMT`, taken against now), and returns how
// long it asks to wait (never negative) and whether it says.
func RetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if d, ok := seconds(v); ok {
		return d, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return until(t, now), true
}

// resetOrUnix reads an X-RateLimit-Reset field: seconds from now below
// unixSeconds, else a Unix time in seconds (below unixMillis) or in
// milliseconds, taken against now.
func resetOrUnix(v string, now time.Time) (time.Duration, bool) {
	n, ok := parseInt(v)
	switch {
	case !ok || n < 0:
		return 0, false
	case n < unixSeconds:
		return time.Duration(n) * time.Second, true
	case n < unixMillis:
		return until(time.Unix(n, 0), now), true
	default:
		return until(time.UnixMilli(n), now), true
	}
}

// until is how long from now until t, 0 when t has passed, at most
// maxSeconds.
func until(t, now time.Time) time.Duration {
	return min(max(t.Sub(now), 0), time.Duration(maxSeconds)*time.Second)
}

// seconds reads a whole number of seconds, 0 up to maxSeconds.
func seconds(v string) (time.Duration, bool) {
	n, ok := parseInt(v)
	if !ok || n < 0 || n > maxSeconds {
		return 0, false
	}
	return time.Duration(n) * time.Second, true
}

// windowSeconds reads a policy's window (seconds, possibly fractional:
// `0.5`) rounded to the millisecond, or 0 when it is not positive and at
// most maxSeconds.
func windowSeconds(v string) time.Duration {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || !(f > 0 && f <= maxSeconds) {
		return 0
	}
	return time.Duration(f * float64(time.Second)).Round(time.Millisecond)
}

// parseInt reads a decimal integer, allowing surrounding spaces; 0 and
// false when v is not one.
func parseInt(v string) (int64, bool) {
	if v = strings.TrimSpace(v); v == "" {
		return 0, false // an absent field, the common case: no error to allocate
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}
