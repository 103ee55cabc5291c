package measure

import "time"

// exactRule is the rule of the reference limiter: the limiter's own
// algorithm, applied at once to exact counts, as a linearizable limiter
// with no lag would apply it to the same requests.
type exactRule uint8

// The reference limiter's rules.
const (
	exactFixed   exactRule = iota // allowed while the key-window allowed fewer than the limit
	exactSliding                  // the sliding-window estimate over exact counts
	exactBucket                   // GCRA over an exact theoretical arrival time
)

// exactRuleOf returns the reference rule for a limiter's algorithm and,
// for a token bucket, its emission interval and tolerance in microseconds
// (as the limiter computes them).
func exactRuleOf(algorithm string, limit int64, window time.Duration) (rule exactRule, interval, tolerance int64) {
	switch algorithm {
	case "sliding-window":
		return exactSliding, 0, 0
	case "token-bucket":
		if limit <= 0 {
			return exactBucket, 0, 0
		}
		us := window.Microseconds()
		interval = us / limit
		if us%limit != 0 {
			interval++
		}
		return exactBucket, interval, (limit - 1) * interval
	}
	return exactFixed, 0, 0
}

// exactAllows decides a request of key-window kw (of key ks) at at by the
// reference rule, counts it in kw.ref when allowed, and reports whether it
// was.
func (r *Recorder) exactAllows(ks *keyState, kw *keyWindow, at time.Duration) bool {
	ok := false
	switch r.exact {
	case exactFixed:
		ok = kw.ref < r.limit
	case exactSliding:
		ok = r.slidingAllows(ks, kw, at)
	case exactBucket:
		now := at.Microseconds()
		tat := now
		if ks.hasTAT {
			tat = max(now, ks.tat)
		}
		if ok = tat-now <= r.tolerance; ok {
			ks.tat, ks.hasTAT = tat+r.interval, true
		}
	}
	if ok {
		kw.ref++
	}
	return ok
}

// slidingAllows is the sliding-window rule on exact counts: the previous
// window's reference count weighted by the part of it still inside the
// sliding window, plus the current one's, must be under the limit.
func (r *Recorder) slidingAllows(ks *keyState, kw *keyWindow, at time.Duration) bool {
	var prev int64
	for i := range ks.open {
		if ks.open[i].window == kw.window-1 {
			prev = ks.open[i].ref
			break
		}
	}
	into := min(max(at-(kw.end-r.window), 0), r.window)
	elapsed := float64(into) / float64(r.window)
	return float64(prev)*(1-elapsed)+float64(kw.ref) < float64(r.limit)
}

// maxPendingFalse bounds the false denials a key-window keeps the
// clients of until it closes.
const maxPendingFalse = 64

// falsePending keeps a legitimate client's denial that the reference
// would have allowed, until the key-window closes.
func (kw *keyWindow) falsePending(pop, client int) {
	if len(kw.falses) < maxPendingFalse {
		kw.falses = append(kw.falses, popClient{pop, client})
		return
	}
	kw.falseOver++
}

// reconcile settles a closing key-window against the reference. A
// request the limiter denied that the reference allowed (wrong) and one
// it allowed that the reference denied (let) in the same key-window
// cancel out: the limiter allowed as many as the reference would have,
// and only the order differs, as it does when a live run records
// responses in another order than the target decided them (for a fixed
// window the settled numbers are max(0, min(offered, limit) - allowed)
// and max(0, allowed - min(offered, limit))). Legitimate clients' false
// denials are cancelled first, the latest first; those left are
// counted, with their clients.
func (r *Recorder) reconcile(kw *keyWindow) {
	cancel := min(kw.wrong, kw.let)
	r.ref.Allowed += kw.ref
	r.ref.Denied += kw.offered - kw.ref
	r.ref.WronglyDenied += kw.wrong - cancel
	r.ref.LetThrough += kw.let - cancel
	if x := kw.allowed - kw.ref; x > 0 {
		r.ref.Excess += x
		r.ref.MaxExcess = max(r.ref.MaxExcess, x)
	}
	over := max(0, kw.falseOver-cancel)
	cancel = max(0, cancel-kw.falseOver)
	keep := kw.falses[:len(kw.falses)-int(min(cancel, int64(len(kw.falses))))]
	for _, pc := range keep {
		p := &r.pops[pc.pop]
		p.FalseDenials++
		if !hasKey(r.falselyDenied, pc) {
			r.falselyDenied[pc] = struct{}{}
			p.FalselyDeniedClients++
		}
	}
	if over > 0 && int(kw.pop) < len(r.pops) {
		r.pops[kw.pop].FalseDenials += over
	}
	kw.falses, kw.falseOver, kw.wrong, kw.let = nil, 0, 0, 0
}

// TrialReference is one trial held against the reference limiter, an
// exact limiter (linearizable, no lag) with the same algorithm on the
// same requests.
type TrialReference struct {
	// Allowed is what the reference allowed, over every key-window.
	Allowed int64
	// Denied counts the requests the reference denied, and LetThrough
	// those of them the limiter allowed anyway.
	Denied, LetThrough int64
	// WronglyDenied counts the requests the reference allowed that the
	// limiter denied (every population's).
	WronglyDenied int64
	// Excess is the sum over key-windows of max(0, allowed - reference
	// allowed), and MaxExcess its largest term.
	Excess, MaxExcess int64
}

// add pools o into t.
func (t *TrialReference) add(o TrialReference) {
	t.Allowed += o.Allowed
	t.Denied += o.Denied
	t.LetThrough += o.LetThrough
	t.WronglyDenied += o.WronglyDenied
	t.Excess += o.Excess
	t.MaxExcess = max(t.MaxExcess, o.MaxExcess)
}

// Reference is a run held against an exact limiter (linearizable, no
// lag, the same algorithm) on the same requests: what the store's
// consistency cost.
type Reference struct {
	// Allowed is what the exact limiter would have allowed, summed over
	// key-windows (a fixed window's is min(offered, limit) in each).
	Allowed int64 `json:"allowed"`
	// Excess is the sum over key-windows of what the limiter allowed
	// beyond the exact limiter, and MaxExcess the most in one key-window.
	Excess    int64 `json:"excess"`
	MaxExcess int64 `json:"max_excess"`
	// Denied counts the requests the exact limiter denies; LetThrough
	// those of them the limiter allowed anyway, and LetThroughShare that
	// as a share of Denied (0 when it denies none).
	Denied          int64   `json:"denied"`
	LetThrough      int64   `json:"let_through"`
	LetThroughShare float64 `json:"let_through_share"`
	// WronglyDenied counts the requests the exact limiter allows that the
	// limiter denied, in every population (a legitimate population's are
	// its false_denials).
	WronglyDenied int64 `json:"wrongly_denied"`
}

// reference turns pooled trial references into the summary's.
func reference(t TrialReference) Reference {
	r := Reference{Allowed: t.Allowed, Excess: t.Excess, MaxExcess: t.MaxExcess, Denied: t.Denied,
		LetThrough: t.LetThrough, WronglyDenied: t.WronglyDenied}
	if t.Denied > 0 {
		r.LetThroughShare = float64(t.LetThrough) / float64(t.Denied)
	}
	return r
}
