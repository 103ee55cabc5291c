package attack

import (
	"math/rand/v2"
	"sort"
	"strconv"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/target"
)

// LatencyNote says how attack measures latency and what that hides; it goes
// into summary.json's live.latency_note.
const LatencyNote = "Latency is measured by the attacker on its own clock, vegeta's way: from when a worker takes " +
	"the request (for a closed loop with think time, from when it leaves after thinking) until its response " +
	"body has been read. Open-loop requests that found every worker busy are timed from when a worker picked " +
	"them up, not from when the schedule called for them, so under overload these percentiles understate what " +
	"clients would see (coordinated omission): compare offered_rate with achieved_rate; when achieved falls " +
	"short, latency is optimistic. Closed loops (C in flight) wait for responses by design and offer only " +
	"what they achieve."

// accountant turns vegeta results into overshoot events as they stream by:
// nothing is kept per request.
type accountant struct {
	rec      *measure.Recorder
	pops     map[string]int // attack name -> population index
	windowMs int64
	skew     time.Duration // clock margin for attributing a window without the target's header
	start    time.Time
	deny     [600]bool // statuses that are denials (DenyStatuses)

	lat measure.LogHist // milliseconds
	// service is the target's own time per request (milliseconds), from
	// the built-in target's X-Overshoot-Service-Us: latency without the
	// HTTP hop. Empty for a target that does not say.
	service measure.LogHist
	// store is the store's modeled latencies per request
	// (X-Overshoot-Store-Us) and overhead service less it, the target's
	// own time, for the requests that state both.
	store, overhead measure.LogHist

	status    [600]int64 // by status code; 0 is a transport error
	ambiguous int64
	results   int64
	perPop    []int64 // results per population, for offered rates of closed loops
	closed    []bool  // per population: a closed loop

	// series is the run in consecutive intervals of width step, by send
	// time, for the report's figures over time.
	step   time.Duration
	series []interval

	// samples keeps up to maxSamples responses per decision, a uniform
	// sample over the run (reservoir sampling), for the report's latency
	// over time; seen counts each decision's responses and rng drives the
	// sampling (a fixed seed: the same results give the same sample).
	samples [measure.NumDecisions][]measure.LatencySample
	seen    [measure.NumDecisions]int64
	rng     *rand.Rand
}

// maxSamples is how many responses of each decision the latency-over-time
// figure shows at most: enough to see every band, few enough to draw.
const maxSamples = 2000

// keepSample offers one response to its decision's reservoir.
func (a *accountant) keepSample(d measure.Decision, r *vegeta.Result) {
	a.seen[d]++
	smp := measure.LatencySample{AtSecs: r.Timestamp.Sub(a.start).Seconds(), Ms: float64(r.Latency) / float64(time.Millisecond), Decision: d}
	if len(a.samples[d]) < maxSamples {
		a.samples[d] = append(a.samples[d], smp)
		return
	}
	if j := a.rng.Uint64N(uint64(a.seen[d])); j < maxSamples {
		a.samples[d][j] = smp
	}
}

// latencySamples returns the kept samples, every decision's, in time order.
func (a *accountant) latencySamples() []measure.LatencySample {
	var out []measure.LatencySample
	for _, s := range a.samples {
		out = append(out, s...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].AtSecs < out[j].AtSecs })
	return out
}

// interval is one step of the live series.
type interval struct {
	results    int64
	closedSent int64 // requests sent by closed loops (they offer what they send)
	lat        measure.LogHist
	status     map[uint16]int64
}

// seriesStep returns the series' interval for a run of d: 1 s, or wider so
// that a long run has at most 300 intervals.
func seriesStep(d time.Duration) time.Duration {
	step := time.Second
	if d/300 > step {
		step = (d / 300).Round(time.Second)
	}
	return step
}

// newAccountant returns an accountant recording into rec; deny lists the
// statuses that are denials (none: 429 alone), each a status DenyStatuses
// accepts.
func newAccountant(rec *measure.Recorder, pops map[string]int, npop int, window, skew time.Duration, start time.Time, deny []int) *accountant {
	a := &accountant{rec: rec, pops: pops, windowMs: window.Milliseconds(), skew: skew, start: start,
		perPop: make([]int64, npop), closed: make([]bool, npop), step: time.Second,
		rng: rand.New(rand.NewPCG(0x9E3779B97F4A7C15, 0))}
	if len(deny) == 0 {
		deny = DefaultDenyStatus
	}
	for _, c := range deny {
		if c >= 0 && c < len(a.deny) {
			a.deny[c] = true
		}
	}
	return a
}

// sample adds r to its interval of the series.
func (a *accountant) sample(r *vegeta.Result, closed bool) {
	i := int(r.Timestamp.Sub(a.start) / a.step)
	if i < 0 {
		i = 0
	}
	for len(a.series) <= i {
		a.series = append(a.series, interval{status: map[uint16]int64{}})
	}
	iv := &a.series[i]
	iv.results++
	if closed {
		iv.closedSent++
	}
	iv.lat.Add(float64(r.Latency) / float64(time.Millisecond))
	iv.status[r.Code]++
}

// windowOf is the limiter's window id of t: floor(unix ms / window ms).
func (a *accountant) windowOf(t time.Time) int64 {
	ms := t.UnixMilli()
	q := ms / a.windowMs
	if ms%a.windowMs != 0 && ms < 0 {
		q--
	}
	return q
}

// add accounts for one result; sentKey is the identity the request carried
// and client the index of the client that sent it (-1: unknown).
func (a *accountant) add(r *vegeta.Result, sentKey string, client int) {
	a.results++
	if int(r.Code) < len(a.status) {
		a.status[r.Code]++
	} else {
		a.status[0]++ // not HTTP: counted with transport errors
	}
	a.lat.Add(float64(r.Latency) / float64(time.Millisecond))
	if us, err := strconv.ParseInt(first(r.Headers, target.HeaderService), 10, 64); err == nil && us >= 0 {
		a.service.Add(float64(us) / 1000)
		if st, err := strconv.ParseInt(first(r.Headers, target.HeaderStore), 10, 64); err == nil && st >= 0 {
			a.store.Add(float64(st) / 1000)
			a.overhead.Add(float64(max(us-st, 0)) / 1000)
		}
	}
	pop, ok := a.pops[r.Attack]
	if !ok {
		return // not one of ours; cannot happen
	}
	a.perPop[pop]++
	a.sample(r, a.closed[pop])
	e := measure.Event{Pop: pop, Client: client, At: r.Timestamp.Add(r.Latency / 2).Sub(a.start)}
	h := r.Headers
	left, saysLeft := readRemaining(h)
	switch {
	case int(r.Code) < len(a.deny) && a.deny[r.Code]:
		e.Outcome = measure.Denied
	case r.Code >= 200 && r.Code < 300:
		e.Outcome = measure.Allowed
	case r.Code != 0 && saysLeft && left <= 0:
		// Another status, but the rate-limit fields say nothing remains:
		// a limiter that denies with e.g. 403 or 503.
		e.Outcome = measure.Denied
	default:
		e.Outcome = measure.Errored
		a.decided(e, r)
		a.rec.Record(e)
		return
	}
	e.FailOpen = first(h, target.HeaderFailOpen) == "1"
	e.FailClosed = first(h, target.HeaderFailClosed) == "1"
	if e.Outcome == measure.Allowed && !e.FailOpen {
		e.Remaining, e.HasRemaining = left, saysLeft
	}
	a.decided(e, r) // ambiguous or not: its latency is what it is
	e.Key = first(h, target.HeaderKey)
	if e.Key == "" {
		e.Key = sentKey
	}
	if w, err := strconv.ParseInt(first(h, target.HeaderWindow), 10, 64); err == nil {
		e.Window = w
	} else {
		// The decision was made somewhere between send and receive, on
		// the target's clock: attribute it only when that whole span,
		// widened by the clock margin, lies in one window.
		lo := a.windowOf(r.Timestamp.Add(-a.skew))
		hi := a.windowOf(r.End().Add(a.skew))
		if lo != hi {
			a.ambiguous++
			return
		}
		e.Window = lo
	}
	a.rec.Record(e)
}

// decided records r's latency under e's decision.
func (a *accountant) decided(e measure.Event, r *vegeta.Result) {
	d := measure.DecisionOf(e)
	a.rec.DecisionLatency(d, r.Latency)
	a.keepSample(d, r)
}

// first returns the first value of a canonical header key, or "".
func first(h map[string][]string, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// statusKey names a status code in summaries: its number, or "error" for
// a transport error (no response).
func statusKey(code int) string {
	if code == 0 {
		return "error"
	}
	return strconv.Itoa(code)
}

// statusCounts returns the status counts keyed by statusKey.
func (a *accountant) statusCounts() map[string]int64 {
	m := map[string]int64{}
	for c, n := range a.status {
		if n > 0 {
			m[statusKey(c)] = n
		}
	}
	return m
}
