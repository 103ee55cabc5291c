// Package advise answers the question engineers tuning a limiter ask before
// a launch: what should I set so that at most X gets through without
// locking out real users, and what does it cost? It simulates every design
// of a design space (algorithm, store, error policy) under the scenario's
// own traffic at the product's limit (the scenario's, or one given), checks
// each against a budget (measure.Condition, the grammar of -threshold), and
// ranks them. A design whose limit never binds at that limit (every denial
// came from the store's errors, none from the count: e.g. Workers KV
// fail-closed when the write limit's 429s deny first) does not enforce the
// limit, whatever the budget says: it is marked and never meets it.
//
// On request (Options.SearchLimit) it finds instead, per design, the largest
// limit that meets the budget. The search per design: the limit grid 1, 2, 4, ... up to MaxLimit (and
// the scenario's own limit) is simulated, trials in batches so that a
// clear loser stops after the first; where the limits that meet the budget
// form one run of the grid, the largest is refined by bisection between it
// and the next grid limit; where they do not, the result says the budget
// is not monotone in the limit there and keeps the largest grid limit that
// meets it.
package advise

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/model"
	"github.com/overshoot-dev/overshoot/internal/plan"
)

// Design is one candidate: an algorithm, a store (Workers KV with one of
// the cacheTtl values the platform allows, a Durable Object, per-location
// counters, Redis, memory as the reference), how the limiter reaches the
// store (on Redis: read-then-write or atomic, reading from the primary or
// a replica) and an error policy.
type Design struct {
	Algorithm limiter.Algorithm `json:"algorithm"`
	Store     plan.StoreKind    `json:"-"`
	StoreName string            `json:"store"`
	// CacheTTL is Workers KV's cacheTtl (kv only).
	CacheTTL time.Duration `json:"-"`
	// Update is the limiter's update shape ("" is read-then-write); only
	// the Redis designs are atomic.
	Update limiter.Update `json:"update,omitempty"`
	// ReadReplica reads the count from a replica (redis only).
	ReadReplica bool           `json:"read_replica,omitempty"`
	Policy      limiter.Policy `json:"error_policy"`
	// Burst is a gcra design's burst (0: the scenario's; WithGCRA).
	Burst int64 `json:"burst,omitempty"`
}

// update is d's update shape, read-then-write when unset.
func (d Design) update() limiter.Update {
	if d.Update == "" {
		return limiter.ReadThenWrite
	}
	return d.Update
}

// String names the design for people.
func (d Design) String() string {
	s := string(d.Algorithm)
	if d.Algorithm == limiter.GCRA && d.Burst > 0 {
		s += " (burst " + strconv.FormatInt(d.Burst, 10) + ")"
	}
	s += " on " + d.Store.String()
	switch d.Store {
	case plan.KV:
		s += " (cacheTtl " + strconv.FormatFloat(d.CacheTTL.Seconds(), 'f', -1, 64) + "s)"
	case plan.Redis:
		read := "primary"
		if d.ReadReplica {
			read = "replica reads"
		}
		s += " (" + string(d.update()) + ", " + read + ")"
	}
	return s + ", " + string(d.Policy)
}

// KVCacheTTLs are the cacheTtl values tried for Workers KV: the default
// (60 s) and the least the platform allows (30 s, changelog 2026-01-30).
var KVCacheTTLs = []time.Duration{60 * time.Second, 30 * time.Second}

// algorithms are the space's algorithms: gcra at its default burst decides
// as token-bucket (on Redis, token-bucket is the GCRA script); WithGCRA
// adds it, with a burst of its own.
var algorithms = []limiter.Algorithm{limiter.FixedWindow, limiter.SlidingWindow, limiter.TokenBucket}

// Space returns the default design space for pl: every algorithm on every
// store, fail-open and fail-closed. Per-location counters stand for the
// Workers Rate Limiting binding, whose period is 10 s or 60 s: they are
// tried only when the scenario's window is one of those. The Redis
// designs (RedisSpace) are in it when the scenario's store is redis.
func Space(pl *plan.Plan) []Design {
	stores := []Design{}
	for _, ttl := range KVCacheTTLs {
		stores = append(stores, Design{Store: plan.KV, CacheTTL: ttl})
	}
	stores = append(stores, Design{Store: plan.DurableObject})
	if w := pl.Limiter.Window; w == 10*time.Second || w == time.Minute {
		stores = append(stores, Design{Store: plan.PerLocation})
	}
	stores = append(stores, Design{Store: plan.Memory})
	out := cross(stores)
	if pl.Store.Kind == plan.Redis {
		out = append(out, RedisSpace(pl)...)
	}
	return out
}

// RedisSpace returns the Redis designs the model can run for pl, every
// algorithm, fail-open and fail-closed: read-then-write on the primary
// (the seed's GET and SET EX); atomic on the primary (INCR and EXPIRE for
// the fixed window, the two-counter sliding window, GCRA for the token
// bucket, each one script), unless the scenario WAITs after writes or
// models the serving side (the model refuses atomic updates there); and
// read-then-write reading the count from a replica, when there is one.
// They run under the scenario's store.redis, or the model's redis
// defaults when the scenario's store is another (see Notes).
func RedisSpace(pl *plan.Plan) []Design {
	r := pl.Store.Redis
	shapes := []Design{{Store: plan.Redis, Update: limiter.ReadThenWrite}}
	if r.Wait == 0 && pl.Server.Mode == plan.ServerNone {
		shapes = append(shapes, Design{Store: plan.Redis, Update: limiter.Atomic})
	}
	if r.Replicas > 0 {
		shapes = append(shapes, Design{Store: plan.Redis, Update: limiter.ReadThenWrite, ReadReplica: true})
	}
	return cross(shapes)
}

// WithGCRA returns space with a gcra design of burst (0: the limit) beside
// every token-bucket one: gcra runs wherever the token bucket does (the
// core's one GCRA, read-then-write on any store, the GCRA script on
// Redis), and only its burst tells it apart.
func WithGCRA(space []Design, burst int64) []Design {
	out := slices.Clone(space)
	for _, d := range space {
		if d.Algorithm == limiter.TokenBucket {
			d.Algorithm, d.Burst = limiter.GCRA, burst
			out = append(out, d)
		}
	}
	return out
}

// cross is every algorithm on every store design, each error policy.
func cross(stores []Design) []Design {
	var out []Design
	for _, a := range algorithms {
		for _, st := range stores {
			for _, p := range limiter.Policies {
				d := st
				d.Algorithm, d.Policy, d.StoreName = a, p, st.Store.String()
				out = append(out, d)
			}
		}
	}
	return out
}

// Notes say, for people reading the advice on pl over designs, what the
// designs run under when it is not the scenario's own: the Redis designs
// on the model's redis defaults when the scenario's store is not redis,
// and the other designs without the scenario's faults (the model runs
// faults on redis only).
func Notes(pl *plan.Plan, designs []Design) []string {
	var redis, other bool
	for _, d := range designs {
		if d.Store == plan.Redis {
			redis = true
		} else {
			other = true
		}
	}
	var out []string
	if redis && pl.Store.Kind != plan.Redis {
		out = append(out, fmt.Sprintf("the scenario's store is %s: the Redis designs run on the model's redis defaults (a primary, %d replicas, docs/facts.md \"Redis\"), without faults", pl.Store.Kind, pl.Store.Redis.Replicas))
	}
	if other && len(pl.Faults) > 0 {
		out = append(out, fmt.Sprintf("the scenario's %d faults apply to the Redis designs only: the other designs run without them (the model has faults on redis alone)", len(pl.Faults)))
	}
	return out
}

// Options say what to look for and how hard.
type Options struct {
	// Budget is what a design must meet, every condition at once.
	Budget []measure.Condition
	// Designs is the design space (default: Space).
	Designs []Design
	// Seed, Trials (per limit tried, default 10) and Workers as simulate's.
	Seed    uint64
	Trials  int
	Workers int
	// Limit is the product's limit every design must enforce (default: the
	// scenario's).
	Limit int64
	// SearchLimit asks instead for each design's largest limit meeting the
	// budget, up to MaxLimit.
	SearchLimit bool
	// MaxLimit bounds the limits tried by SearchLimit (default: 64 times
	// the scenario's limit, at least 1,024).
	MaxLimit int64
	// Progress, when set, is called after each simulated limit.
	Progress func(done int, design Design, limit int64)
	// Context stops the search; the results so far are returned with the
	// context's error.
	Context context.Context
}

// Result is one design's answer.
type Result struct {
	Design Design `json:"design"`
	// Meets says whether the design enforces Limit within the budget: the
	// budget holds and the limit binds. With SearchLimit, Limit is the
	// largest limit that does (0 when none).
	Meets bool  `json:"meets"`
	Limit int64 `json:"limit"`
	// NeverBinds is set when the limit never bound at Limit (with
	// SearchLimit: at any limit tried that met the rest of the budget):
	// the store's errors denied every request that was denied. Unbound
	// says why, in words.
	NeverBinds bool   `json:"never_binds,omitempty"`
	Unbound    string `json:"unbound,omitempty"`
	// Summary is the design's simulated summary at Limit, or at the
	// product's limit when no limit meets the budget.
	Summary *measure.Summary `json:"-"`
	// Verdicts are the budget's conditions checked on Summary.
	Verdicts []measure.Verdict `json:"-"`
	// Confidence is the share of Summary's trials that meet the budget
	// on their own.
	Confidence float64 `json:"confidence"`
	// Monotone is false when the limits that meet the budget do not form
	// one run of the grid; Note says where.
	Monotone bool   `json:"monotone"`
	Note     string `json:"note,omitempty"`
	// Evaluations and Trials are the simulations the search ran.
	Evaluations int `json:"evaluations"`
	Trials      int `json:"trials"`
}

// Advise simulates every design and returns the results ranked (see rank):
// the designs that enforce the limit within the budget first, then the
// others by how close they came, those whose limit never binds last.
func Advise(pl *plan.Plan, o Options) ([]Result, error) {
	if len(o.Budget) == 0 {
		return nil, fmt.Errorf("advise: no budget: give at least one, e.g. -budget 'allowed.p99<=120'")
	}
	if o.Trials <= 0 {
		o.Trials = 10
	}
	if o.MaxLimit <= 0 {
		o.MaxLimit = max(64*pl.Limiter.Limit, 1024)
	}
	o.MaxLimit = min(o.MaxLimit, limiter.MaxLimit)
	if o.Limit <= 0 {
		o.Limit = pl.Limiter.Limit
	}
	if o.Limit > limiter.MaxLimit {
		return nil, fmt.Errorf("advise: limit %d is out of range: give at most %d", o.Limit, int64(limiter.MaxLimit))
	}
	if o.Designs == nil {
		o.Designs = Space(pl)
	}
	if o.Context == nil {
		o.Context = context.Background()
	}
	s := &search{pl: pl, o: o}
	var out []Result
	for _, d := range o.Designs {
		r, err := s.design(d)
		if err != nil {
			return rank(out), err
		}
		out = append(out, r)
	}
	return rank(out), nil
}

// search holds what one Advise call shares across designs.
type search struct {
	pl   *plan.Plan
	o    Options
	done int
}

// evaluation is one design simulated at one limit.
type evaluation struct {
	limit   int64
	summary *measure.Summary
	meets   bool    // the budget holds and the limit binds
	unbound string  // why the limit never bound ("" when it did)
	share   float64 // of trials meeting the budget on their own
	trials  int
}

// design checks d at the product's limit, or with SearchLimit finds its
// largest limit meeting the budget.
func (s *search) design(d Design) (Result, error) {
	if !s.o.SearchLimit {
		e, err := s.evaluate(d, s.o.Limit)
		if err != nil {
			return Result{Design: d}, err
		}
		r := Result{Design: d, Monotone: true, Meets: e.meets, Limit: s.o.Limit, Evaluations: 1, Trials: e.trials}
		r.setFrom(e, s.o.Budget)
		return r, nil
	}
	return s.searchLimit(d)
}

// setFrom fills r's summary, verdicts, confidence and binding from e.
func (r *Result) setFrom(e *evaluation, budget []measure.Condition) {
	r.Summary, r.Confidence = e.summary, e.share
	r.Verdicts = measure.Check(e.summary, budget)
	r.NeverBinds, r.Unbound = e.unbound != "", e.unbound
}

// searchLimit finds d's largest limit meeting the budget.
func (s *search) searchLimit(d Design) (Result, error) {
	r := Result{Design: d, Monotone: true}
	evals := map[int64]*evaluation{}
	eval := func(limit int64) (*evaluation, error) {
		if e, ok := evals[limit]; ok {
			return e, nil
		}
		e, err := s.evaluate(d, limit)
		if err != nil {
			return nil, err
		}
		evals[limit] = e
		r.Evaluations++
		r.Trials += e.trials
		return e, nil
	}
	var grid []int64
	for l := int64(1); l <= s.o.MaxLimit; l *= 2 {
		grid = append(grid, l)
	}
	if own := s.o.Limit; own <= s.o.MaxLimit && !slices.Contains(grid, own) {
		grid = append(grid, own)
		slices.Sort(grid)
	}
	var meets []int
	for i, l := range grid {
		e, err := eval(l)
		if err != nil {
			return r, err
		}
		if e.meets {
			meets = append(meets, i)
		}
	}
	pick := func(e *evaluation) { r.setFrom(e, s.o.Budget) }
	if len(meets) == 0 {
		e, _ := eval(s.o.Limit)
		if e == nil {
			e, _ = eval(grid[0])
		}
		pick(e)
		return r, nil
	}
	last := meets[len(meets)-1]
	if last-meets[0]+1 != len(meets) {
		r.Monotone = false
		var ls []string
		for i, l := range grid {
			mark := "fails"
			if slices.Contains(meets, i) {
				mark = "meets"
			}
			ls = append(ls, fmt.Sprintf("%d %s", l, mark))
		}
		r.Note = "the budget is not monotone in the limit here (" + strings.Join(ls, ", ") + "): the largest grid limit that meets it is kept, without bisection"
	}
	lo := grid[last]
	if r.Monotone && last+1 < len(grid) {
		// Bisect between the largest limit that meets the budget and the
		// next grid limit, which does not.
		hi := grid[last+1]
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			e, err := eval(mid)
			if err != nil {
				return r, err
			}
			if e.meets {
				lo = mid
			} else {
				hi = mid
			}
		}
	}
	r.Meets, r.Limit = true, lo
	pick(evals[lo])
	return r, nil
}

// evaluate simulates design d at limit, trials in batches: it stops after
// a batch in which no trial met the budget and the pooled summary fails it
// (a clear loser costs one batch).
func (s *search) evaluate(d Design, limit int64) (*evaluation, error) {
	pl := variant(s.pl, d, limit)
	batch := max(2, s.o.Trials/4)
	var trials []measure.Trial
	e := &evaluation{limit: limit}
	met := 0
	pass := func(sum *measure.Summary) bool {
		return allPass(measure.Check(sum, s.o.Budget)) && Unbound(sum) == ""
	}
	for from := 0; from < s.o.Trials; from += batch {
		to := min(from+batch, s.o.Trials)
		got, err := model.RunTrials(pl, model.Options{Seed: s.o.Seed, Trials: s.o.Trials, Workers: s.o.Workers, Context: s.o.Context,
			Only: func(i int) bool { return i >= from && i < to }})
		if err != nil {
			return nil, err
		}
		for _, t := range got {
			one := measure.Summarize(model.Base(pl, s.o.Seed), limit, []measure.Trial{t})
			if pass(&one) {
				met++
			}
		}
		trials = append(trials, got...)
		sum := measure.Summarize(model.Base(pl, s.o.Seed), limit, trials)
		e.summary, e.trials = &sum, len(trials)
		e.meets, e.unbound = pass(&sum), Unbound(&sum)
		if met == 0 && !e.meets {
			break
		}
	}
	e.share = float64(met) / float64(max(e.trials, 1))
	s.done++
	if s.o.Progress != nil {
		s.o.Progress(s.done, d, limit)
	}
	return e, nil
}

// Unbound says why the limit never bound in s, or "" when it did (or
// when nothing was denied at all: the traffic never reached it): every
// denial came from the error policy failing closed on the store's errors,
// none from the count reaching the limit.
func Unbound(s *measure.Summary) string {
	t := s.Totals
	if t.FailClosed == 0 || t.Denied > t.FailClosed {
		return ""
	}
	var why []string
	for _, c := range []struct {
		n    int64
		what string
	}{{s.KV.WriteRateLimited, "write 429s"}, {s.KV.WriteErrors - s.KV.WriteRateLimited, "other failed writes"}, {s.KV.ReadErrors, "failed reads"}} {
		if c.n > 0 {
			why = append(why, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	return fmt.Sprintf("limit never binds: all %d denials were store errors failing closed (%s), none the count reaching %d",
		t.Denied, strings.Join(why, ", "), s.Limiter.Limit)
}

// variant is pl with design d and limit: d's update shape (read-then-write
// unless d is atomic) and, on Redis, where it reads; only gcra has a
// burst, its design's or else the scenario's. The scenario's faults stay with the Redis designs:
// the others run without them.
func variant(pl *plan.Plan, d Design, limit int64) *plan.Plan {
	q := *pl
	q.Limiter.Algorithm, q.Limiter.Policy, q.Limiter.Limit = d.Algorithm, d.Policy, limit
	q.Limiter.Update = d.update()
	if d.Algorithm != limiter.GCRA {
		q.Limiter.Burst = 0
	} else if d.Burst > 0 {
		q.Limiter.Burst = d.Burst
	}
	q.Store.Kind = d.Store
	switch d.Store {
	case plan.KV:
		if d.CacheTTL > 0 {
			q.Store.KV.CacheTTL = d.CacheTTL
		}
	case plan.Redis:
		q.Store.Redis.ReadReplica = d.ReadReplica
	}
	if d.Store != plan.Redis {
		q.Faults = nil
	}
	return &q
}

// allPass reports whether every verdict passes.
func allPass(vs []measure.Verdict) bool {
	for _, v := range vs {
		if !v.Pass {
			return false
		}
	}
	return len(vs) > 0
}
