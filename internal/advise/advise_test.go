package advise

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// compile parses and compiles a scenario written in the test.
func compile(t *testing.T, yaml string) *plan.Plan {
	t.Helper()
	sc, err := scenario.Parse("t.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	pl, err := plan.Compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

func conds(t testing.TB, texts ...string) []measure.Condition {
	t.Helper()
	var out []measure.Condition
	for _, s := range texts {
		c, err := measure.ParseCondition(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// oneClient sends one request at a time, 100 ms apart, for 10 minutes: 600
// a window of a minute. On a linearizable store a fixed window then allows
// exactly min(limit, 600) per window, so the largest limit with at most 7
// allowed is 7, found by bisection between the grid's 4 and 8.
const oneClient = `
name: one
trials: 2
duration: 10m
limiter: {limit: 5, window: 60s}
store: {kind: memory, latency: 1ms}
traffic:
  - name: bot
    closed_loop: {concurrency: 1, think: 98ms}
`

func TestLargestLimitByBisection(t *testing.T) {
	pl := compile(t, oneClient)
	d := Design{Algorithm: limiter.FixedWindow, Store: plan.Memory, StoreName: "memory", Policy: limiter.FailOpen}
	rs, err := Advise(pl, Options{Budget: conds(t, "allowed.max<=7"), Designs: []Design{d}, Seed: 1, Trials: 2, MaxLimit: 64, SearchLimit: true})
	if err != nil {
		t.Fatal(err)
	}
	r := rs[0]
	if !r.Meets || r.Limit != 7 || !r.Monotone || r.Confidence != 1 {
		t.Fatalf("result %+v, want limit 7, monotone, every trial meeting", r)
	}
	// The grid 1, 2, 4, 5 (the scenario's own), 8, ..., 64, then 6 and 7
	// between 5 and 8, each simulated once.
	if r.Evaluations != 10 {
		t.Errorf("%d evaluations, want the grid and a bisection", r.Evaluations)
	}
	if v, _ := r.metric("allowed.max"); v != 7 {
		t.Errorf("allowed max at the limit found = %v, want 7", v)
	}
}

// TestRankAndRecommendation: when no design meets the budget the
// recommendation says so; when one does, it is ranked first and named.
func TestRankAndRecommendation(t *testing.T) {
	pl := compile(t, oneClient)
	mem := Design{Algorithm: limiter.FixedWindow, Store: plan.DurableObject, StoreName: "durable-object", Policy: limiter.FailOpen}
	tb := Design{Algorithm: limiter.TokenBucket, Store: plan.DurableObject, StoreName: "durable-object", Policy: limiter.FailOpen}
	rs, err := Advise(pl, Options{Budget: conds(t, "allowed.max<=0.5"), Designs: []Design{mem, tb}, Seed: 1, Trials: 2, MaxLimit: 8})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Meets || r.Summary == nil {
			t.Errorf("%s meets allowed.max<=0.5: %+v", r.Design, r)
		}
	}
	if got := Recommendation(conds(t, "allowed.max<=0.5"), rs); !strings.HasPrefix(got, "No design enforces a limit of 5 within the budget") {
		t.Errorf("recommendation %q", got)
	}
	rs, err = Advise(pl, Options{Budget: conds(t, "allowed.max<=7"), Designs: []Design{tb, mem}, Seed: 1, Trials: 2, MaxLimit: 16})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	WriteTable(&b, conds(t, "allowed.max<=7"), rs)
	if !strings.Contains(b.String(), "Recommended: ") || !rs[0].Meets || Recommend(rs) != 0 {
		t.Errorf("table:\n%s", b.String())
	}
	// The memory store is the reference: it is never what to ship.
	ref := Design{Algorithm: limiter.FixedWindow, Store: plan.Memory, StoreName: "memory", Policy: limiter.FailOpen}
	rs, err = Advise(pl, Options{Budget: conds(t, "allowed.max<=7"), Designs: []Design{ref}, Seed: 1, Trials: 2, MaxLimit: 16})
	if err != nil || !rs[0].Meets || Recommend(rs) != -1 {
		t.Errorf("memory alone: %v, meets %v, recommended %d", err, rs[0].Meets, Recommend(rs))
	}
}

// TestSpace: the default space has every algorithm, store and policy;
// per-location only for the Rate Limiting binding's 10 s and 60 s periods.
func TestSpace(t *testing.T) {
	pl := compile(t, oneClient)
	if n := len(Space(pl)); n != 3*5*2 {
		t.Errorf("%d designs for a 60 s window, want 30", n)
	}
	pl = compile(t, strings.Replace(oneClient, "window: 60s", "window: 1h", 1))
	for _, d := range Space(pl) {
		if d.Store == plan.PerLocation {
			t.Fatalf("per-location tried for a 1 h window: %s", d)
		}
	}
}

// TestProductLimit: without SearchLimit every design is simulated once, at
// the limit given (else the scenario's), and that is the limit it reports.
func TestProductLimit(t *testing.T) {
	pl := compile(t, oneClient)
	d := Design{Algorithm: limiter.FixedWindow, Store: plan.Memory, StoreName: "memory", Policy: limiter.FailOpen}
	for _, tc := range []struct {
		limit, want int64
		meets       bool
	}{{0, 5, true}, {7, 7, true}, {9, 9, false}} {
		rs, err := Advise(pl, Options{Budget: conds(t, "allowed.max<=7"), Designs: []Design{d}, Seed: 1, Trials: 2, Limit: tc.limit})
		if err != nil {
			t.Fatal(err)
		}
		r := rs[0]
		if r.Limit != tc.want || r.Evaluations != 1 || r.Meets != tc.meets {
			t.Errorf("limit %d: got limit %d after %d evaluations, meets %v; want %d, 1, %v", tc.limit, r.Limit, r.Evaluations, r.Meets, tc.want, tc.meets)
		}
		if v, _ := r.metric("allowed.max"); v != float64(min(tc.want, 600)) {
			t.Errorf("limit %d: allowed max %v, want the limit itself", tc.limit, v)
		}
	}
}

// kvBot is the seed's case: one bot loop on Workers KV, limited per day.
// The write limit (1 a second per key) throws 429s at every write but
// about one a second; failing closed, those deny. At a limit of 1,000 the
// count never gets there in two minutes: the 429s do all the denying.
const kvBot = `
name: kvbot
trials: 2
duration: 2m
start: 2026-01-01T23:59:00Z
limiter: {limit: 5, window: 1d, error_policy: fail-closed}
store: {kind: kv}
traffic:
  - name: bot
    closed_loop: {concurrency: 1, think: 0s}
`

// TestNeverBinds: a design whose store's errors deny before its count
// reaches the limit is marked, says why, does not meet the budget however
// well its numbers look, and is never recommended; at a limit the count
// reaches, the same design enforces it.
func TestNeverBinds(t *testing.T) {
	pl := compile(t, kvBot)
	d := Design{Algorithm: limiter.FixedWindow, Store: plan.KV, StoreName: "kv", CacheTTL: 60 * time.Second, Policy: limiter.FailClosed}
	budget := conds(t, "ratio.p99<=1.5")
	rs, err := Advise(pl, Options{Budget: budget, Designs: []Design{d}, Seed: 1, Trials: 2, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	r := rs[0]
	if !allPass(r.Verdicts) {
		t.Fatalf("the budget itself fails at 1,000: %v", r.Verdicts)
	}
	if r.Meets || !r.NeverBinds || Recommend(rs) != -1 || !strings.Contains(r.WhyNot(), "limit never binds") || !strings.Contains(r.WhyNot(), "write 429s") {
		t.Errorf("at 1,000: meets %v, never binds %v, recommended %d, why not %q", r.Meets, r.NeverBinds, Recommend(rs), r.WhyNot())
	}
	var b strings.Builder
	WriteTable(&b, budget, rs)
	if !strings.Contains(b.String(), "no: unbound") || strings.Contains(b.String(), "Recommended:") {
		t.Errorf("table:\n%s", b.String())
	}
	rs, err = Advise(pl, Options{Budget: budget, Designs: []Design{d}, Seed: 1, Trials: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r := rs[0]; !r.Meets || r.NeverBinds || r.Limit != 5 || Recommend(rs) != 0 {
		t.Errorf("at 5: meets %v, never binds %v (%s), limit %d", r.Meets, r.NeverBinds, r.Unbound, r.Limit)
	}
	// The limit search never settles on a limit that does not bind.
	rs, err = Advise(pl, Options{Budget: budget, Designs: []Design{d}, Seed: 1, Trials: 2, SearchLimit: true, MaxLimit: 1024})
	if err != nil {
		t.Fatal(err)
	}
	if r := rs[0]; r.Meets && r.NeverBinds {
		t.Errorf("search: limit %d meets but never binds", r.Limit)
	}
}

// TestUnbound: the limit never binds when every denial failed closed on a
// store error; not when the count denied any, nor when nothing was denied.
func TestUnbound(t *testing.T) {
	for _, tc := range []struct {
		denied, failClosed int64
		want               bool
	}{{0, 0, false}, {10, 0, false}, {10, 9, false}, {10, 10, true}} {
		s := &measure.Summary{Totals: measure.Totals{Denied: tc.denied, FailClosed: tc.failClosed}}
		if got := Unbound(s) != ""; got != tc.want {
			t.Errorf("denied %d, failed closed %d: unbound %v, want %v", tc.denied, tc.failClosed, got, tc.want)
		}
	}
}

// TestWhyNot: a design that misses says which condition, its value and
// its bound; one that meets says nothing.
func TestWhyNot(t *testing.T) {
	pl := compile(t, oneClient)
	d := Design{Algorithm: limiter.FixedWindow, Store: plan.Memory, StoreName: "memory", Policy: limiter.FailOpen}
	budget := conds(t, "allowed.max<=3", "latency.p99<=1s")
	rs, err := Advise(pl, Options{Budget: budget, Designs: []Design{d}, Seed: 1, Trials: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rs[0].WhyNot(), "allowed.max 5 (bound <=3)"; got != want {
		t.Errorf("why not %q, want %q", got, want)
	}
	var b strings.Builder
	WriteTable(&b, budget, rs)
	if !strings.Contains(b.String(), "why not") || !strings.Contains(b.String(), "allowed.max 5 (bound <=3)") {
		t.Errorf("table:\n%s", b.String())
	}
}

// TestBindingNamesThePopulation: a budget on one population says which
// when it binds, and a population the run lacks says so.
func TestBindingNamesThePopulation(t *testing.T) {
	var conds []measure.Condition
	for _, text := range []string{"burst:allowed.max<=60", "bots:ratio.max<=1"} {
		c, err := measure.ParseCondition(text)
		if err != nil {
			t.Fatal(err)
		}
		conds = append(conds, c)
	}
	s := &measure.Summary{Limiter: measure.LimiterRef{Limit: 60}, Populations: []measure.Population{{Name: "burst",
		Overshoot: &measure.PopulationOvershoot{KeyWindows: 1, Allowed: measure.CountStats{N: 1, Max: 500}}}}}
	got := Binding(measure.Check(s, conds))
	for _, want := range []string{"burst:allowed.max: 500 against <= 60", `bots:ratio.max<=1 (the run has no population "bots": it has burst)`} {
		if !strings.Contains(got, want) {
			t.Errorf("Binding = %q, want it to say %q", got, want)
		}
	}
}

// TestRecommendationWarns: a recommended design whose budget holds on a
// pooled quantile while some key-window breaks the bound says so.
func TestRecommendationWarns(t *testing.T) {
	c := conds(t, "allowed.p99<=60")
	s := &measure.Summary{Trials: 1, Limiter: measure.LimiterRef{Limit: 60},
		Overshoot: measure.Overshoot{KeyWindows: 101, Allowed: measure.CountStats{N: 101, P99: 3, Max: 500},
			Histogram: []measure.Bin{{Allowed: 3, KeyWindows: 100}, {Allowed: 500, KeyWindows: 1}}}}
	vs := measure.Check(s, c)
	d := Design{Algorithm: limiter.FixedWindow, Store: plan.KV, StoreName: "kv", Policy: limiter.FailOpen}
	got := Recommendation(c, []Result{{Design: d, Limit: 60, Meets: true, Confidence: 1, Summary: s, Verdicts: vs}})
	if !strings.HasPrefix(got, "Recommended: ") || !strings.Contains(got, "Warning: allowed.p99<=60 holds over the pooled key-windows, but 1 key-window of 101 broke the same bound") {
		t.Errorf("recommendation %q", got)
	}
}

// TestRecommendationFalseDenials: the recommendation names each
// legitimate population's denials, and says when none is legitimate
// instead of listing an empty measurement.
func TestRecommendationFalseDenials(t *testing.T) {
	c := conds(t, "ratio.max<=1.5")
	d := Design{Algorithm: limiter.FixedWindow, Store: plan.KV, StoreName: "kv", Policy: limiter.FailOpen}
	for _, tc := range []struct {
		pops []measure.Population
		want string
	}{
		{[]measure.Population{{Name: "bots", Requests: 10}}, "; no population is legitimate (legitimate: true), so no false denials were measured;"},
		{[]measure.Population{{Name: "users", Legitimate: true, Requests: 100, Denied: 2, FalseDenials: 1}}, "; legitimate requests denied (falsely) users 2% (1%);"},
	} {
		s := &measure.Summary{Trials: 1, Limiter: measure.LimiterRef{Limit: 60}, Populations: tc.pops}
		got := Recommendation(c, []Result{{Design: d, Limit: 60, Meets: true, Confidence: 1, Summary: s, Verdicts: measure.Check(s, c)}})
		if !strings.Contains(got, tc.want) {
			t.Errorf("recommendation %q, want it to say %q", got, tc.want)
		}
	}
}

// TestRankBeyondExact: of the designs that meet the budget, the one that
// lets less through beyond the exact limiter ranks first, whatever its
// cost; one without a reference ranks after those with one.
func TestRankBeyondExact(t *testing.T) {
	sum := func(maxExcess int64, share, usd float64) *measure.Summary {
		s := &measure.Summary{Limiter: measure.LimiterRef{Limit: 10}}
		s.Overshoot.Reference = measure.Reference{Allowed: 100, MaxExcess: maxExcess, LetThroughShare: share}
		s.Cost.USDPerMillionRequests = usd
		return s
	}
	rs := rank([]Result{
		{Design: Design{StoreName: "cheap, 3 beyond"}, Meets: true, Summary: sum(3, 0.01, 0.1)},
		{Design: Design{StoreName: "no reference"}, Meets: true, Summary: &measure.Summary{}},
		{Design: Design{StoreName: "dear, exact"}, Meets: true, Summary: sum(0, 0, 5)},
		{Design: Design{StoreName: "1 beyond"}, Meets: true, Summary: sum(1, 0.5, 1)},
	})
	var got []string
	for _, r := range rs {
		got = append(got, r.Design.StoreName)
	}
	if want := "dear, exact|1 beyond|cheap, 3 beyond|no reference"; strings.Join(got, "|") != want {
		t.Errorf("order %q, want %q", strings.Join(got, "|"), want)
	}
}

// TestUsersDenied: the table says how many users (legitimate clients) an
// average trial falsely denied, and the ranking prefers fewer of them.
func TestUsersDenied(t *testing.T) {
	s := &measure.Summary{Trials: 2, Populations: []measure.Population{
		{Name: "users", Legitimate: true, Requests: 1000, Denied: 20, FalseDenials: 10, FalselyDeniedClients: 7},
		{Name: "bot", Requests: 500, Denied: 400}}}
	if got, want := falseDenials(s), "users 2% (1%, 3.5 users a trial)"; got != want {
		t.Errorf("falseDenials = %q, want %q", got, want)
	}
	fewer := *s
	fewer.Populations = []measure.Population{{Name: "users", Legitimate: true, Requests: 1000, Denied: 20, FalseDenials: 10, FalselyDeniedClients: 2}}
	rs := rank([]Result{{Design: Design{StoreName: "more"}, Meets: true, Summary: s}, {Design: Design{StoreName: "fewer"}, Meets: true, Summary: &fewer}})
	if rs[0].Design.StoreName != "fewer" {
		t.Errorf("ranked %s first, want the design denying fewer users", rs[0].Design.StoreName)
	}
}

// TestRankMissesByShortfall: of designs that miss the same conditions,
// the one nearest its bounds ranks first and is the one named closest,
// whatever the design space's order.
func TestRankMissesByShortfall(t *testing.T) {
	c := conds(t, "ratio.max<=0.5")
	miss := func(name string, ratio float64) Result {
		s := &measure.Summary{Trials: 1, Limiter: measure.LimiterRef{Limit: 10}}
		s.Overshoot.KeyWindows, s.Overshoot.Ratio = 1, measure.Stats{N: 1, Max: ratio}
		return Result{Design: Design{Algorithm: limiter.FixedWindow, Store: plan.KV, StoreName: name, Policy: limiter.FailOpen},
			Limit: 10, Summary: s, Verdicts: measure.Check(s, c)}
	}
	rs := rank([]Result{miss("far", 78.9), miss("near", 1), miss("middle", 13.3)})
	var order []string
	for _, r := range rs {
		order = append(order, r.Design.StoreName)
	}
	if want := []string{"near", "middle", "far"}; !slices.Equal(order, want) {
		t.Errorf("misses ranked %v, want %v", order, want)
	}
	if got := Recommendation(c, rs); !strings.Contains(got, "which misses on ratio.max 1.00x") {
		t.Errorf("recommendation %q, want the nearest miss named closest", got)
	}
}

// TestUsersText: an average count of users reads as people write it.
func TestUsersText(t *testing.T) {
	for _, tc := range []struct {
		n    float64
		want string
	}{{0.5, "0.5"}, {44.5, "44.5"}, {96.6, "96.6"}, {1024, "1,024"}, {123456.4, "123,456"}} {
		if got := usersText(tc.n); got != tc.want {
			t.Errorf("usersText(%v) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
