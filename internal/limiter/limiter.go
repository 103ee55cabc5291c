// Package limiter is the decision core of overshoot: the seed's fixed-window
// limiter on Workers KV and its rivals, as one pure state machine. It performs
// no I/O and reads no clock. Given now and a caller, Plan says which keys to
// read; given what was read, Decide returns the decision and the write that
// follows. The simulator schedules those reads and writes as events with
// latencies between them; the live driver (Check) performs them over a
// kv.Store. The gap between read and write is where overshoot comes from, and
// both drivers keep it.
//
// A limiter reaches its store in one of two shapes (Config.Update). The
// seed's is read-then-write: Plan, the reads, Decide, the write. The atomic
// shape is the one Redis limiters use: the store applies the limiter's pure
// update (Update) to the current values of the plan's keys at its primary in
// one step, so no request's read and write can straddle another's. The
// memory store runs Update under its lock, Redis runs the same update as a
// Lua script (internal/redis), and the model applies it at commit; a store
// that cannot refuses the limiter.
package limiter

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/overshoot-dev/overshoot/internal/strs"
)

// Algorithm names a counting scheme.
type Algorithm string

// The algorithms the limiter offers.
const (
	// FixedWindow is the seed's: one counter per caller per window.
	FixedWindow Algorithm = "fixed-window"
	// SlidingWindow is Cloudflare's 2017 counter: the previous window's
	// count weighted by the part of it still inside the sliding window,
	// plus the current count.
	SlidingWindow Algorithm = "sliding-window"
	// TokenBucket is GCRA over one stored theoretical arrival time.
	TokenBucket Algorithm = "token-bucket"
	// GCRA is go-redis/redis_rate's limiter: GCRA at a rate of limit per
	// window with a burst of its own (Config.Burst), over one stored
	// theoretical arrival time. With the burst at the limit it decides as
	// TokenBucket does.
	GCRA Algorithm = "gcra"
)

// Counts reports whether the algorithm stores counts, each write one
// increment (the fixed and sliding windows), rather than a time (a token
// bucket's and GCRA's theoretical arrival time): lost updates are counted
// for counts only.
func (a Algorithm) Counts() bool { return a == FixedWindow || a == SlidingWindow }

// Algorithms lists every algorithm, for error messages and sweeps.
var Algorithms = []Algorithm{FixedWindow, SlidingWindow, TokenBucket, GCRA}

// Update is how a limiter reaches its store: read-then-write or atomic.
type Update string

// The update shapes.
const (
	// ReadThenWrite is the seed's: read the plan's keys, decide, write.
	// Requests whose reads and writes interleave can overwrite each other.
	ReadThenWrite Update = "read-then-write"
	// Atomic has the store apply the limiter's pure update (Limiter.Update)
	// at its primary in one step: INCR-style counters and GCRA scripts.
	Atomic Update = "atomic"
)

// Updates lists every update shape, for error messages.
var Updates = []Update{ReadThenWrite, Atomic}

// Policy says what the limiter decides when the store fails.
type Policy string

// The error policies.
const (
	// FailOpen is the seed's: any store error, on the read or the write,
	// allows the request with remaining = limit.
	FailOpen Policy = "fail-open"
	// FailClosed denies the request when the store fails.
	FailClosed Policy = "fail-closed"
)

// Policies lists every error policy, for error messages.
var Policies = []Policy{FailOpen, FailClosed}

// MaxLimit is the largest limit accepted: JavaScript's largest safe integer,
// so that every count the seed could compare exactly is compared exactly.
const MaxLimit = 1<<53 - 1

// Config describes one limiter: the seed's opts plus the algorithm and policy.
type Config struct {
	// Name is the route name in the key (the seed's opts.name), e.g. "roast".
	Name string
	// Algorithm is the counting scheme; empty means fixed-window.
	Algorithm Algorithm
	// Limit is the number of requests allowed per window.
	Limit int64
	// Window is the window length (the seed's windowSeconds).
	Window time.Duration
	// Policy is the error policy; empty means fail-open, as the seed.
	Policy Policy
	// Update is the shape the limiter reaches its store in; empty means
	// read-then-write, as the seed.
	Update Update
	// Burst is the GCRA algorithm's burst: how many requests a caller
	// unseen for long may send at once; 0 means the limit. Only GCRA has
	// one.
	Burst int64
}

// Limiter makes decisions for one Config. It holds no per-caller state, so
// one Limiter serves any number of drivers and goroutines at once.
type Limiter struct {
	cfg    Config
	prefix string        // "rl:<name>:"
	ttl    time.Duration // max(60 s, window): the seed's expirationTtl

	slidingTTL time.Duration // max(60 s, 2 x window): a current key serves as the next previous one
	interval   int64         // token bucket: emission interval, microseconds
	burst      int64         // token bucket, GCRA: requests allowed back to back (the limit, or Config.Burst)
	tolerance  int64         // token bucket, GCRA: (burst - 1) x interval, microseconds
	fixed      bool          // the algorithm is FixedWindow (a bool tests faster than the string)
	atomic     bool          // the update shape is Atomic
}

// ConfigError is a fault of a Config: the field at fault, by the name a
// scenario gives it (limit, window, algorithm, error_policy, name), and
// what is wrong with it and what is allowed; also update and burst. The
// scenario's checks and New report the same fault in the same words.
type ConfigError struct {
	Field, Msg string
}

func (e *ConfigError) Error() string { return "limiter " + e.Field + ": " + e.Msg }

// Check returns the first fault of cfg (an empty algorithm or policy is
// the default, fixed window and fail-open), or nil.
func (cfg Config) Check() error {
	bad := func(field, format string, args ...any) error {
		return &ConfigError{Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case cfg.Name == "":
		return bad("name", "is empty: give the route name used in keys, e.g. roast")
	case cfg.Limit <= 0 || cfg.Limit > MaxLimit:
		return bad("limit", "%d is out of range: must be between 1 and %d", cfg.Limit, int64(MaxLimit))
	case cfg.Window <= 0:
		return bad("window", "must be above 0, e.g. 60s or 1d")
	case cfg.Window%time.Millisecond != 0:
		return bad("window", "%v is not a whole number of milliseconds: JavaScript clocks tick in milliseconds, use e.g. 1500ms or 60s", cfg.Window)
	}
	if cfg.Algorithm != "" && !slices.Contains(Algorithms, cfg.Algorithm) {
		return bad("algorithm", "%q is unknown: use one of %s", cfg.Algorithm, JoinNames(Algorithms))
	}
	if cfg.Policy != "" && !slices.Contains(Policies, cfg.Policy) {
		return bad("error_policy", "%q is unknown: use one of %s", cfg.Policy, JoinNames(Policies))
	}
	if cfg.Update != "" && !slices.Contains(Updates, cfg.Update) {
		return bad("update", "%q is unknown: use one of %s", cfg.Update, JoinNames(Updates))
	}
	switch {
	case cfg.Burst < 0 || cfg.Burst > MaxLimit:
		return bad("burst", "%d is out of range: must be between 1 and %d, or 0 for the limit", cfg.Burst, int64(MaxLimit))
	case cfg.Burst != 0 && cfg.Algorithm != GCRA:
		return bad("burst", "is set for algorithm %s: only gcra has a burst; leave it out, or use algorithm gcra", cfg.algorithm())
	}
	return nil
}

// algorithm returns the algorithm, fixed-window when empty.
func (cfg Config) algorithm() Algorithm {
	if cfg.Algorithm == "" {
		return FixedWindow
	}
	return cfg.Algorithm
}

// JoinNames lists names (the limiter's algorithms, policies, key modes)
// for an error message: "a, b, c".
func JoinNames[T ~string](names []T) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	return strings.Join(s, ", ")
}

// New checks cfg (Check) and returns its limiter. Every bad value gives an
// error that names the field, the value and what is allowed.
func New(cfg Config) (*Limiter, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if cfg.Algorithm == "" {
		cfg.Algorithm = FixedWindow
	}
	if cfg.Policy == "" {
		cfg.Policy = FailOpen
	}
	if cfg.Update == "" {
		cfg.Update = ReadThenWrite
	}
	burst := cfg.Limit
	if cfg.Algorithm == GCRA && cfg.Burst > 0 {
		burst = cfg.Burst
	}
	l := &Limiter{cfg: cfg, prefix: "rl:" + cfg.Name + ":", ttl: max(60*time.Second, cfg.Window)}
	l.slidingTTL = l.ttl
	l.fixed = cfg.Algorithm == FixedWindow
	l.atomic = cfg.Update == Atomic
	if cfg.Window <= math.MaxInt64/2 {
		l.slidingTTL = max(l.ttl, 2*cfg.Window)
	}
	l.interval = ceilDiv(cfg.Window.Microseconds(), cfg.Limit)
	l.burst = burst
	l.tolerance = (burst - 1) * l.interval
	if burst > 1 && l.tolerance/(burst-1) != l.interval { // beyond int64 microseconds: no request is ever too early
		l.tolerance = math.MaxInt64
	}
	return l, nil
}

// Config returns the limiter's configuration, defaults filled in.
func (l *Limiter) Config() Config { return l.cfg }

// Atomic reports whether the limiter's update shape is Atomic: a driver
// has the store apply Update instead of reading, deciding and writing.
func (l *Limiter) Atomic() bool { return l.atomic }

// TTL is the expirationTtl the fixed-window limiter writes: max(60 s, window).
func (l *Limiter) TTL() time.Duration { return l.ttl }

// Plan is what a driver must read before it can decide: up to two keys.
type Plan struct {
	// Keys are the keys to read; only the first NKeys are used.
	Keys  [2]string
	NKeys int
	// Window is the id of the window now falls in: floor(now / window).
	Window int64
	// Into is how far into that window now is (now minus the window's
	// start): with Window, the time the decision is for.
	Into time.Duration
}

// Read is the result of reading one key: its value, and whether it existed.
type Read struct {
	Value string
	Found bool
}

// Write is a put the decision asks for: value under key, expiring after TTL.
type Write struct {
	Key   string
	Value string
	TTL   time.Duration
	// KeepTTL keeps the expiry of a key that holds a live value: TTL then
	// applies only when the write creates the key (Redis's INCR, then
	// EXPIRE on the first increment). Only Update's counters set it.
	KeepTTL bool
}

// Decision is the limiter's answer, in the seed's shape plus what overshoot
// needs to account for it.
type Decision struct {
	// Allowed, Remaining and Limit are the seed's return value.
	// Remaining is limit - count - 1 in int64 arithmetic: for a stored count
	// below -2^53 (never written by the seed) JavaScript's float answer
	// differs, but the decision and the value written do not.
	Allowed   bool
	Remaining int64
	Limit     int64
	// Window is the id of the window the decision belongs to.
	Window int64
	// reset is what Reset returns, in Unix milliseconds, or microseconds
	// when resetMicro: an integer, so that a decision builds no time.Time.
	reset      int64
	resetMicro bool
	// Count is the count the decision was made on (for the sliding window,
	// the estimate rounded down; for the token bucket, the requests already
	// in the bucket).
	Count int64
	// Write is the put that follows an allowed decision; Write.Key is empty
	// when nothing is to be written.
	Write Write
	// Err is the store error the decision was made without, when the error
	// policy decided; FailOpen or FailClosed says which way.
	Err        error
	FailOpen   bool
	FailClosed bool
}

// Reset returns when the decision's window ends, i.e. when the full limit
// is available again. For a token bucket it is when the bucket is full again
// after an allowed request, and when the next request will be allowed after
// a denied one.
func (d Decision) Reset() time.Time {
	if d.resetMicro {
		return time.UnixMicro(d.reset)
	}
	return time.UnixMilli(d.reset)
}

// WindowID returns the id of the window t falls in: floor(t / window) counted
// from the Unix epoch, the seed's Math.floor(Date.now() / 1000 /
// windowSeconds). It counts in milliseconds, as Date.now() does, so that any
// time Go can hold gives the right window without overflow. For windows of
// whole seconds this is exactly JavaScript's result; for a fractional
// windowSeconds (1.5 s) JavaScript's float division can land a millisecond
// on the wrong side of a boundary, and this exact division does not.
func (l *Limiter) WindowID(t time.Time) int64 {
	return floorDiv(t.UnixMilli(), l.cfg.Window.Milliseconds())
}

// windowStart returns the time window id w begins.
func (l *Limiter) windowStart(w int64) time.Time {
	return time.UnixMilli(l.windowStartMilli(w))
}

// windowStartMilli returns the time window id w begins, in Unix
// milliseconds.
func (l *Limiter) windowStartMilli(w int64) int64 {
	return w * l.cfg.Window.Milliseconds()
}

// Plan returns the keys to read to decide for caller at now.
func (l *Limiter) Plan(now time.Time, caller string) Plan {
	w := l.WindowID(now)
	p := Plan{Window: w, Into: now.Sub(l.windowStart(w)), NKeys: 1}
	switch l.cfg.Algorithm {
	case FixedWindow:
		p.Keys[0] = l.windowKey(caller, w)
	case SlidingWindow:
		p.Keys[0] = l.windowKey(caller, w)
		p.Keys[1] = l.windowKey(caller, w-1)
		p.NKeys = 2
	case TokenBucket, GCRA:
		p.Keys[0] = l.prefix + caller
	}
	return p
}

// Keys remembers the keys of one caller's latest plan, so that a driver
// that plans many requests of one caller within a window (the simulator
// keeps one per client) builds each key once per window instead of once per
// request. The zero value is empty and ready to use. A Keys is not safe for
// concurrent use.
type Keys struct {
	caller   string
	window   int64
	from, to int64 // the window's bounds in Unix milliseconds: [from, to)
	// fromNs and toNs are from and to in Unix nanoseconds, for
	// WindowUnixNano; an empty range (fromNs > toNs) when either is out
	// of int64's range.
	fromNs, toNs int64
	keys         [2]string
	nKeys        int
}

// PlanWith returns Plan(now, caller), reusing the keys k holds when k last
// planned for the same caller in the same window, and keeping the new keys
// in k otherwise.
func (l *Limiter) PlanWith(k *Keys, now time.Time, caller string) Plan {
	var p Plan
	l.PlanInto(&p, k, now, caller)
	return p
}

// PlanInto sets *p to PlanWith(k, now, caller). It is PlanWith for a driver
// that keeps the plan in place (the simulator, once per request), without
// copying a Plan out of the call.
func (l *Limiter) PlanInto(p *Plan, k *Keys, now time.Time, caller string) {
	// now is ms milliseconds and now.Nanosecond()%1e6 nanoseconds after
	// the epoch (UnixMilli rounds down).
	if k.serve(p, now.UnixMilli(), int64(now.Nanosecond()%1e6), caller) {
		return
	}
	*p = l.Plan(now, caller)
	wm := l.cfg.Window.Milliseconds()
	k.caller, k.window, k.keys, k.nKeys = caller, p.Window, p.Keys, p.NKeys
	// The bounds, saturating: a window at the end of time has no end.
	k.from = p.Window * wm
	k.to = k.from + wm
	if k.to < k.from {
		k.to = math.MaxInt64
	}
	k.fromNs, k.toNs = math.MaxInt64, math.MinInt64
	const ms = int64(time.Millisecond)
	if k.from > math.MinInt64/ms && k.from < math.MaxInt64/ms && k.to > math.MinInt64/ms && k.to < math.MaxInt64/ms {
		k.fromNs, k.toNs = k.from*ms, k.to*ms
	}
}

// PlanIntoUnixNano is PlanInto for now given as Unix nanoseconds, for a
// driver that keeps its clock as an integer (the simulator, once per
// caller and window). The driver keeps the plan while its clock is within
// the window's bounds in nanoseconds, which k then holds (WindowUnixNano),
// and calls it again once it is not (the simulator with a new Keys). A k
// that already holds caller's keys for now's window serves them, as
// PlanInto's do.
func (l *Limiter) PlanIntoUnixNano(p *Plan, k *Keys, now int64, caller string) {
	l.PlanInto(p, k, time.Unix(0, now), caller)
}

// WindowUnixNano returns the bounds of the window k's keys are for, in
// Unix nanoseconds: [from, to). At every instant t in it, Plan for k's
// caller is k's plan with Into t - from. The range is empty (from > to, or
// [0, 0) for a zero Keys) when k holds no keys, or when the window's
// bounds are within a millisecond of int64 nanoseconds' ends or beyond
// them. A driver that keeps each plan PlanIntoUnixNano made can tell with
// it, and no call, whether the plan still serves.
func (k *Keys) WindowUnixNano() (from, to int64) { return k.fromNs, k.toNs }

// serve sets *p to the plan of k's keys at now, ms Unix milliseconds and
// ns nanoseconds (0 <= ns < 1e6), and reports true when they are caller's
// keys for that instant's window; else it leaves *p alone.
func (k *Keys) serve(p *Plan, ms, ns int64, caller string) bool {
	if ms < k.from || ms >= k.to || !strs.Same(k.caller, caller) { // a zero Keys: [0, 0)
		return false
	}
	k.set(p, time.Duration((ms-k.from)*int64(time.Millisecond)+ns))
	return true
}

// set sets *p to the plan of k's keys, into its window.
func (k *Keys) set(p *Plan, into time.Duration) {
	// Field by field: a Plan literal is built aside and then copied.
	p.Keys[0], p.Keys[1] = k.keys[0], k.keys[1]
	p.NKeys, p.Window = k.nKeys, k.window
	p.Into = into
}

// windowKey builds rl:<name>:<caller>:<window> with a single allocation.
func (l *Limiter) windowKey(caller string, w int64) string {
	var num [20]byte
	digits := strconv.AppendInt(num[:0], w, 10)
	var b strings.Builder
	b.Grow(len(l.prefix) + len(caller) + 1 + len(digits))
	b.WriteString(l.prefix)
	b.WriteString(caller)
	b.WriteByte(':')
	b.Write(digits)
	return b.String()
}

// Decide returns the decision for plan given what was read for its keys, in
// the same order. It never fails: any stored value is a count, as parseInt
// makes it one.
func (l *Limiter) Decide(p Plan, got [2]Read) Decision {
	var d Decision
	l.DecideInto(&d, &p, &got)
	return d
}

// DecideInto sets *d to Decide(*p, *got). It is Decide for a driver that
// keeps its plan and reads in place (the simulator, once per request),
// without copying them into the call and the decision out of it.
func (l *Limiter) DecideInto(d *Decision, p *Plan, got *[2]Read) {
	switch l.cfg.Algorithm {
	case SlidingWindow:
		*d = l.decideSliding(*p, *got)
	case TokenBucket, GCRA:
		*d = l.decideBucket(*p, got[0])
	default:
		l.decideFixed(d, p, &got[0])
	}
}

// DeniesByCount reports whether Decide(*p, *got) would deny by the count
// (not by the error policy) with a fixed window: the count read has
// reached the limit. Then the decision is Allowed false, in window
// p.Window, with nothing to write. It is false for the other algorithms,
// which a driver asks Decide. A driver that needs no more of a denied
// decision than that (the simulator, for most of its requests) builds no
// Decision for it.
func (l *Limiter) DeniesByCount(p *Plan, got *[2]Read) bool {
	// A key not found counts 0, below every limit (which is at least 1).
	if !l.fixed || !got[0].Found {
		return false
	}
	// The usual stored count, a digit, is read here, without a call.
	if v := got[0].Value; len(v) == 1 && v[0]-'0' <= 9 {
		return int64(v[0]-'0') >= l.cfg.Limit
	}
	return ParseCount(got[0].Value) >= l.cfg.Limit
}

// decideFixed sets *d to the seed's checkRateLimit after its get.
func (l *Limiter) decideFixed(d *Decision, p *Plan, got *Read) {
	*d = Decision{Limit: l.cfg.Limit, Window: p.Window, reset: l.windowStartMilli(p.Window + 1)}
	if got.Found {
		d.Count = ParseCount(got.Value)
	}
	if d.Count >= l.cfg.Limit {
		return
	}
	d.Allowed = true
	d.Remaining = l.cfg.Limit - d.Count - 1
	d.Write = Write{Key: p.Keys[0], Value: nextCount(got.Value, d.Count), TTL: l.ttl}
}

// maxExact is 2^53: JavaScript numbers hold every integer of smaller
// magnitude exactly, so below it the seed's count+1 is exact integer math.
const maxExact = 1 << 53

// nextCount is the seed's String(count + 1) for the count parsed from raw.
// Within ±2^53 that is plain integer formatting (counts under 10,000 come
// from a table, so the usual write allocates nothing). Beyond, JavaScript
// adds in float64 and prints the result its own way ("-1e+21",
// "-Infinity"), and the next read parses that text again, so the port does
// the same to keep later decisions identical. Only a stored value nobody but
// an attacker or a bug would write gets there; allowed counts are below the
// limit, so only negative ones do.
func nextCount(raw string, count int64) string {
	if count > -maxExact && count < maxExact {
		return formatCount(count + 1)
	}
	return jsNumberString(parseIntFloat(raw) + 1)
}

// smallCounts holds the decimal text of 0 ..< len(smallCounts), so that
// writing a count allocates nothing for the limits people use.
var smallCounts = func() []string {
	s := make([]string, 10000)
	for i := range s {
		s[i] = strconv.Itoa(i)
	}
	return s
}()

// formatCount is strconv.FormatInt(n, 10), from the table when it can be.
func formatCount(n int64) string {
	if n >= 0 && n < int64(len(smallCounts)) {
		return smallCounts[n]
	}
	return strconv.FormatInt(n, 10)
}

// decideSliding is Cloudflare's 2017 sliding-window counter over two fixed
// windows: estimate = previous x (1 - elapsed fraction) + current, denied
// when the estimate has reached the limit. The current key lives two windows
// so that it can serve as the previous one.
func (l *Limiter) decideSliding(p Plan, got [2]Read) Decision {
	d := Decision{Limit: l.cfg.Limit, Window: p.Window, reset: l.windowStartMilli(p.Window + 1)}
	var cur, prev int64
	if got[0].Found {
		cur = ParseCount(got[0].Value)
	}
	if got[1].Found {
		prev = ParseCount(got[1].Value)
	}
	elapsed := float64(p.Into) / float64(l.cfg.Window)
	estimate := float64(prev)*(1-elapsed) + float64(cur)
	d.Count = clampInt(math.Floor(estimate))
	if estimate >= float64(l.cfg.Limit) {
		return d
	}
	d.Allowed = true
	d.Remaining = max(0, clampInt(math.Floor(float64(l.cfg.Limit)-estimate-1)))
	d.Write = Write{Key: p.Keys[0], Value: nextCount(got[0].Value, cur), TTL: l.slidingTTL}
	return d
}

// clampInt converts f to int64, saturating instead of the undefined result
// of a conversion out of range. Counts read are within ±2^62, so the sums
// the sliding window makes of them stay far from NaN.
func clampInt(f float64) int64 {
	switch {
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// Update is the atomic shape's decision: the decision for plan p given the
// values its keys hold at the store, in plan order, read inside the store's
// atomic step, and in its Write what the store must then hold. The store
// applies Write before anything else touches the keys. It never fails.
//
// It decides as Decide does, so that on a store with one request at a time
// both shapes give the same decisions, with the writes of the Redis
// limiters it stands for:
//   - fixed-window is INCR then EXPIRE on the first increment
//     (envoyproxy/ratelimit, rate-limit-redis): every request, denied or
//     not, adds one to the count, and the TTL is set when the increment
//     creates the key (KeepTTL);
//   - sliding-window is two counters (@upstash/ratelimit's shape): an
//     allowed request increments the current window's, which keeps the
//     TTL its first increment set;
//   - token-bucket and gcra set the new theoretical arrival time with its
//     TTL, as redis_rate's script does, on allowed requests only.
func (l *Limiter) Update(p Plan, cur [2]Read) Decision {
	var d Decision
	l.UpdateInto(&d, &p, &cur)
	return d
}

// UpdateInto sets *d to Update(*p, *cur), for a driver that keeps its plan
// and values in place (the simulator).
func (l *Limiter) UpdateInto(d *Decision, p *Plan, cur *[2]Read) {
	l.DecideInto(d, p, cur)
	switch l.cfg.Algorithm {
	case FixedWindow:
		if d.Write.Key == "" { // denied by the count: INCR all the same
			d.Write = Write{Key: p.Keys[0], Value: nextCount(cur[0].Value, d.Count), TTL: l.ttl}
		}
		d.Write.KeepTTL = true
	case SlidingWindow:
		d.Write.KeepTTL = d.Write.Key != ""
	}
}

// decideBucket is GCRA (the generic cell rate algorithm) over one stored
// value: the theoretical arrival time TAT, in Unix microseconds. Each allowed
// request moves TAT one emission interval I = ceil(window / limit) later
// (from now, when TAT is in the past); a request is allowed while TAT is at
// most (limit - 1) x I ahead of now, so a full bucket holds exactly limit
// requests back to back and refills one request every I (for GCRA, (burst
// - 1) x I ahead: burst requests back to back). Integer
// microseconds keep the check and the step in the same units: a float check
// with rounded steps loses a request of the burst whenever window/limit is
// not a whole number.
func (l *Limiter) decideBucket(p Plan, got Read) Decision {
	// now in Unix microseconds (Into >= 0 rounds down as UnixMicro does)
	now := l.windowStartMilli(p.Window)*1000 + int64(p.Into/time.Microsecond)
	tat := now
	if got.Found {
		tat = max(now, ParseCount(got.Value))
	}
	backlog := tat - now // how far ahead of now the bucket is, >= 0
	d := Decision{Limit: l.cfg.Limit, Window: p.Window, Count: ceilDiv(backlog, l.interval), resetMicro: true}
	if backlog > l.tolerance {
		// Denied: the next request fits once TAT - now <= tolerance.
		d.reset = tat - l.tolerance
		return d
	}
	newTAT := tat + l.interval
	d.Allowed = true
	d.Remaining = l.burst - 1 - d.Count
	d.reset = newTAT // when the bucket is full again
	d.Write = Write{Key: p.Keys[0], Value: formatCount(newTAT),
		TTL: max(60*time.Second, time.Duration(newTAT-now)*time.Microsecond)}
	return d
}

// ceilDiv is a / b rounded up, for a >= 0 and b > 0.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 {
		q++
	}
	return q
}

// Failed returns the decision the error policy makes when err stopped the
// limiter, on the read or on the write: fail-open allows with remaining =
// limit, as the seed's safeRateLimit does; fail-closed denies.
func (l *Limiter) Failed(p Plan, err error) Decision {
	d := Decision{Limit: l.cfg.Limit, Window: p.Window, reset: l.windowStartMilli(p.Window + 1), Err: err}
	if l.cfg.Policy == FailClosed {
		d.FailClosed = true
		return d
	}
	d.Allowed, d.Remaining, d.FailOpen = true, l.cfg.Limit, true
	return d
}

// floorDiv is a / b rounded toward negative infinity, for b > 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}
