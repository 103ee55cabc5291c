package measure

import (
	"math"
	"sort"
	"time"
)

// MaxTimelinePoints bounds the allowed times kept per key-window for the
// timeline figure, so that a flood (fail-open) cannot grow memory.
const MaxTimelinePoints = 512

// worstKept is how many key-windows a trial keeps for the timeline.
const worstKept = 5

// Outcome is what a request got.
type Outcome uint8

// The outcomes of a request.
const (
	// Allowed: the limiter let it through (2xx live).
	Allowed Outcome = iota + 1
	// Denied: the limiter refused it (429 live).
	Denied
	// Errored: no decision reached the client (live: another status or a
	// transport error).
	Errored
)

// Event is one request as both drivers report it.
type Event struct {
	// Pop is the index of the request's population.
	Pop int
	// Key is the limiter's caller identity (token:ip): the limiter key
	// without its window.
	Key string
	// Client identifies the client that sent the request, within its run
	// (several clients can share a Key: a NAT, a shared token). False
	// denials are counted against the client's own allowed requests.
	Client int
	// Window is the id of the window the limiter counted the request in.
	Window int64
	// At is when the decision was made, from the run's start.
	At time.Duration
	// Into, when Planned, is how far into Window the time the limiter
	// decided for was (its plan's: when the request arrived). The
	// reference decides the request at that time, as the limiter did,
	// and the key-window's span counts from it; without it, at At.
	Into    time.Duration
	Planned bool
	Outcome Outcome
	// FailOpen and FailClosed mark decisions the error policy made.
	FailOpen, FailClosed bool
	// Remaining is what the limiter said was left after allowing the
	// request (the RateLimit field's r), when HasRemaining. Allowed
	// requests of one key-window with the same remaining read the same
	// count: how many share one is how many got through on one read.
	Remaining    int64
	HasRemaining bool
}

// Recorder accumulates one trial's events. Memory grows with the keys seen in
// the last windows, not with requests: a key-window is folded into the
// histogram once its window has been over for a grace period (so that a
// decision that comes late, after a slow read, still counts in its window).
// Not safe for concurrent use.
type Recorder struct {
	limit  int64
	window time.Duration
	start  time.Time
	grace  time.Duration // how long after its end a key-window stays open
	keys   map[string]*keyState
	epoch  uint64        // counts sweeps from 1: a KeyRef from an earlier one may point to a dropped key, and the zero KeyRef matches none
	swept  time.Duration // when keys were last swept for closed windows
	// exact is the reference limiter's rule (see exactAllows), and
	// interval and tolerance its token bucket's, in microseconds.
	exact               exactRule
	interval, tolerance int64
	// falselyDenied holds the clients of each population wrongly denied
	// at least once (the reference allowed a request the limiter denied).
	falselyDenied map[popClient]struct{}

	totals Totals
	pops   []Population
	hist   map[int64]int64
	// popHist counts each population's key-windows by allowed count (a
	// key-window is its first request's population's).
	popHist []map[int64]int64
	ref     TrialReference
	over    int64
	excess  int64
	maxIn   int64
	// group is the most allowed requests of one key-window that read the
	// same count; tallies holds each open key-window's count of them.
	group   int64
	tallies tallies
	worst   []KeyTimeline
	// KV is filled by the store the driver runs on.
	KV KVCounters
	// latency is each request's time from sent to answered, in ms, for a
	// driver that knows it (the model; the live runner measures latency
	// its own way, in Live).
	latency denseHist
	// byDecision is latency split by decision (DecisionLatency).
	byDecision [NumDecisions]denseHist
	// requests counts the latencies RequestLatency recorded in byDecision
	// (and undecided, for a decision that is none of them) alone, and
	// requestSum adds them up in the order they came: Finish derives their
	// overall histogram from those.
	requests   int64
	requestSum float64
	undecided  denseHist
}

// Latency records one request's latency, from sent to answered. It is
// called once per simulated request, so it counts into a denseHist (a map
// update per request cost the simulator a fifth of its speed) and Finish
// hands over a LogHist.
func (r *Recorder) Latency(d time.Duration) {
	r.latency.add(float64(d) / float64(time.Millisecond))
}

// The dense latency buckets cover 1 µs to about 11 days (LogHist buckets
// -348 to 1100); a value outside goes to the LogHist's map as before.
const (
	denseLow  = -348
	denseHigh = 1100
)

// denseHist is a LogHist that counts the values of the dense buckets in a
// slice instead of its map, for values added once per simulated request.
// Its first denseAfter values go to the map: the slice, and the walk over
// it that hist makes, would cost a short trial more than the map does.
// The zero denseHist is empty.
type denseHist struct {
	h     LogHist // N, Sum and MaxV of every value; Counts of the rest
	dense []int64 // bucket counts from denseLow, allocated after denseAfter values
}

// denseAfter is how many values a denseHist counts in its map before it
// allocates its dense buckets.
const denseAfter = 256

// add records v as LogHist.Add does. It is called for every simulated
// request, so it finds a dense bucket from bucketOf's tables itself (one
// call where bucketOf and counting took two more; a test holds it to
// LogHist.Add around every bucket bound); every other value goes to
// addSlow. A value at or below 0.001 (or NaN) has no dense bucket, so a
// dense bucket's value is above 0 and the larger of it and MaxV is the one
// that compares greater.
func (d *denseHist) add(v float64) {
	if i := int(math.Float64bits(v)>>sliceShift) - sliceLow; v > 0.001 && uint(i) < uint(len(sliceBuckets)) {
		s := &sliceBuckets[i] // as bucketOf
		b := s.bucket
		if v >= s.next {
			b++
		}
		if j := int(b) - denseLow; uint(j) < uint(len(d.dense)) {
			d.dense[j]++
			d.h.N++
			d.h.Sum += v
			if v > d.h.MaxV {
				d.h.MaxV = v
			}
			return
		}
	}
	d.addSlow(v)
}

// addSlow records v when add cannot count it in a dense bucket: before
// the buckets are allocated, or outside them.
func (d *denseHist) addSlow(v float64) {
	if d.dense == nil && d.h.N >= denseAfter {
		d.dense = make([]int64, denseHigh-denseLow+1)
		d.add(v)
		return
	}
	d.h.Add(v)
}

// hist returns what was added as a LogHist.
func (d *denseHist) hist() LogHist {
	h := d.h
	for i, n := range d.dense {
		if n > 0 {
			if h.Counts == nil {
				h.Counts = map[int32]int64{}
			}
			h.Counts[int32(i+denseLow)] += n
		}
	}
	return h
}

// keyState is one key's open windows and its recent allowed times.
type keyState struct {
	// open holds the key's open windows, oldest first: at most a few, in
	// one until the key has several open (it starts on first), so that
	// the usual request finds its window in the key's own memory instead
	// of behind two more pointers (with thousands of keys, each a cache
	// miss: BenchmarkClients).
	open  []keyWindow
	first [1]keyWindow
	// closeBy is the earliest time one of the open windows is to be
	// closed (its end plus the grace period), as of the last time
	// openWindow looked at them all; before it, a request of the newest
	// window needs no look at the others.
	closeBy  time.Duration
	recent   []allowedGroup // allowed requests in the last window, oldest first
	inWindow int64          // their number
	last     time.Duration
	// tat is the reference token bucket's theoretical arrival time, in
	// microseconds from the run's start, once hasTAT.
	tat    int64
	hasTAT bool
}

// newKeyState returns an empty keyState.
func newKeyState() *keyState {
	ks := &keyState{}
	ks.open = ks.first[:0]
	return ks
}

// keyWindow is one (key, window) being counted.
type keyWindow struct {
	window  int64
	end     time.Duration // when the window ends, from the run's start
	allowed int64
	// offered counts the requests the limiter decided (allowed or
	// denied), and ref those of them the reference limiter allowed.
	offered, ref int64
	// first and last are the times of its first and last decided request.
	first, last time.Duration
	// pop is the population of its first request.
	pop int32
	// wrong counts the requests the limiter denied that the reference
	// allowed, and let those it allowed that the reference denied, as
	// they were recorded; falses holds the legitimate clients among the
	// wrong (up to maxPendingFalse, then counted in falseOver, as the
	// key-window's population's). reconcile settles them when the
	// key-window closes.
	wrong, let int64
	falses     []popClient
	falseOver  int64
	times      []time.Duration
	// tally numbers the Recorder's tally of allowed requests by the count
	// they read (limit - 1 - remaining), when the driver knows it; 0: none.
	tally int32
}

// maxReadCounts bounds the counts a key-window tallies its reads by: a
// limit above it is not broken into groups (the tally would outweigh the
// window's own state).
const maxReadCounts = 4096

// read counts, in key-window kw, one allowed request that read count n.
func (r *Recorder) read(kw *keyWindow, n int64) {
	if n < 0 || n >= int64(r.tallies.n) {
		return // not a count this limit reads: another limiter's, or too many
	}
	if kw.tally == 0 {
		kw.tally = r.tallies.get()
	}
	r.tallies.of(kw.tally)[n]++
}

// tallies keeps the key-windows' read tallies, all of one length, back to
// back in one buffer, and reuses a tally once its key-window closes: a
// slice per key-window cost 10,000 allocations a trial at 10,000 clients
// (and the collections they brought on), and a pointer in every
// key-window for the collector to follow.
type tallies struct {
	n    int     // each tally's length: the counts a limit reads
	buf  []int32 // the tallies
	free []int32 // tallies given back, zeroed
}

// get returns a zeroed tally's number (from 1).
func (t *tallies) get() int32 {
	if k := len(t.free); k > 0 {
		id := t.free[k-1]
		t.free = t.free[:k-1]
		return id
	}
	t.buf = append(t.buf, make([]int32, t.n)...)
	return int32(len(t.buf) / t.n)
}

// of returns tally id's counts.
func (t *tallies) of(id int32) []int32 {
	i := (int(id) - 1) * t.n
	return t.buf[i : i+t.n : i+t.n]
}

// put takes back tally id, which no key-window uses any more.
func (t *tallies) put(id int32) {
	clear(t.of(id))
	t.free = append(t.free, id)
}

// popClient is one client of one population.
type popClient struct {
	pop, client int
}

// lateGrace is the least time a key-window stays open after it ends.
const lateGrace = 30 * time.Second

// Config describes what a Recorder counts against.
type Config struct {
	// Limit and Window are the limiter's.
	Limit  int64
	Window time.Duration
	// Algorithm is the limiter's ("fixed-window", "sliding-window",
	// "token-bucket"; empty: fixed-window): the reference, an exact
	// limiter on the same requests, applies its rule.
	Algorithm string
	// Start is the wall-clock (or virtual) time Event.At counts from; it
	// places window ids on the run's time line. Zero means the Unix epoch.
	Start time.Time
	// Populations names the populations, in the order Event.Pop indexes.
	Populations []Population
}

// NewRecorder returns an empty Recorder.
func NewRecorder(c Config) *Recorder {
	if c.Start.IsZero() {
		c.Start = time.Unix(0, 0) // window ids count from the Unix epoch
	}
	r := &Recorder{limit: c.Limit, window: c.Window, start: c.Start, grace: max(c.Window, lateGrace),
		keys: map[string]*keyState{}, hist: map[int64]int64{}, falselyDenied: map[popClient]struct{}{}, epoch: 1}
	r.exact, r.interval, r.tolerance = exactRuleOf(c.Algorithm, c.Limit, c.Window)
	r.pops = append([]Population(nil), c.Populations...)
	r.popHist = make([]map[int64]int64, len(r.pops))
	for i := range r.popHist {
		r.popHist[i] = map[int64]int64{}
	}
	// Only a fixed window's remaining is a count read: a sliding window's
	// weighted estimate and a bucket's tokens repeat without any race.
	if c.Algorithm == "" || c.Algorithm == "fixed-window" {
		r.tallies.n = int(max(0, min(c.Limit, maxReadCounts)))
	}
	r.KV.init()
	return r
}

// KeyRef remembers where a Recorder keeps one key's state, so that a
// driver that records many requests of one key (the simulator keeps one
// per caller and window) finds it without hashing the key each time. A
// KeyRef serves one key, the one it is first used with: the driver passes
// it with no other (its key is not compared). The zero KeyRef is empty;
// RecordWith refreshes it whenever a sweep may have dropped what it points
// to. A KeyRef serves one Recorder only.
type KeyRef struct {
	ks    *keyState
	epoch uint64
}

// Record accounts for one request. Events of one key must come in order of
// At, give or take one window.
func (r *Recorder) Record(e Event) { r.RecordWith(nil, e) }

// RecordWith is Record, finding the key's state through ref, e.Key's ref,
// when it is not nil (and keeping it there for the next request of the
// key).
func (r *Recorder) RecordWith(ref *KeyRef, e Event) {
	r.totals.Requests++
	p := &r.pops[e.Pop]
	p.Requests++
	if e.FailOpen {
		r.totals.FailOpen++
	}
	if e.FailClosed {
		r.totals.FailClosed++
	}
	if e.Outcome == Errored {
		r.totals.Errors++
		p.Errors++
		return
	}
	var ks *keyState
	if ref != nil && ref.epoch == r.epoch {
		ks = ref.ks
	} else {
		if ks = r.keys[e.Key]; ks == nil {
			ks = newKeyState()
			r.keys[e.Key] = ks
		}
		if ref != nil {
			*ref = KeyRef{ks: ks, epoch: r.epoch}
		}
	}
	ks.last = max(ks.last, e.At)
	kw := r.openWindow(e.Key, ks, e.Window, e.At)
	sent := e.At
	if e.Planned {
		sent = kw.end - r.window + e.Into
	}
	if kw.offered == 0 {
		kw.pop, kw.first = int32(e.Pop), sent
	}
	kw.offered++
	kw.first, kw.last = min(kw.first, sent), max(kw.last, sent)
	exact := r.exactAllows(ks, kw, sent)
	switch e.Outcome {
	case Allowed:
		r.totals.Allowed++
		p.Allowed++
		kw.allowed++
		if !exact {
			kw.let++
		}
		if len(kw.times) < MaxTimelinePoints {
			kw.times = append(kw.times, e.At)
		}
		if e.HasRemaining {
			r.read(kw, r.limit-1-e.Remaining)
		}
		r.slide(ks, e.At)
	case Denied:
		r.totals.Denied++
		p.Denied++
		if !exact {
			break
		}
		kw.wrong++
		if p.Legitimate {
			kw.falsePending(e.Pop, e.Client)
		}
	}
	if e.At-r.swept > r.grace {
		r.sweep(e.At)
	}
}

// Denied is RecordWith for the most common request, cut down to a few
// counts: one the limiter denied by its count (not its error policy), of
// the key whose ref is ref, counted in window at at (planned into into
// the window: Event.Into, with Planned), by population pop,
// which is not legitimate, when ref holds the key's state, window is the
// key's newest open one and nothing is due to close (no key-window, no
// sweep). It reports whether it recorded the request; when it did not,
// the driver records it with RecordWith.
func (r *Recorder) Denied(ref *KeyRef, pop int, window int64, at, into time.Duration) bool {
	ks := ref.ks // not nil when its epoch is the recorder's
	if ref.epoch != r.epoch || at-r.swept > r.grace {
		return false
	}
	n := len(ks.open)
	if n == 0 || ks.open[n-1].window != window || at > ks.closeBy {
		return false
	}
	p := &r.pops[pop]
	if p.Legitimate {
		return false // a false denial needs the client
	}
	r.totals.Requests++
	r.totals.Denied++
	p.Requests++
	p.Denied++
	ks.last = max(ks.last, at)
	kw := &ks.open[n-1]
	kw.offered++
	if r.exact == exactFixed { // exactAllows, inline for the usual rule
		kw.last = max(kw.last, kw.end-r.window+into)
		if kw.ref < r.limit {
			kw.ref++
			kw.wrong++
		}
		return true
	}
	sent := kw.end - r.window + into
	kw.first, kw.last = min(kw.first, sent), max(kw.last, sent)
	if r.exactAllows(ks, kw, sent) {
		kw.wrong++
	}
	return true
}

// hasKey reports whether m holds k.
func hasKey[K comparable, V any](m map[K]V, k K) bool {
	_, ok := m[k]
	return ok
}

// openWindow returns the key's counter for window w, and closes the key's
// windows that ended more than the grace period before at.
func (r *Recorder) openWindow(key string, ks *keyState, w int64, at time.Duration) *keyWindow {
	if n := len(ks.open); n > 0 && ks.open[n-1].window == w && at <= ks.closeBy {
		return &ks.open[n-1] // the common case: the newest window, nothing to close
	}
	found := -1
	open := ks.open[:0]
	for _, o := range ks.open {
		switch {
		case o.window == w:
			found = len(open)
			open = append(open, o)
		case at-o.end > r.grace:
			r.close(key, &o)
		default:
			open = append(open, o)
		}
	}
	ks.open = open
	if found < 0 {
		ks.open = append(ks.open, keyWindow{window: w, end: r.windowEnd(w)})
		found = len(ks.open) - 1
	}
	// A window closes once at - end > grace, that is after end + grace
	// (which saturates rather than wrap round).
	ks.closeBy = math.MaxInt64
	for i := range ks.open {
		if by := ks.open[i].end + r.grace; by >= ks.open[i].end {
			ks.closeBy = min(ks.closeBy, by)
		}
	}
	return &ks.open[found]
}

// windowEnd is when window w ends, from the run's start.
func (r *Recorder) windowEnd(w int64) time.Duration {
	return time.UnixMilli((w + 1) * r.window.Milliseconds()).Sub(r.start)
}

// slideGroups bounds the allowed times a key keeps for the window-long
// interval count: times closer than window/slideGroups to the previous one
// are kept as one group, so a flood costs no more than slideGroups entries.
const slideGroups = 1024

// allowedGroup is allowed requests that came within window/slideGroups of
// the group's first, at time t.
type allowedGroup struct {
	t time.Duration
	n int64
}

// slide counts the key's allowed requests in the window-long interval that
// ends at t, keeping the most seen. Exact while allowed requests are more
// than window/1024 apart; in a flood a group leaves the interval with its
// first request, so the count may be low by at most one group.
func (r *Recorder) slide(ks *keyState, t time.Duration) {
	if n := len(ks.recent); n > 0 && t-ks.recent[n-1].t < r.window/slideGroups {
		ks.recent[n-1].n++
	} else {
		ks.recent = append(ks.recent, allowedGroup{t: t, n: 1})
	}
	ks.inWindow++
	i := 0
	for i < len(ks.recent) && ks.recent[i].t <= t-r.window {
		ks.inWindow -= ks.recent[i].n
		i++
	}
	ks.recent = ks.recent[i:]
	r.maxIn = max(r.maxIn, ks.inWindow)
}

// sweep closes every key-window that ended more than the grace period ago,
// and forgets keys with nothing left open, so memory follows live keys.
func (r *Recorder) sweep(now time.Duration) {
	r.swept = now
	r.epoch++ // keys may be dropped below
	for key, ks := range r.keys {
		open := ks.open[:0]
		for _, kw := range ks.open {
			if now-kw.end > r.grace {
				r.close(key, &kw)
			} else {
				open = append(open, kw)
			}
		}
		ks.open = open
		if len(open) == 0 && now-ks.last >= r.window {
			delete(r.keys, key)
		}
	}
}

// close folds a finished key-window into the trial's statistics.
func (r *Recorder) close(key string, kw *keyWindow) {
	r.hist[kw.allowed]++
	if int(kw.pop) < len(r.popHist) && kw.offered > 0 {
		r.popHist[kw.pop][kw.allowed]++
	}
	r.reconcile(kw)
	var reads []int32
	if kw.tally != 0 {
		reads = r.tallies.of(kw.tally)
	}
	for _, n := range reads {
		r.group = max(r.group, int64(n))
	}
	if kw.allowed > r.limit {
		r.over++
		r.excess += kw.allowed - r.limit
	}
	r.keepWorst(key, kw, reads)
	if kw.tally != 0 {
		r.tallies.put(kw.tally)
		kw.tally = 0
	}
}

// keepWorst keeps the worstKept key-windows by allowed count, with their
// read tallies (reads); ties go to the earlier window, then the smaller
// key, so the choice is deterministic.
func (r *Recorder) keepWorst(key string, kw *keyWindow, reads []int32) {
	if kw.allowed == 0 {
		return
	}
	worse := func(a, b KeyTimeline) bool {
		if a.Allowed != b.Allowed {
			return a.Allowed > b.Allowed
		}
		if a.Window != b.Window {
			return a.Window < b.Window
		}
		return a.Key < b.Key
	}
	t := KeyTimeline{Key: key, Window: kw.window, Allowed: kw.allowed, Offered: kw.offered, Reference: kw.ref,
		SentOverSecs:    (kw.last - kw.first).Seconds(),
		WindowStartSecs: time.Unix(0, kw.window*int64(r.window)).Sub(r.start).Seconds()}
	if int(kw.pop) < len(r.pops) {
		t.Population = r.pops[kw.pop].Name
	}
	if len(r.worst) == worstKept && !worse(t, r.worst[worstKept-1]) {
		return
	}
	t.AllowedAtSecs = make([]float64, len(kw.times))
	for i, at := range kw.times {
		t.AllowedAtSecs[i] = at.Seconds()
	}
	if reads != nil {
		// Counts past the last one read are left out: a sweep of limits
		// in the thousands would otherwise write thousands of zeros per
		// key-window into its summary. One count stays, so that a
		// key-window whose allowed requests read nothing is still known.
		last := 0
		for i, n := range reads {
			if n != 0 {
				last = i
			}
		}
		t.ReadGroups = make([]int64, last+1)
		for i, n := range reads[:last+1] {
			t.ReadGroups[i] = int64(n)
		}
	}
	r.worst = append(r.worst, t)
	sort.Slice(r.worst, func(i, j int) bool { return worse(r.worst[i], r.worst[j]) })
	if len(r.worst) > worstKept {
		r.worst = r.worst[:worstKept]
	}
}

// Trial is one finished trial's results, ready to be pooled with others.
type Trial struct {
	Totals      Totals
	Populations []Population
	Hist        map[int64]int64
	OverLimit   int64
	Excess      int64
	MaxIn       int64
	// ReadGroup is the most allowed requests of one key-window that read
	// the same count (0: the driver did not say what was read).
	ReadGroup int64
	// Reference is the trial held against an exact limiter on the same
	// requests.
	Reference TrialReference
	// PopulationHists counts each population's key-windows by allowed
	// count, in population order.
	PopulationHists []map[int64]int64
	Worst           []KeyTimeline
	KV              KVCounters
	Latency         LogHist
	// LatencyByDecision is latency split by decision, for a driver that
	// records it (DecisionLatency).
	LatencyByDecision [NumDecisions]LogHist
	// Service is a live run's time at the target per request, when the
	// target states it (the built-in target does): latency without the
	// HTTP hop. Empty in the model, whose latency has no hop.
	Service LogHist
	// Store is a live run's per-request time the target's store's modeled
	// latencies stood for (X-Overshoot-Store-Us): what the model's latency
	// is made of, without the target's own time. Empty unless the target
	// states it (over the eventual store).
	Store LogHist
}

// Finish closes every open key-window and returns the trial's results;
// elapsed is the time the trial covered. The Recorder must not be used after.
func (r *Recorder) Finish(elapsed time.Duration) Trial {
	keys := make([]string, 0, len(r.keys))
	for k := range r.keys {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ks := r.keys[k]
		for i := range ks.open {
			r.close(k, &ks.open[i])
		}
	}
	r.keys = nil
	var byDecision [NumDecisions]LogHist
	for i := range byDecision {
		byDecision[i] = r.byDecision[i].hist()
	}
	latency := r.latency.hist()
	if r.requests > 0 {
		if latency.N > 0 {
			panic("measure: a recorder's latencies were recorded both with RequestLatency and with Latency")
		}
		latency = requestLatency(append(byDecision[:], r.undecided.hist()), r.requests, r.requestSum)
	}
	r.totals.SimulatedSeconds = elapsed.Seconds()
	return Trial{Totals: r.totals, Populations: r.pops, Hist: r.hist, OverLimit: r.over, Reference: r.ref, PopulationHists: r.popHist,
		Excess: r.excess, MaxIn: r.maxIn, ReadGroup: r.group, Worst: r.worst, KV: r.KV, Latency: latency, LatencyByDecision: byDecision}
}
