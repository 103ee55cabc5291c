package attack

import (
	"strconv"
	"strings"
	"time"
)

// The IETF draft RateLimit header fields (draft-ietf-httpapi-ratelimit-headers)
// as a target answers them: RateLimit-Policy states the quota and window,
// RateLimit what remains.

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

// remainingZero reports whether an IETF draft RateLimit field (e.g.
// `"default";r=0;t=10`) says the first policy has no requests remaining.
func remainingZero(v string) bool {
	n, ok := remaining(v)
	return ok && n <= 0
}

// remaining returns what an IETF draft RateLimit field (e.g.
// `"default";r=4;t=10`) says remains of the first policy, and whether it
// says so.
func remaining(v string) (int64, bool) {
	if v == "" {
		return 0, false
	}
	first, _, _ := strings.Cut(v, ",")
	for _, p := range strings.Split(first, ";")[1:] {
		if k, val, ok := strings.Cut(strings.TrimSpace(p), "="); ok && k == "r" {
			n, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
			if err != nil {
				return 0, false
			}
			return n, true
		}
	}
	return 0, false
}
