package attack

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/target"
)

// callers builds n requests of population i of the scenario and returns the
// caller identity (as the limiter computes it) and location of each.
func callers(t *testing.T, yaml string, i, n int, runID string) (keys, locs []string) {
	t.Helper()
	pl := livePlan(t, parse(t, yaml))
	id := newIdentities("http://x/", pl, i, pl.Populations[i].Name, runID, "X-Forwarded-For", nil, plan.Shard{}, plan.NewStream(pl.Seed, 0))
	for range n {
		var tg vegeta.Target
		if err := id.target(&tg); err != nil {
			t.Fatal(err)
		}
		r, _ := http.NewRequest(tg.Method, tg.URL, nil)
		r.Header = tg.Header
		keys = append(keys, pl.Key.Caller(id.token.Token(r), r.Header))
		locs = append(locs, tg.Header.Get(target.HeaderLocation))
	}
	return keys, locs
}

const identityYAML = `
name: ids
limiter: {name: t, limit: 5, window: 1s}
locations: [{name: a, weight: 3}, {name: b, weight: 1}]
traffic:
  - name: first
    clients: 300
    open_loop: {rate: 1/s}
  - name: p
    clients: 3
    identity: {%s}
    arrive: {mode: %s}
    open_loop: {rate: 1/s}
`

// TestIdentities checks what the golden transcript of TestRequestsMatchPlan
// does not: that a population spreading per request follows the weights
// over many requests, and that a run id prefixes every token.
func TestIdentities(t *testing.T) {
	// Spread per request follows the weights (3:1): 3,000 of 4,000 to a,
	// give or take 27 (one standard deviation).
	_, locs := callers(t, sprintf(identityYAML, "token: shared, ip: none", "spread, per: request"), 1, 4000, "")
	var a int
	for _, l := range locs {
		if l == "a" {
			a++
		}
	}
	if a < 2890 || a > 3110 {
		t.Errorf("spread sent %d of 4000 to a (weight 3 of 4), want about 3000", a)
	}
	// A run id prefixes every token.
	keys, _ := callers(t, sprintf(identityYAML, "token: shared, ip: none", "one"), 1, 1, "run7")
	if keys[0] != "run7-anon-p1:unknown" {
		t.Errorf("with a run id: %q", keys[0])
	}
}

// TestCookieToken sends the token as a cookie when the scenario says so.
func TestCookieToken(t *testing.T) {
	keys, _ := callers(t, `
name: c
limiter: {name: t, limit: 5, window: 1s, token: {from: cookie, name: anon}}
traffic: [{name: p, open_loop: {rate: 1/s}}]
`, 0, 1, "")
	if keys[0] != "anon-p0-c0:10.0.0.0" {
		t.Errorf("caller %q", keys[0])
	}
}

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }

// TestValidate: what Run would reject is found before anything is sent or
// written. The plan was validated when it was compiled (scenario
// validation); Validate checks the options around it.
func TestValidate(t *testing.T) {
	good := func() Options {
		return Options{Plan: livePlan(t, parse(t, sequentialYAML)), URL: "http://127.0.0.1:1/", Limit: 5, Window: 500 * time.Millisecond}
	}
	tests := []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"good", func(*Options) {}, ""},
		{"cf header", func(o *Options) { o.IPHeader = "cf-connecting-ip" }, ""},
		{"bad ip header", func(o *Options) { o.IPHeader = "X-Real-IP" }, "-ip-header"},
		{"limit from the plan", func(o *Options) { o.Limit = 0 }, ""},
		{"window not in ms", func(o *Options) { o.Window = 1500 * time.Microsecond }, "whole milliseconds"},
		{"no plan", func(o *Options) { o.Plan = nil }, "no plan"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := good()
			tc.edit(&o)
			err := Validate(o)
			if tc.want == "" {
				if err != nil {
					t.Errorf("Validate: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate = %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
}
