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

// Cost is the KV cost in dollars per million requests; ok is false when the
// design is not priced: its summary has no price (only Workers KV's prices
// are in the sources the model's numbers come from, ../shared/facts, not a
// Durable Object's or the Rate Limiting binding's), or it is the memory
// reference, which is not a store one can ship.
func (r Result) Cost() (usd float64, ok bool) {
	if r.Design.Store == plan.Memory {
		return 0, false
	}
	return r.metric("cost.usd_per_million")
}

// costOrMax orders by cost, an unpriced design after every priced one.
func (r Result) costOrMax() float64 {
	if v, ok := r.Cost(); ok {
		return v
	}
	return math.Inf(1)
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

// rank orders results: those that meet the budget first, by fewest
// legitimate requests denied, then fewest false denials, then least let
// through (allowed p99), then more confidence, then lowest cost, then
// largest limit;
// the others by how many of the budget's conditions they meet. Ties keep
// the design space's order.
func rank(rs []Result) []Result {
	slices.SortStableFunc(rs, func(a, b Result) int {
		if a.Meets != b.Meets {
			if a.Meets {
				return -1
			}
			return 1
		}
		if !a.Meets {
			return cmp.Compare(b.passing(), a.passing())
		}
		return cmp.Or(cmp.Compare(a.LegitDenied(), b.LegitDenied()), cmp.Compare(a.FalseDenials(), b.FalseDenials()),
			cmp.Compare(a.allowed(), b.allowed()), cmp.Compare(b.Confidence, a.Confidence),
			cmp.Compare(a.costOrMax(), b.costOrMax()), cmp.Compare(b.Limit, a.Limit))
	})
	return rs
}

// WriteTable writes the ranked results for people: a line per design
// with whether it meets the budget, its limit, what it lets through (as a
// count and as a multiple of its limit), the false denials of each
// legitimate population, its cost, the latency a request has with it
// (p99, simulated: the store's round trips) and the confidence, then the
// recommendation.
func WriteTable(w io.Writer, budget []measure.Condition, rs []Result) {
	var texts []string
	for _, c := range budget {
		texts = append(texts, c.Text)
	}
	fmt.Fprintf(w, "budget: %s\n\n", strings.Join(texts, " and "))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tdesign\tmeets?\tlimit\tallowed p99\tlegit denied (false)\t$/M req\tlatency p99\tconfidence\t")
	for i, r := range rs {
		meets, limit := "no", "-"
		if r.Meets {
			meets, limit = "yes", fmt.Sprint(r.Limit)
		}
		allowed := "-"
		if v, ok := r.metric("allowed.p99"); ok {
			ratio, _ := r.metric("ratio.p99")
			allowed = fmt.Sprintf("%.0f (%.2fx)", v, ratio)
		}
		design := r.Design.String()
		if r.Design.Store == plan.Memory {
			design += " (reference)"
		}
		lat := "-"
		if v, ok := r.metric("latency.p99"); ok {
			lat = fmt.Sprintf("%.3g ms", v)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.0f%% of %d\t\n", i+1, design, meets, limit, allowed,
			falseDenials(r.Summary), cost(r), lat, 100*r.Confidence, r.Summary.Trials)
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

// Recommend returns the index of the design to ship: the best ranked that
// meets the budget and is a Workers product (memory is the reference, not
// something to deploy), or -1 when none is.
func Recommend(rs []Result) int {
	for i, r := range rs {
		if r.Meets && r.Design.Store != plan.Memory {
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
			return fmt.Sprintf("Only the memory reference meets the budget (%s at a limit of %d): no Workers store does at any limit up to the search's bound.", r.Design, r.Limit)
		}
		return fmt.Sprintf("No design meets the budget at any limit up to the search's bound. Closest: %s; at its scenario limit the budget binds on %s.",
			r.Design, Binding(r.Verdicts))
	}
	r := rs[i]
	if !r.Meets {
		return fmt.Sprintf("No design meets the budget at any limit up to the search's bound. Closest: %s; at its scenario limit the budget binds on %s.",
			r.Design, Binding(r.Verdicts))
	}
	allowed, _ := r.metric("allowed.p99")
	ratio, _ := r.metric("ratio.p99")
	out := fmt.Sprintf("Recommended: %s with a limit of %d: the 99th percentile key-window lets %.0f through (%.2fx), legitimate requests denied (falsely) %s, cost %s per million requests; the budget holds in %.0f%% of %d trials.",
		r.Design, r.Limit, allowed, ratio, falseDenials(r.Summary), cost(r), 100*r.Confidence, r.Summary.Trials)
	for _, v := range r.Verdicts {
		if v.Warning != "" {
			out += " Warning: " + v.Warning + "."
		}
	}
	return out
}

// falseDenials lists each legitimate population's denied share and, in
// brackets, its false-denial share.
func falseDenials(s *measure.Summary) string {
	if s == nil {
		return "-"
	}
	var parts []string
	for _, p := range s.Populations {
		if p.Legitimate && p.Requests > 0 {
			n := float64(p.Requests)
			parts = append(parts, fmt.Sprintf("%s %.2g%% (%.2g%%)", p.Name, 100*float64(p.Denied)/n, 100*float64(p.FalseDenials)/n))
		}
	}
	if len(parts) == 0 {
		return "no legit. population"
	}
	return strings.Join(parts, ", ")
}

// cost is the design's $ per million requests, or "not priced".
func cost(r Result) string {
	if v, ok := r.Cost(); ok {
		return fmt.Sprintf("$%.3g", v)
	}
	return "not priced"
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
	fmt.Fprintf(&b, "limiter: {algorithm: %s, limit: %d, window: %s, error_policy: %s}\n", r.Design.Algorithm, r.Limit, window, r.Design.Policy)
	switch r.Design.Store {
	case plan.KV:
		fmt.Fprintf(&b, "store: {kind: kv, kv: {cache_ttl: %s}}\n", strconv.FormatFloat(r.Design.CacheTTL.Seconds(), 'f', -1, 64)+"s")
	default:
		fmt.Fprintf(&b, "store: {kind: %s}\n", r.Design.Store)
	}
	return b.String()
}

// WorkerChange says in words what changes in a Worker like the seed's
// (fixed window in Workers KV, fail-open, cacheTtl 60 s) to ship r.
func WorkerChange(r Result) string {
	var out []string
	switch r.Design.Store {
	case plan.DurableObject:
		out = append(out, "move the counter from Workers KV to a Durable Object (one object per key: its get and put are atomic)")
	case plan.PerLocation:
		out = append(out, "replace the KV counter with the Workers Rate Limiting binding (counters per location, a 10 s or 60 s period)")
	case plan.Memory:
		out = append(out, "keep the count in a linearizable store (memory is the reference, not a Workers product: a Durable Object is the nearest)")
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
	}
	if r.Design.Policy == limiter.FailClosed {
		out = append(out, "deny when the store throws instead of allowing (fail closed)")
	}
	out = append(out, fmt.Sprintf("set the limit to %d", r.Limit))
	return strings.Join(out, "; ")
}
