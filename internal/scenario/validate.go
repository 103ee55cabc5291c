package scenario

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/measure"
)

// fieldError is a validation error at a field path; Load turns it into an
// *Error positioned at that field in the file.
type fieldError struct {
	path, msg string
}

func (e *fieldError) Error() string { return e.msg }

// errAt returns a fieldError whose message starts with the path.
func errAt(path, format string, args ...any) error {
	return &fieldError{path: path, msg: path + ": " + fmt.Sprintf(format, args...)}
}

// MaxErrors bounds how many problems Validate reports at once.
const MaxErrors = 20

// fieldErrors are several validation errors, in the order found; Load
// positions each.
type fieldErrors []*fieldError

func (es fieldErrors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.msg
	}
	return strings.Join(msgs, "\n")
}

// Unwrap returns each error, so that errors.As finds the first.
func (es fieldErrors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// Validate checks every range and reference of a scenario whose defaults
// are filled in (SetDefaults), and returns its problems, each naming its
// field path and what is allowed: the first of each part of the scenario
// (the limiter, each location, the store, each population, ...), up to
// MaxErrors, so that a user fixes them in one go rather than one a run.
func (s *Scenario) Validate() error {
	var errs fieldErrors
	add := func(err error) {
		if err == nil || len(errs) >= MaxErrors {
			return
		}
		var fe *fieldError
		if !errors.As(err, &fe) {
			fe = &fieldError{msg: err.Error()}
		}
		errs = append(errs, fe)
	}
	if s.Trials < 1 || s.Trials > MaxTrials {
		add(errAt("trials", "%d is out of range: must be between 1 and %d", s.Trials, MaxTrials))
	}
	add(s.validateLimiter())
	if s.Duration <= 0 {
		add(errAt("duration", "must be above 0, e.g. 2d"))
	}
	checkLoc := s.validateLocations(add)
	add(s.validateStore(checkLoc))
	add(s.validateRedis())
	s.validateFaults(add)
	add(s.validateMisfit())
	if len(s.Traffic) == 0 {
		add(errAt("traffic", "is empty: give at least one population, e.g. traffic: [{name: bot, closed_loop: {concurrency: 1}}]"))
	}
	pops := map[string]bool{}
	for i, p := range s.Traffic {
		if pops[p.Name] {
			add(errAt(fmt.Sprintf("traffic.%d.name", i), "%q is used twice: population names must be unique", p.Name))
			continue
		}
		pops[p.Name] = true
		add(s.validatePopulation("traffic."+p.Name, p, checkLoc))
	}
	add(s.validateAdvise())
	if _, err := measure.LookupMetric(s.Report.Headline); err != nil {
		add(errAt("report.headline", "%v", err))
	}
	add(s.validateServer())
	add(s.validateLive())
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	return errs
}

// validateLocations checks the locations, handing each problem to add, and
// returns the check of a location's name that other parts use.
func (s *Scenario) validateLocations(add func(error)) func(path, name string) error {
	locs := map[string]bool{}
	for i, l := range s.Locations {
		p := fmt.Sprintf("locations.%d", i)
		if locs[l.Name] {
			add(errAt(p+".name", "%q is used twice: location names must be unique", l.Name))
		}
		locs[l.Name] = true
		if !(l.Weight > 0) || math.IsInf(l.Weight, 0) {
			add(errAt("locations."+l.Name+".weight", "%v is out of range: must be above 0", l.Weight))
		}
	}
	locNames := func() string {
		var n []string
		for _, l := range s.Locations {
			n = append(n, l.Name)
		}
		return strings.Join(n, ", ")
	}
	return func(path, name string) error {
		if !locs[name] {
			return errAt(path, "location %q is not in locations (%s)", name, locNames())
		}
		return nil
	}
}

// validateMisfit checks calibrated.misfit, which -calibrate writes: two
// finite numbers, the first in (0, 1] and the second at least 1.
func (s *Scenario) validateMisfit() error {
	if s.Calibrated == nil || s.Calibrated.Misfit == nil {
		return nil
	}
	m := s.Calibrated.Misfit
	if !measure.ValidMisfit(m) {
		return errAt("calibrated.misfit", "%v must be two numbers, the first above 0 and at most 1, the second at least 1 and finite (as -calibrate writes them): calibrate again or remove it", m)
	}
	return nil
}

// validateLive checks the live section.
func (s *Scenario) validateLive() error {
	lv := s.Live
	if lv.Duration <= 0 {
		return errAt("live.duration", "must be above 0, e.g. 10s")
	}
	if lv.MaxRequests < 0 {
		return errAt("live.max_requests", "%d is negative: give 0 (no bound) or more", lv.MaxRequests)
	}
	if !(lv.TimeScale > 0) || math.IsInf(lv.TimeScale, 0) {
		return errAt("live.time_scale", "%v is out of range: must be above 0 (1 is real time)", lv.TimeScale)
	}
	if lv.Window < 0 || time.Duration(lv.Window)%time.Millisecond != 0 {
		return errAt("live.window", "%v is not a whole number of milliseconds above 0: JavaScript clocks tick in milliseconds, use e.g. 1500ms or 60s (or leave it out for the limiter's window)", lv.Window)
	}
	return nil
}

// MaxBatch bounds server.batch_max.
const MaxBatch = 1_000_000

// validateServer checks the server section: its mode, that mode none sets
// nothing else, that single-thread runs on the store it models, the
// latencies and the batch bound.
func (s *Scenario) validateServer() error {
	sv := s.Server
	if sv == nil {
		return nil
	}
	switch sv.Mode {
	case ServerNone:
		if !sv.onlyMode() {
			return errAt("server", "sets cpu, rtt, wake, proxy, send or stall but server.mode is none: set mode: single-thread, or remove them")
		}
		return nil
	case ServerSingleThread:
	default:
		return errAt("server.mode", "%q is unknown: use one of %s", sv.Mode, strings.Join(ServerModes, ", "))
	}
	if s.Store.Kind != KindMemory {
		return errAt("server.mode", "single-thread models wrangler dev, whose local KV is linearizable: it runs on store.kind memory, not %s; set store.kind: memory", s.Store.Kind)
	}
	for _, l := range sv.Latencies() {
		if l.Path == "server.wake" && l.Latency.IsZero() {
			continue // unset: no wait
		}
		// The proxy's have no default: a proxy gives both.
		if strings.HasPrefix(l.Path, "server.proxy.") && l.Latency.IsZero() {
			return errAt(l.Path, "is missing: give the proxy's thread time per request, e.g. 500us")
		}
		if strings.HasPrefix(l.Path, "server.send.") && l.Latency.IsZero() {
			return errAt(l.Path, "is missing: give both of server.send, e.g. send: {first: 150us, next: 35us}")
		}
		if strings.HasPrefix(l.Path, "server.stall.") && l.Latency.IsZero() {
			return errAt(l.Path, "is missing: give both of server.stall, e.g. stall: {every: {dist: exponential, mean: 250ms}, lasts: {dist: lognormal, median: 35ms, p99: 120ms}}")
		}
		if err := latency(l.Path, l.Latency); err != nil {
			return err
		}
		if l.Path == "server.stall.every" && l.Latency.MeanDuration() < MinStallEvery {
			return errAt(l.Path, "has a mean of %v, below %v: a thread stopping that often is a slower step; give a longer time between stalls, or make the steps slower", l.Latency.MeanDuration(), MinStallEvery)
		}
	}
	if sv.BatchMax < 1 || sv.BatchMax > MaxBatch {
		return errAt("server.batch_max", "%d is out of range: give 1 to %d (workerd takes at most 16 at a time)", sv.BatchMax, MaxBatch)
	}
	return nil
}

func (s *Scenario) validateLimiter() error {
	l := s.Limiter
	if l.Limit == 0 && !s.given("limiter.limit") {
		return errAt("limiter.limit", "is missing: give the number of requests the limiter lets through per window (e.g. limiter: {limit: 100, window: 1m})")
	}
	if l.Window == 0 && !s.given("limiter.window") {
		return errAt("limiter.window", "is missing: give the limiter's window (e.g. limiter: {limit: 100, window: 1m})")
	}
	// The limiter's own check, in its words.
	cfg := limiter.Config{Name: l.Name, Algorithm: limiter.Algorithm(l.Algorithm), Limit: l.Limit, Window: l.Window.D(),
		Policy: limiter.Policy(l.ErrorPolicy), Update: limiter.Update(l.Update), Burst: l.Burst}
	var ce *limiter.ConfigError
	if err := cfg.Check(); errors.As(err, &ce) {
		return errAt("limiter."+ce.Field, "%s", ce.Msg)
	}
	if err := s.validateUpdate(); err != nil {
		return err
	}
	// Empty is the limiter's default, which SetDefaults fills: a scenario
	// built without it names none.
	if l.Algorithm == "" {
		return errAt("limiter.algorithm", "is empty: use one of %s", limiter.JoinNames(limiter.Algorithms))
	}
	if l.ErrorPolicy == "" {
		return errAt("limiter.error_policy", "is empty: use one of %s", limiter.JoinNames(limiter.Policies))
	}
	if err := (limiter.TokenSource{From: l.Token.From, Name: l.Token.Name}).Validate(); err != nil {
		return errAt("limiter.token", "%v", err)
	}
	if l.Key != "" && !slices.Contains(limiter.KeyModes, limiter.KeyBy(l.Key)) { // "": the seed's
		return errAt("limiter.key", "%q is unknown: use one of %s", l.Key, limiter.JoinNames(limiter.KeyModes))
	}
	return nil
}

// validateUpdate checks that the store and the serving side can run the
// limiter's update shape: the atomic one needs a store that applies an
// update in one step.
func (s *Scenario) validateUpdate() error {
	if limiter.Update(s.Limiter.Update) != limiter.Atomic {
		return nil
	}
	switch s.Store.Kind {
	case KindKV:
		return errAt("limiter.update", "atomic: Workers KV has no atomic update (a get and a put are two calls, and the last write wins): use read-then-write on store kv, or store.kind redis, memory or durable-object")
	case KindPerLocation:
		return errAt("limiter.update", "atomic: the per-location store (the Rate Limiting binding) counts in its own shape: use read-then-write on it, or store.kind redis, memory or durable-object")
	}
	if s.Server != nil && s.Server.Mode != "" && s.Server.Mode != ServerNone {
		return errAt("limiter.update", "atomic: the model of the serving side (server.mode %s) runs read-then-write steps only: use read-then-write, or server.mode none", s.Server.Mode)
	}
	return nil
}

// probability checks that v is in [0, 1].
func probability(path string, v float64) error {
	if !(v >= 0 && v <= 1) {
		return errAt(path, "%v is out of range: a probability is between 0 and 1", v)
	}
	return nil
}

// latency checks a latency and prefixes its path.
func latency(path string, l Latency) error {
	if err := l.Validate(); err != nil {
		return errAt(path, "%v", err)
	}
	return nil
}

func (s *Scenario) validateStore(checkLoc func(path, name string) error) error {
	st := s.Store
	if !slices.Contains(StoreKinds, st.Kind) {
		return errAt("store.kind", "%q is unknown: use one of %s", st.Kind, strings.Join(StoreKinds, ", "))
	}
	kv := st.KV
	if kv.CacheTTL.D() < MinCacheTTL {
		return errAt("store.kv.cache_ttl", "%v is below KV's minimum cacheTtl of 30s (changelog 2026-01-30)", kv.CacheTTL)
	}
	for _, c := range []struct {
		path string
		l    Latency
	}{
		{"store.kv.hot_read", kv.HotRead},
		{"store.kv.cold_read", kv.ColdRead},
		{"store.kv.write", kv.Write},
		{"store.kv.purge.lag", kv.Purge.Lag},
		{"store.durable_object.rtt", st.DurableObject.RTT},
		{"store.durable_object.local", st.DurableObject.Local},
		{"store.latency", st.Latency},
	} {
		if err := latency(c.path, c.l); err != nil {
			return err
		}
	}
	if err := probability("store.kv.read_your_writes_failure", kv.ReadYourWritesP); err != nil {
		return err
	}
	if kv.CacheDomains < 1 {
		return errAt("store.kv.cache_domains", "%d is out of range: must be 1 or more", kv.CacheDomains)
	}
	if kv.CacheDomainPer != "operation" && kv.CacheDomainPer != "request" {
		return errAt("store.kv.cache_domain_per", "%q is unknown: use operation (each KV call picks a cache) or request (a Worker request keeps one)", kv.CacheDomainPer)
	}
	if !(kv.WriteLimit.PerSecond >= 0) || math.IsInf(kv.WriteLimit.PerSecond, 0) {
		return errAt("store.kv.write_limit.per_second", "%v is out of range: give 0 (no limit) or more; KV's is 1", kv.WriteLimit.PerSecond)
	}
	if kv.WriteLimit.Scope != "location" && kv.WriteLimit.Scope != "global" {
		return errAt("store.kv.write_limit.scope", "%q is unknown: use location or global", kv.WriteLimit.Scope)
	}
	if kv.DailyWriteQuota < 0 {
		return errAt("store.kv.daily_write_quota", "%d is negative: give 0 (paid plan, none) or the quota, e.g. %d (free plan)", kv.DailyWriteQuota, FreePlanDailyWrites)
	}
	if kv.DailyReadQuota < 0 {
		return errAt("store.kv.daily_read_quota", "%d is negative: give 0 (paid plan, none) or the quota, e.g. %d (free plan)", kv.DailyReadQuota, FreePlanDailyReads)
	}
	for i, o := range kv.Outages {
		p := fmt.Sprintf("store.kv.outages.%d", i)
		if o.Duration <= 0 {
			return errAt(p+".duration", "must be above 0, e.g. 5m")
		}
		if o.Location != "" {
			if err := checkLoc(p+".location", o.Location); err != nil {
				return err
			}
		}
		if o.Ops != "read" && o.Ops != "write" && o.Ops != "all" {
			return errAt(p+".ops", "%q is unknown: use read, write or all", o.Ops)
		}
	}
	if err := probability("store.kv.error_rate.read", kv.ErrorRate.Read); err != nil {
		return err
	}
	if err := probability("store.kv.error_rate.write", kv.ErrorRate.Write); err != nil {
		return err
	}
	do := st.DurableObject
	if do.Location != DurableObjectFirstRequest {
		if err := checkLoc("store.durable_object.location", do.Location); err != nil {
			return err
		}
	}
	if st.RateLimit.Sync < 0 {
		return errAt("store.rate_limit.sync", "%s is negative: give 0 (an exact counter per location) or more", st.RateLimit.Sync)
	}
	if !(do.MaxRPS >= 0) || math.IsInf(do.MaxRPS, 0) {
		return errAt("store.durable_object.max_rps", "%v is out of range: give 0 (no limit) or more", do.MaxRPS)
	}
	return nil
}

// validateIdentity checks what a population's clients send: each mode's
// own parameter set, and no other mode's.
func validateIdentity(pp string, id Identity) error {
	pool := func(field string, n int, mode string) error {
		if n < 1 || n > MaxClients {
			return errAt(pp+".identity."+field, "%d is out of range: %s needs %s of 1 to %d", n, mode, field, MaxClients)
		}
		return nil
	}
	unused := func(field string, n int, mode, key string) error {
		if n != 0 {
			return errAt(pp+".identity."+field, "is set but identity.%s is %q: use %s: %s", key, mode, key, map[string]string{
				"rotate_every": "rotating", "token_pool": "pool", "nat_pool": "nat", "ip_pool": "pool"}[field])
		}
		return nil
	}
	switch id.Token {
	case "per-client", "shared", "none", "rotating", "pool":
	default:
		return errAt(pp+".identity.token", "%q is unknown: use per-client, rotating, pool, shared or none", id.Token)
	}
	if id.Token == "rotating" {
		if id.RotateEvery < 1 {
			return errAt(pp+".identity.rotate_every", "%d is out of range: a rotating token needs rotate_every of 1 or more requests", id.RotateEvery)
		}
	} else if err := unused("rotate_every", id.RotateEvery, id.Token, "token"); err != nil {
		return err
	}
	if id.Token == "pool" {
		if err := pool("token_pool", id.TokenPool, "a token pool"); err != nil {
			return err
		}
	} else if err := unused("token_pool", id.TokenPool, id.Token, "token"); err != nil {
		return err
	}
	switch id.IP {
	case "per-client", "shared", "none", "nat", "pool":
	default:
		return errAt(pp+".identity.ip", "%q is unknown: use per-client, nat, pool, shared or none", id.IP)
	}
	if id.IP == "nat" {
		if id.NATPool < 1 {
			return errAt(pp+".identity.nat_pool", "%d is out of range: a NAT needs nat_pool of 1 or more addresses", id.NATPool)
		}
	} else if err := unused("nat_pool", id.NATPool, id.IP, "ip"); err != nil {
		return err
	}
	if id.IP == "pool" {
		return pool("ip_pool", id.IPPool, "an address pool")
	}
	return unused("ip_pool", id.IPPool, id.IP, "ip")
}

// validatePopulation checks population p, at path pp: its clients, its
// identity, its arrival, its one kind of load and its start.
func (s *Scenario) validatePopulation(pp string, p Population, checkLoc func(path, name string) error) error {
	if p.Clients < 1 || p.Clients > MaxClients {
		return errAt(pp+".clients", "%d is out of range: must be 1 to %d", p.Clients, MaxClients)
	}
	if err := validateIdentity(pp, p.Identity); err != nil {
		return err
	}
	if err := validateArrival(pp, p.Arrive, checkLoc); err != nil {
		return err
	}
	if err := validateLoad(pp, p); err != nil {
		return err
	}
	if p.Start >= s.Duration {
		return errAt(pp+".start", "%v is not before the end of the trial (duration %v): the population would send nothing", p.Start, s.Duration)
	}
	return nil
}

// validateArrival checks population pp's arrive section a: per only with
// spread and weighted, and the location or weights its mode needs.
func validateArrival(pp string, a Arrive, checkLoc func(path, name string) error) error {
	switch {
	case a.Per != "" && a.Mode != "spread" && a.Mode != "weighted":
		return errAt(pp+".arrive.per", "is set but arrive.mode is %s: per applies to spread and weighted only", a.Mode)
	case a.Per != "" && a.Per != "client" && a.Per != "request":
		return errAt(pp+".arrive.per", "%q is unknown: use client (each client stays at the location it drew) or request (every request draws one)", a.Per)
	}
	switch a.Mode {
	case "one":
		if len(a.Weights) > 0 {
			return errAt(pp+".arrive.weights", "are set but arrive.mode is one: use mode: weighted")
		}
		if err := checkLoc(pp+".arrive.location", a.Location); err != nil {
			return err
		}
	case "spread", "alternate":
		if a.Location != "" || len(a.Weights) > 0 {
			return errAt(pp+".arrive", "mode %s uses every location: remove location and weights", a.Mode)
		}
	case "weighted":
		if a.Location != "" {
			return errAt(pp+".arrive.location", "is set but arrive.mode is weighted: give weights only")
		}
		if len(a.Weights) == 0 {
			return errAt(pp+".arrive.weights", "are empty: weighted arrival needs weights, e.g. [{location: loc0, weight: 3}]")
		}
		for i, w := range a.Weights {
			wp := fmt.Sprintf("%s.arrive.weights.%d", pp, i)
			if err := checkLoc(wp+".location", w.Location); err != nil {
				return err
			}
			if !(w.Weight > 0) || math.IsInf(w.Weight, 0) {
				return errAt(wp+".weight", "%v is out of range: must be above 0", w.Weight)
			}
		}
	default:
		return errAt(pp+".arrive.mode", "%q is unknown: use one, spread, weighted or alternate", a.Mode)
	}
	return nil
}

// validateLoad checks that population p, at path pp, gives exactly one of
// closed_loop, open_loop and burst, and checks the one it gives.
func validateLoad(pp string, p Population) error {
	n := 0
	if p.ClosedLoop != nil {
		n++
	}
	if p.OpenLoop != nil {
		n++
	}
	if p.Burst != nil {
		n++
	}
	if n != 1 {
		return errAt(pp, "gives %d of closed_loop, open_loop and burst: give exactly one", n)
	}
	switch {
	case p.ClosedLoop != nil:
		return validateClosedLoop(pp, p)
	case p.OpenLoop != nil:
		return validateOpenLoop(pp, p)
	default:
		return validateBurst(pp, p)
	}
}

// validateClosedLoop checks population p's closed_loop: its concurrency,
// alone and times the clients, and its think time.
func validateClosedLoop(pp string, p Population) error {
	c := p.ClosedLoop
	if c.Concurrency < 1 || c.Concurrency > MaxInFlight {
		return errAt(pp+".closed_loop.concurrency", "%d is out of range: must be 1 to %d", c.Concurrency, MaxInFlight)
	}
	if n := int64(c.Concurrency) * int64(p.Clients); n > MaxInFlight {
		return errAt(pp+".closed_loop.concurrency", "%d per client x %d clients = %d requests in flight, over the %d a run can hold: lower one of them", c.Concurrency, p.Clients, n, MaxInFlight)
	}
	return latency(pp+".closed_loop.think", c.Think)
}

// validateOpenLoop checks population p's open_loop: its rate and its
// ramp's, each within what a run can hold, and the ramp's length.
func validateOpenLoop(pp string, p Population) error {
	o := p.OpenLoop
	if !(o.Rate > 0) {
		return errAt(pp+".open_loop.rate", "must be above 0, e.g. 10/s")
	}
	if err := openRate(pp+".open_loop.rate", o.Rate, p.Clients); err != nil {
		return err
	}
	if r := o.Ramp; r != nil {
		if !(r.To > 0) {
			return errAt(pp+".open_loop.ramp.to", "must be above 0, e.g. 100/s")
		}
		if err := openRate(pp+".open_loop.ramp.to", r.To, p.Clients); err != nil {
			return err
		}
		if r.Over <= 0 {
			return errAt(pp+".open_loop.ramp.over", "must be above 0, e.g. 5m")
		}
	}
	return nil
}

// validateBurst checks population p's burst: its size, alone and times
// the clients, and a spread no longer than its every.
func validateBurst(pp string, p Population) error {
	if p.Burst.Size < 1 || p.Burst.Size > MaxInFlight {
		return errAt(pp+".burst.size", "%d is out of range: must be 1 to %d", p.Burst.Size, MaxInFlight)
	}
	if n := int64(p.Burst.Size) * int64(p.Clients); n > MaxInFlight {
		return errAt(pp+".burst.size", "%d per client x %d clients = %d requests at once, over the %d a run can hold: lower one of them", p.Burst.Size, p.Clients, n, MaxInFlight)
	}
	if p.Burst.Every > 0 && p.Burst.Spread > p.Burst.Every {
		return errAt(pp+".burst.spread", "%v is longer than every (%v): bursts would overlap; make spread at most every", p.Burst.Spread, p.Burst.Every)
	}
	return nil
}

// openRate checks that clients sending at r each stay within MaxOpenRate.
func openRate(path string, r Rate, clients int) error {
	if total := r.PerSecond() * float64(clients); !(total <= MaxOpenRate) {
		return errAt(path, "%v per client x %d clients = %.4g requests/s, over the %d/s a run can hold: the simulator keeps every request in flight in memory (about 250 MB a trial at %d/s) and vegeta sends far fewer from one machine; lower the rate or the clients",
			r, clients, total, MaxOpenRate, MaxOpenRate)
	}
	return nil
}

// validateAdvise checks the advise section: budgets in the -threshold
// grammar and known design choices.
func (s *Scenario) validateAdvise() error {
	a := s.Advise
	for i, b := range a.Budget {
		if _, err := measure.ParseCondition(b); err != nil {
			return errAt(fmt.Sprintf("advise.budget.%d", i), "%v", err)
		}
	}
	for i, x := range a.Algorithms {
		if !slices.Contains(limiter.Algorithms, limiter.Algorithm(x)) {
			return errAt(fmt.Sprintf("advise.algorithms.%d", i), "%q is unknown: use one of %s", x, limiter.JoinNames(limiter.Algorithms))
		}
	}
	for i, x := range a.Stores {
		if !slices.Contains(StoreKinds, x) {
			return errAt(fmt.Sprintf("advise.stores.%d", i), "%q is unknown: use one of %s", x, strings.Join(StoreKinds, ", "))
		}
	}
	for i, x := range a.Policies {
		if !slices.Contains(limiter.Policies, limiter.Policy(x)) {
			return errAt(fmt.Sprintf("advise.policies.%d", i), "%q is unknown: use one of %s", x, limiter.JoinNames(limiter.Policies))
		}
	}
	if a.MaxLimit < 0 || a.MaxLimit > limiter.MaxLimit {
		return errAt("advise.max_limit", "%d is out of range: give 0 (64 x the limit) or up to %d", a.MaxLimit, int64(limiter.MaxLimit))
	}
	return nil
}
