package measure

import "time"

// Decision is what a request got, in the classes its latency is split by:
// the limiter's own answer (allowed or denied by the count), the error
// policy's (fail-open, fail-closed: the store failed), or none (an error).
type Decision uint8

// The decisions, in the order reports list them.
const (
	// DecidedAllowed: allowed by the count.
	DecidedAllowed Decision = iota
	// DecidedDenied: denied by the count.
	DecidedDenied
	// DecidedFailOpen: allowed by the error policy because the store failed.
	DecidedFailOpen
	// DecidedFailClosed: denied by the error policy because the store failed.
	DecidedFailClosed
	// DecidedError: no decision reached the client.
	DecidedError
	// NumDecisions is the number of decisions.
	NumDecisions
)

// decisionNames are the decisions' names in summary.json and reports.
var decisionNames = [NumDecisions]string{"allowed", "denied", "fail-open", "fail-closed", "error"}

// String names the decision as reports do: allowed, denied, fail-open,
// fail-closed, error.
func (d Decision) String() string {
	if d < NumDecisions {
		return decisionNames[d]
	}
	return "unknown"
}

// DecisionOf is the decision of an event: its outcome, unless the error
// policy made it.
func DecisionOf(e Event) Decision {
	switch {
	case e.Outcome == Errored:
		return DecidedError
	case e.Outcome == Allowed && e.FailOpen:
		return DecidedFailOpen
	case e.Outcome == Allowed:
		return DecidedAllowed
	case e.FailClosed:
		return DecidedFailClosed
	}
	return DecidedDenied
}

// DecisionLatency records one request's latency under its decision, for
// the summary's latency_by_decision_ms. The live runner calls it for every
// response, the simulator for every request when its response arrives.
func (r *Recorder) DecisionLatency(d Decision, lat time.Duration) {
	if d < NumDecisions {
		r.byDecision[d].add(float64(lat) / float64(time.Millisecond))
	}
}

// RequestLatency is Latency and DecisionLatency in one call, for a driver
// that records both for every request (the simulator): it counts the
// latency under its decision only, and adds it to the overall sum, and
// Finish derives the overall histogram's counts, number and maximum from
// the decisions' (the same, as integers and a maximum do not depend on
// the order they are taken in). A driver calls either RequestLatency or
// Latency and DecisionLatency, not both (Finish panics).
func (r *Recorder) RequestLatency(d Decision, lat time.Duration) {
	v := float64(lat) / float64(time.Millisecond)
	r.requests++
	r.requestSum += v
	h := &r.undecided
	if d < NumDecisions {
		h = &r.byDecision[d]
	}
	h.add(v)
}

// requestLatency is the overall latency histogram of n requests whose
// latencies, summing to sum, RequestLatency counted in hs.
func requestLatency(hs []LogHist, n int64, sum float64) LogHist {
	var h LogHist
	for _, o := range hs {
		h.Merge(o)
	}
	// The sum as the latencies came, as Latency would have added them:
	// the decisions' sums, added up, may differ in the last bits.
	h.Sum = sum
	if h.N != n {
		panic("measure: a recorder's latencies were recorded both with RequestLatency and with Latency or DecisionLatency")
	}
	return h
}

// LatencyByDecision is the requests' latency in milliseconds split by what
// they got; a decision no request got is left out (nil).
type LatencyByDecision struct {
	Allowed    *Stats `json:"allowed,omitempty"`
	Denied     *Stats `json:"denied,omitempty"`
	FailOpen   *Stats `json:"fail_open,omitempty"`
	FailClosed *Stats `json:"fail_closed,omitempty"`
	Error      *Stats `json:"error,omitempty"`
}

// Of returns the statistics of decision d, or nil when no request got it.
func (l *LatencyByDecision) Of(d Decision) *Stats {
	if l == nil {
		return nil
	}
	if f := l.field(d); f != nil {
		return *f
	}
	return nil
}

// field is where decision d's statistics are kept; nil for no decision.
func (l *LatencyByDecision) field(d Decision) **Stats {
	switch d {
	case DecidedAllowed:
		return &l.Allowed
	case DecidedDenied:
		return &l.Denied
	case DecidedFailOpen:
		return &l.FailOpen
	case DecidedFailClosed:
		return &l.FailClosed
	case DecidedError:
		return &l.Error
	}
	return nil
}

// latencyByDecision summarises pooled per-decision histograms; nil when
// none holds a request.
func latencyByDecision(hs *[NumDecisions]LogHist) *LatencyByDecision {
	var out LatencyByDecision
	any := false
	for d := range NumDecisions {
		if hs[d].N == 0 {
			continue
		}
		st := hs[d].Stats()
		*out.field(d) = &st
		any = true
	}
	if !any {
		return nil
	}
	return &out
}

// LatencySample is one request of a live run, kept for the report's
// latency-over-time figure (not part of summary.json): when it was sent,
// in seconds from the run's start, how long it took and what it got.
type LatencySample struct {
	AtSecs   float64
	Ms       float64
	Decision Decision
}
