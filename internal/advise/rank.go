package advise

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
)

// metric reads a named metric from r's summary; ok is false when it was
// not measured.
func (r Result) metric(name string) (float64, bool) {
	m, err := measure.LookupMetric(name)
	if err != nil || r.Summary == nil {
		return 0, false
	}
	return m.Value(r.Summary)
}

// FalseDenials is the share of legitimate requests falsely denied (0 when
// the scenario has no legitimate population).
func (r Result) FalseDenials() float64 { v, _ := r.metric("false_denials.rate"); return v }

// LegitDenied is the share of legitimate requests denied for any reason: a
// limit below what real users send locks them out without a single false
// denial (their own count reached it), so the ranking looks at this first.
func (r Result) LegitDenied() float64 { v, _ := r.metric("legit_denied.rate"); return v }

// Cost is the design's cost in dollars per million requests at published
// prices (measure.Cost: the store's work, the Workers request fee); ok is
// false when the summary has no price. The memory store is priced as the
// KV work it stands for, as a reference: it is not a store one can ship.
func (r Result) Cost() (usd float64, ok bool) {
	return r.metric("cost.usd_per_million")
}

// costOrMax orders by cost, an unpriced design after every priced one.
func (r Result) costOrMax() float64 {
	if v, ok := r.Cost(); ok {
		return v
	}
	return math.Inf(1)
}

// latency is the design's p99 request latency (infinite when not measured).
func (r Result) latency() float64 {
	if v, ok := r.metric("latency.p99"); ok {
		return v
	}
	return math.Inf(1)
}

// usersDenied is how many legitimate clients a trial falsely denied at
// least once, on average.
func (r Result) usersDenied() float64 {
	if r.Summary == nil || r.Summary.Trials <= 0 {
		return 0
	}
	var n int64
	for _, p := range r.Summary.Populations {
		if p.Legitimate {
			n += p.FalselyDeniedClients
		}
	}
	return float64(n) / float64(r.Summary.Trials)
}

// most is the most one key-window let through.
func (r Result) most() float64 { v, _ := r.metric("allowed.max"); return v }

// beyondExact is what r let through beyond an exact limiter on the same
// requests (the summary's reference): the worst key-window's excess and
// the share of the requests the exact limiter denies that r let through;
// infinite when not measured.
func (r Result) beyondExact() (worst, share float64) {
	w, ok1 := r.metric("worst_key.excess")
	s, ok2 := r.metric("let_through.share")
	if !ok1 || !ok2 {
		return math.Inf(1), math.Inf(1)
	}
	return w, s
}

// allowed is what the design lets through: allowed p99 in a key-window.
func (r Result) allowed() float64 { v, _ := r.metric("allowed.p99"); return v }

// passing counts the budget's conditions r's summary meets.
func (r Result) passing() int {
	n := 0
	for _, v := range r.Verdicts {
		if v.Pass {
			n++
		}
	}
	return n
}

// shortfall is how far a design misses its budget: over the conditions it
// breaks, the sum of each one's distance from its bound relative to the
// bound (a bound of 0 counts the distance itself); a condition not
// measured is infinitely far. 0 when it breaks none.
func (r Result) shortfall() float64 {
	sum := 0.0
	for _, v := range r.Verdicts {
		switch {
		case v.Pass:
		case !v.Measured:
			return math.Inf(1)
		default:
			d := math.Abs(v.Value - v.Condition.Value)
			if b := math.Abs(v.Condition.Value); b > 0 {
				d /= b
			}
			sum += d
		}
	}
	return sum
}

// rank orders results: those that enforce the limit within the budget
// first, by least let through beyond an exact limiter on the same requests
// (the worst key-window's excess, then the share of what the exact limiter
// denies), then by allowed p99 and the most in one key-window (every
// design at the same limit), then fewest
// legitimate requests denied, then fewest false denials, then fewest
// users falsely denied, then lowest cost,
// then lowest latency p99, then more confidence, then largest limit (with
// SearchLimit); the others by how many of the budget's conditions they
// meet, then by how far they miss (shortfall), those whose limit never
// binds last. Ties keep the design space's order.
func rank(rs []Result) []Result {
	slices.SortStableFunc(rs, func(a, b Result) int {
		if a.Meets != b.Meets {
			if a.Meets {
				return -1
			}
			return 1
		}
		if !a.Meets {
			if a.NeverBinds != b.NeverBinds {
				if b.NeverBinds {
					return -1
				}
				return 1
			}
			return cmp.Or(cmp.Compare(b.passing(), a.passing()), cmp.Compare(a.shortfall(), b.shortfall()))
		}
		aw, as := a.beyondExact()
		bw, bs := b.beyondExact()
		return cmp.Or(cmp.Compare(aw, bw), cmp.Compare(as, bs), cmp.Compare(a.allowed(), b.allowed()), cmp.Compare(a.most(), b.most()),
			cmp.Compare(a.LegitDenied(), b.LegitDenied()), cmp.Compare(a.FalseDenials(), b.FalseDenials()),
			cmp.Compare(a.usersDenied(), b.usersDenied()),
			cmp.Compare(a.costOrMax(), b.costOrMax()), cmp.Compare(a.latency(), b.latency()),
			cmp.Compare(b.Confidence, a.Confidence), cmp.Compare(b.Limit, a.Limit))
	})
	return rs
}

// WriteTable writes the ranked results for people: a line per design
// with whether it enforces its limit within the budget, the limit, what it
// lets through (p99 and most in one key-window, and the most as a multiple
// of the limit: ratio.max, the Pareto figure's default axis), what it
// lets through beyond an exact limiter on the same requests (in all and in
// the worst key-window), the legitimate requests denied (falsely), its cost, the
// latency a request has with it (p99, simulated: the store's round trips),
// the confidence and, for a design that misses, why (WhyNot); then the
// recommendation.
func WriteTable(w io.Writer, budget []measure.Condition, rs []Result) {
	var texts []string
	for _, c := range budget {
		texts = append(texts, c.Text)
	}
	fmt.Fprintf(w, "budget: %s\n\n", strings.Join(texts, " and "))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tdesign\tmeets?\tlimit\tallowed p99 / max\tbeyond exact (worst key)\tlegit denied (false)\t$/M req\tlatency p99\tconfidence\twhy not\t")
	for i, r := range rs {
		meets := "no"
		switch {
		case r.Meets:
			meets = "yes"
		case r.NeverBinds:
			meets = "no: unbound"
		}
		limit := fmt.Sprint(r.Limit)
		if r.Limit == 0 {
			limit = "-"
		}
		allowed := "-"
		if v, ok := r.metric("allowed.p99"); ok {
			ratio, _ := r.metric("ratio.max")
			allowed = fmt.Sprintf("%.0f / %.0f (%.2fx)", v, r.most(), ratio)
		}
		design := r.Design.String()
		if r.Design.Store == plan.Memory {
			design += " (reference)"
		}
		lat := "-"
		if v, ok := r.metric("latency.p99"); ok {
			lat = fmt.Sprintf("%.3g ms", v)
		}
		trials := 0
		if r.Summary != nil {
			trials = r.Summary.Trials
		}
		exact := "-"
		if w, _ := r.beyondExact(); !math.IsInf(w, 1) {
			total, _ := r.metric("reference.excess")
			exact = fmt.Sprintf("%.0f (%.0f)", total, w)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.0f%% of %d\t%s\t\n", i+1, design, meets, limit, allowed, exact,
			falseDenials(r.Summary), cost(r), lat, 100*r.Confidence, trials, r.WhyNot())
	}
	tw.Flush()
	for _, r := range rs {
		if r.Note != "" {
			fmt.Fprintf(w, "note: %s: %s\n", r.Design, r.Note)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, Recommendation(budget, rs))
}

// WhyNot says why r does not enforce its limit within the budget: that
// the limit never binds, and why; else each failing condition with its
// value and its bound ("ratio.p99 10.2 (bound <=1.5)"). Empty when r
// meets the budget.
func (r Result) WhyNot() string {
	if r.Meets {
		return ""
	}
	if r.NeverBinds {
		return r.Unbound
	}
	var out []string
	for _, v := range r.Verdicts {
		if v.Pass {
			continue
		}
		c := v.Condition
		if !v.Measured {
			out = append(out, c.Metric.Name+" not measured (bound "+string(c.Op)+c.Metric.Format(c.Value)+")")
			continue
		}
		out = append(out, fmt.Sprintf("%s %s (bound %s%s)", c.Metric.Name, c.Metric.Format(v.Value), c.Op, c.Metric.Format(c.Value)))
	}
	return strings.Join(out, "; ")
}

// Recommend returns the index of the design to ship: the best ranked that
// enforces its limit within the budget and is a Workers product (memory is
// the reference, not something to deploy), or -1 when none is. A design
// whose limit never binds is never recommended.
func Recommend(rs []Result) int {
	for i, r := range rs {
		if r.Meets && !r.NeverBinds && r.Design.Store != plan.Memory {
			return i
		}
	}
	return -1
}

// Recommendation says in one sentence which design to ship, or that none
// of the space meets the budget and which came closest.
func Recommendation(budget []measure.Condition, rs []Result) string {
	if len(rs) == 0 {
		return "No design was simulated."
	}
	i := Recommend(rs)
	if i < 0 {
		for j, r := range rs {
			if r.Design.Store != plan.Memory {
				i = j
				break
			}
		}
		if i < 0 {
			i = 0
		}
		r := rs[i]
		if r.Meets {
			return fmt.Sprintf("Only the memory reference enforces the limit within the budget (%s at a limit of %d): no store one can ship does.", r.Design, r.Limit)
		}
		return fmt.Sprintf("No design enforces a limit of %d within the budget. Closest: %s, which misses on %s.", r.Limit, r.Design, r.WhyNot())
	}
	r := rs[i]
	allowed, _ := r.metric("allowed.p99")
	ratio, _ := r.metric("ratio.max")
	price := "cost " + cost(r) + " per million requests"
	if _, ok := r.Cost(); !ok && r.Design.Store == plan.Redis {
		price = "not priced per request (Redis is billed by its host's instance hours)"
	}
	fd := falseDenials(r.Summary)
	denied := "legitimate requests denied (falsely) " + fd
	if fd == noLegitimate {
		denied = "no population is legitimate (legitimate: true), so no false denials were measured"
	}
	out := fmt.Sprintf("Recommended: %s, enforcing a limit of %d: one key-window lets at most %.0f through (%.2fx), the 99th percentile %.0f; %s; %s; the budget holds in %.0f%% of %d trials.",
		r.Design, r.Limit, r.most(), ratio, allowed, denied, price, 100*r.Confidence, r.Summary.Trials)
	for _, v := range r.Verdicts {
		if v.Warning != "" {
			out += " Warning: " + v.Warning + "."
		}
	}
	return out
}

// usersText writes an average count of users: three significant digits
// below 100, whole numbers with thousands separators above ("1,024", not
// "1.02e+03").
func usersText(n float64) string {
	if n < 100 {
		return strconv.FormatFloat(n, 'g', 3, 64)
	}
	return measure.Thousands(int64(math.Round(n)))
}

// noLegitimate is falseDenials' text for a run with no legitimate
// population that sent requests.
const noLegitimate = "no legit. population"

// falseDenials lists each legitimate population's denied share and, in
// brackets, its false-denial share and how many of its clients (users) an
// average trial falsely denied at least once.
func falseDenials(s *measure.Summary) string {
	if s == nil {
		return "-"
	}
	var parts []string
	for _, p := range s.Populations {
		if p.Legitimate && p.Requests > 0 {
			n := float64(p.Requests)
			part := fmt.Sprintf("%s %.2g%% (%.2g%%", p.Name, 100*float64(p.Denied)/n, 100*float64(p.FalseDenials)/n)
			if p.FalselyDeniedClients > 0 && s.Trials > 0 {
				part += ", " + usersText(float64(p.FalselyDeniedClients)/float64(s.Trials)) + " users a trial"
			}
			parts = append(parts, part+")")
		}
	}
	if len(parts) == 0 {
		return noLegitimate
	}
	return strings.Join(parts, ", ")
}

// cost is the design's $ per million requests, or "not priced"; the
// memory store's is marked as the reference it is.
func cost(r Result) string {
	v, ok := r.Cost()
	switch {
	case !ok && r.Design.Store == plan.Redis:
		return "not priced (hourly)"
	case !ok:
		return "not priced"
	case r.Design.Store == plan.Memory:
		return fmt.Sprintf("$%.3g (ref.)", v)
	}
	return fmt.Sprintf("$%.3g", v)
}

// Binding says which of the budget's conditions fail and by how much: the
// value against the bound, as a multiple of it when both are above 0.
func Binding(vs []measure.Verdict) string {
	var out []string
	for _, v := range vs {
		if v.Pass {
			continue
		}
		c := v.Condition
		if v.Missing != "" {
			out = append(out, c.Text+" ("+v.Missing+")")
			continue
		}
		if !v.Measured {
			out = append(out, c.Text+" (not measured)")
			continue
		}
		s := fmt.Sprintf("%s: %s against %s %s", c.Subject(), c.Metric.Format(v.Value), c.Op, c.Metric.Format(c.Value))
		if c.Value > 0 && v.Value > 0 {
			s += fmt.Sprintf(" (%.2g times the bound)", v.Value/c.Value)
		}
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}

// Snippet is the recommended design as a scenario snippet: the limiter and
// store sections to put in the scenario (and the Worker's configuration).
func Snippet(r Result, window string) string {
	var b strings.Builder
	update := ""
	if r.Design.update() == limiter.Atomic {
		update = ", update: atomic"
	}
	if r.Design.Algorithm == limiter.GCRA && r.Design.Burst > 0 {
		update += fmt.Sprintf(", burst: %d", r.Design.Burst)
	}
	fmt.Fprintf(&b, "limiter: {algorithm: %s, limit: %d, window: %s, error_policy: %s%s}\n", r.Design.Algorithm, r.Limit, window, r.Design.Policy, update)
	switch r.Design.Store {
	case plan.Redis:
		read := "primary"
		if r.Design.ReadReplica {
			read = "replica"
		}
		fmt.Fprintf(&b, "store: {kind: redis, redis: {read: %s}}\n", read)
	case plan.KV:
		fmt.Fprintf(&b, "store: {kind: kv, kv: {cache_ttl: %s}}\n", strconv.FormatFloat(r.Design.CacheTTL.Seconds(), 'f', -1, 64)+"s")
	default:
		fmt.Fprintf(&b, "store: {kind: %s}\n", r.Design.Store)
	}
	return b.String()
}

// ChangeIn names where WorkerChange's changes are made: in the Worker, or
// for a Redis design in the code that calls Redis (a service, not a
// Worker).
func ChangeIn(r Result) string {
	if r.Design.Store == plan.Redis {
		return "the code that calls Redis"
	}
	return "the Worker"
}

// WorkerChange says in words what changes in a Worker like the seed's
// (fixed window in Workers KV, fail-open, cacheTtl 60 s) to ship r, or,
// for a Redis design, in the code that calls Redis (ChangeIn).
func WorkerChange(r Result) string {
	var out []string
	switch r.Design.Store {
	case plan.DurableObject:
		out = append(out, "move the counter from Workers KV to a Durable Object (one object per key: its get and put are atomic; it lives near the first request for it, so callers elsewhere pay the round trip)")
	case plan.PerLocation:
		out = append(out, "replace the KV counter with the Workers Rate Limiting binding (a 10 s or 60 s period; its counters are per location and updated asynchronously, so a key over N locations gets up to N times the limit)")
	case plan.Memory:
		out = append(out, "keep the count in a linearizable store (memory is the reference, not a Workers product: a Durable Object is the nearest)")
	case plan.Redis:
		out = append(out, redisChange(r.Design))
	case plan.KV:
		if r.Design.CacheTTL != 60*time.Second {
			out = append(out, fmt.Sprintf("pass cacheTtl: %d to the KV get", int(r.Design.CacheTTL.Seconds())))
		}
	}
	switch r.Design.Algorithm {
	case limiter.SlidingWindow:
		out = append(out, "count in a sliding window (the previous window's count weighted by what is left of it)")
	case limiter.TokenBucket:
		out = append(out, "keep a token bucket (one stored timestamp, GCRA) instead of a per-window count")
	case limiter.GCRA:
		out = append(out, "keep GCRA (one stored timestamp, go-redis/redis_rate's) "+burstText(r.Design.Burst)+" instead of a per-window count")
	}
	if r.Design.Store == plan.Redis && r.Design.update() == limiter.Atomic {
		out = out[:1] // the script is the algorithm
	}
	if r.Design.Policy == limiter.FailClosed {
		out = append(out, "deny when the store throws instead of allowing (fail closed)")
	}
	out = append(out, fmt.Sprintf("set the limit to %d", r.Limit))
	return strings.Join(out, "; ")
}

// burstText says a gcra design's burst.
func burstText(burst int64) string {
	if burst > 0 {
		return fmt.Sprintf("with a burst of %d", burst)
	}
	return "with a burst of the limit"
}

// redisChange says how the count reaches Redis in design d.
func redisChange(d Design) string {
	if d.update() == limiter.Atomic {
		script := map[limiter.Algorithm]string{
			limiter.FixedWindow:   "INCR and EXPIRE of the window's key",
			limiter.SlidingWindow: "the two-counter sliding window, the previous window's count weighted by what is left of it",
			limiter.TokenBucket:   "GCRA over one stored timestamp (go-redis/redis_rate's)",
			limiter.GCRA:          "GCRA over one stored timestamp (go-redis/redis_rate's) " + burstText(d.Burst),
		}[d.Algorithm]
		return "move the counter to Redis and update it on the primary in one script (" + script + "), instead of a read and a write"
	}
	if d.ReadReplica {
		return "move the counter to Redis, reading it from a replica (GET there, SET EX on the primary)"
	}
	return "move the counter to Redis, reading and writing it on the primary (GET, then SET EX)"
}
