package measure

import "slices"

// Mechanism is what the store and the error policy did in each trial (in a
// live run, each run), beside the headline: simulate -compare holds a live
// run's figures against the band of the model's trials for each, because a
// headline can agree for another reason (a live store with another write
// limit lets as many through for other causes). Counts are kept, not
// rates, so that the rates (MechanismRates) are derived the same way on
// both sides.
type Mechanism struct {
	// Trials are each trial's (or live run's) counts, in trial order.
	Trials []MechanismTrial `json:"trials"`
}

// MechanismTrial is one trial's counts behind the mechanism's rates.
type MechanismTrial struct {
	Requests int64 `json:"requests"`
	FailOpen int64 `json:"fail_open"`
	// Writes are the writes tried, RateLimited those the store refused
	// with a 429 (KV's write limit per key), and Committed those it took.
	Writes      int64 `json:"writes"`
	RateLimited int64 `json:"write_rate_limited"`
	Committed   int64 `json:"committed_writes"`
	// LostUpdates are increments acknowledged that are not in the count
	// their key ended with (KVWork.LostUpdates).
	LostUpdates int64 `json:"lost_updates"`
	// ReadsOfWritten are the successful reads of a key already written
	// (those whose staleness is known), StaleReads those among them that
	// returned an older value than the latest committed write.
	ReadsOfWritten int64 `json:"reads_of_written"`
	StaleReads     int64 `json:"stale_reads"`
	// LatencyP50Ms and LatencyP99Ms are the trial's request latency
	// quantiles; 0 when the driver recorded none per trial (a live run's
	// are in Repeats and Live).
	LatencyP50Ms float64 `json:"latency_p50_ms"`
	LatencyP99Ms float64 `json:"latency_p99_ms"`
	// ServiceP50Ms and ServiceP99Ms are a live run's service time
	// quantiles at the target (Trial.Service); 0 when it stated none.
	ServiceP50Ms float64 `json:"service_p50_ms,omitempty"`
	ServiceP99Ms float64 `json:"service_p99_ms,omitempty"`
	// StoreP50Ms and StoreP99Ms are the quantiles of what a live run's
	// store's modeled latencies stood for per request at the target
	// (Trial.Store): the part of its service time the model's latency
	// stands for; 0 when it stated none.
	StoreP50Ms float64 `json:"store_p50_ms,omitempty"`
	StoreP99Ms float64 `json:"store_p99_ms,omitempty"`
}

// mechanismOf is a trial's mechanism counts.
func mechanismOf(t *Trial) MechanismTrial {
	k := t.KV
	m := MechanismTrial{Requests: t.Totals.Requests, FailOpen: t.Totals.FailOpen, Writes: k.Writes,
		RateLimited: k.WriteRateLimited, Committed: k.Writes - k.WriteErrors, LostUpdates: k.LostUpdates, StaleReads: k.StaleReads}
	for _, n := range k.VisReads {
		m.ReadsOfWritten += n
	}
	if t.Latency.N > 0 {
		st := t.Latency.Stats()
		m.LatencyP50Ms, m.LatencyP99Ms = st.P50, st.P99
	}
	if t.Service.N > 0 {
		st := t.Service.Stats()
		m.ServiceP50Ms, m.ServiceP99Ms = st.P50, st.P99
	}
	if t.Store.N > 0 {
		st := t.Store.Stats()
		m.StoreP50Ms, m.StoreP99Ms = st.P50, st.P99
	}
	return m
}

// The mechanism's figures, by the names a comparison's checks carry.
const (
	CheckRateLimited = "write_429.rate"
	CheckLostUpdates = "lost_update.rate"
	CheckStaleReads  = "stale_read.rate"
	CheckFailOpen    = "fail_open.rate"
	CheckLatencyP50  = "latency.p50_ms"
	CheckLatencyP99  = "latency.p99_ms"
)

// mechanismFigure is one figure of the mechanism: its name, what it is in
// words, and its value in one trial (false when the trial has none: no
// writes for a share of writes).
type mechanismFigure struct {
	name, what string
	value      func(MechanismTrial) (float64, bool)
}

// share is n / of, or false when of is 0.
func share(n, of int64) (float64, bool) {
	if of <= 0 {
		return 0, false
	}
	return float64(n) / float64(of), true
}

// mechanismFigures are the figures a comparison checks, in the order it
// prints them.
var mechanismFigures = []mechanismFigure{
	{CheckRateLimited, "writes the store refused with 429 (its write limit per key)",
		func(m MechanismTrial) (float64, bool) { return share(m.RateLimited, m.Writes) }},
	{CheckLostUpdates, "increments acknowledged that the count their key ended with lacks, per committed write (lost updates)",
		func(m MechanismTrial) (float64, bool) { return share(m.LostUpdates, m.Committed) }},
	{CheckStaleReads, "reads of a written key that returned an older count (stale reads)",
		func(m MechanismTrial) (float64, bool) { return share(m.StaleReads, m.ReadsOfWritten) }},
	{CheckFailOpen, "requests allowed because the store failed (fail-open)",
		func(m MechanismTrial) (float64, bool) { return share(m.FailOpen, m.Requests) }},
	{CheckLatencyP50, "request latency p50, ms",
		func(m MechanismTrial) (float64, bool) { return m.LatencyP50Ms, m.LatencyP50Ms > 0 }},
	{CheckLatencyP99, "request latency p99, ms",
		func(m MechanismTrial) (float64, bool) { return m.LatencyP99Ms, m.LatencyP99Ms > 0 }},
}

// hold sets k's band and median from the trials' values model (sorted),
// its measured value from the live runs' (their median), and whether it is
// inside: the least to the most of the trials', when observed.
func (k *MechanismCheck) hold(model, live []float64) {
	if len(model) > 0 {
		k.PredictedBand = [2]float64{model[0], model[len(model)-1]}
		k.PredictedMedian = Median(model)
	}
	if len(live) > 0 {
		k.Measured = Median(live)
	}
	k.InsideBand = k.Observed && k.Measured >= k.PredictedBand[0] && k.Measured <= k.PredictedBand[1]
}

// values is the figure's value in each trial that has one, sorted.
func (f mechanismFigure) values(trials []MechanismTrial) []float64 {
	var out []float64
	for _, t := range trials {
		if v, ok := f.value(t); ok {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// mechanism is the trials' mechanism counts, in trial order; nil for no
// trials.
func mechanism(trials []Trial) *Mechanism {
	if len(trials) == 0 {
		return nil
	}
	m := &Mechanism{Trials: make([]MechanismTrial, len(trials))}
	for i := range trials {
		m.Trials[i] = mechanismOf(&trials[i])
	}
	return m
}

// pooledMechanism is a summary's mechanism counts from its pooled totals
// and KV work, with its latency: a single run's, or an older summary's
// without Mechanism.
func pooledMechanism(s *Summary) MechanismTrial {
	t := Trial{Totals: s.Totals, KV: KVCounters{Writes: s.KV.Writes, WriteErrors: s.KV.WriteErrors,
		WriteRateLimited: s.KV.WriteRateLimited, LostUpdates: s.KV.LostUpdates, StaleReads: s.KV.StaleReads}}
	m := mechanismOf(&t)
	for _, v := range s.KV.Visibility {
		m.ReadsOfWritten += v.Reads
	}
	lat := s.LatencyMs
	if lat == nil && s.Live != nil {
		lat = &s.Live.LatencyMs
	}
	if lat != nil && lat.N > 0 {
		m.LatencyP50Ms, m.LatencyP99Ms = lat.P50, lat.P99
	}
	if s.Live != nil && s.Live.ServiceMs != nil && s.Live.ServiceMs.N > 0 {
		m.ServiceP50Ms, m.ServiceP99Ms = s.Live.ServiceMs.P50, s.Live.ServiceMs.P99
	}
	if s.Live != nil && s.Live.StoreMs != nil && s.Live.StoreMs.N > 0 {
		m.StoreP50Ms, m.StoreP99Ms = s.Live.StoreMs.P50, s.Live.StoreMs.P99
	}
	return m
}

// liveRuns is the measured summary's mechanism counts per live run: for
// repeats, the runs kept (by index), with each run's latency from
// Repeats; otherwise the run's pooled counts.
func liveRuns(measured *Summary, kept []int) []MechanismTrial {
	r := measured.Repeats
	if r == nil || len(r.Runs) == 0 || measured.Mechanism == nil || len(measured.Mechanism.Trials) != len(r.Runs) {
		return []MechanismTrial{pooledMechanism(measured)}
	}
	var out []MechanismTrial
	for _, i := range kept {
		m := measured.Mechanism.Trials[i]
		m.LatencyP50Ms, m.LatencyP99Ms = r.Runs[i].LatencyP50Ms, r.Runs[i].LatencyP99Ms
		out = append(out, m)
	}
	return out
}

// Where a live run's latency figures were taken, nearest the model's
// first: what its store's modeled latencies stood for at the target,
// the target's service time, or the attacker's clock.
const (
	atClient = iota
	atService
	atStore
)

// atTarget returns the live runs with their latency figures replaced by
// what was measured nearest to what the model's latency stands for, and
// where that was: the store's modeled latencies at the target when every
// run's target stated them (the built-in target over the eventual store:
// the model's latency is made of them alone, while the target's service
// time also holds its own CPU, late timers and waits for a core); else
// its service times when every run stated them (without the HTTP hop,
// which the model has no part for); else the runs as they are.
func atTarget(runs []MechanismTrial) ([]MechanismTrial, int) {
	at := atStore
	for _, m := range runs {
		switch {
		case m.ServiceP50Ms <= 0:
			return runs, atClient
		case m.StoreP50Ms <= 0:
			at = atService
		}
	}
	if len(runs) == 0 {
		return runs, atClient
	}
	out := slices.Clone(runs)
	for i := range out {
		if at == atStore {
			out[i].LatencyP50Ms, out[i].LatencyP99Ms = out[i].StoreP50Ms, out[i].StoreP99Ms
		} else {
			out[i].LatencyP50Ms, out[i].LatencyP99Ms = out[i].ServiceP50Ms, out[i].ServiceP99Ms
		}
	}
	return out, at
}

// serviceFigure is the live runs' median service time quantile for a
// latency figure (name), for a check taken at the store to show beside.
func serviceFigure(runs []MechanismTrial, name string) float64 {
	var v []float64
	for _, m := range runs {
		if name == CheckLatencyP50 {
			v = append(v, m.ServiceP50Ms)
		} else {
			v = append(v, m.ServiceP99Ms)
		}
	}
	return Median(v)
}

// observes reports whether measured saw figure name: a simulation sees
// every figure; a live run its store's 429s only on the built-in target
// (KV.Observed), lost updates and stale reads only on the built-in
// eventual store and on Redis for a limiter that stores counts
// (redis.Ledger; a token bucket's or GCRA's timestamps are not counted,
// and the memory store and a real namespace count neither), fail-opens on
// the built-in target or a target that marks them, and its latency when
// it timed a response.
func observes(measured *Summary, name string, runs []MechanismTrial) bool {
	if measured.Mode != "attack" {
		return true
	}
	kv := measured.KV.Observed
	switch name {
	case CheckRateLimited:
		return kv
	case CheckLostUpdates, CheckStaleReads:
		return kv && measured.Live != nil && countsLosses(measured.Live.Target, measured.Limiter.Algorithm)
	case CheckFailOpen:
		return kv || measured.Totals.FailOpen > 0
	}
	for _, m := range runs {
		if m.LatencyP50Ms > 0 {
			return true
		}
	}
	return false
}

// countsLosses reports whether the live store target counts lost updates
// and stale reads for a limiter of algorithm alg.
func countsLosses(target, alg string) bool {
	switch target {
	case "eventual":
		return true
	case "redis":
		return alg != "token-bucket" && alg != "gcra"
	}
	return false
}

// checks holds each figure of measured's mechanism (over the live runs
// kept) against the band of predicted's trials: from the least to the most
// any trial had. The band is every trial's, not the central 95% as the
// headline's, because six figures are checked: with 95% bands a model
// that is right would fail one live run in four on some figure by chance;
// outside the range of 200 trials, a live run is about 1% likely to fall
// by chance, for each figure.
func checks(predicted, measured *Summary, kept []int) []MechanismCheck {
	if predicted.Mechanism == nil || len(predicted.Mechanism.Trials) == 0 {
		return nil
	}
	runs := liveRuns(measured, kept)
	at := atClient
	if measured.Mode == "attack" && predicted.LatencyClock != ClockClient {
		runs, at = atTarget(runs)
	}
	var out []MechanismCheck
	for _, f := range mechanismFigures {
		model, live := f.values(predicted.Mechanism.Trials), f.values(runs)
		c := MechanismCheck{Name: f.name, What: f.what, Observed: observes(measured, f.name, runs)}
		if latency := f.name == CheckLatencyP50 || f.name == CheckLatencyP99; latency && at == atService {
			c.What += " at the target (its own time, without the HTTP hop, which the model has no part for)"
			c.AtTarget = true
		} else if latency && at == atStore {
			c.What += " of the target's store (what its modeled latencies stood for, without the HTTP hop and the target's own time, which the model has no part for)"
			c.AtTarget, c.AtStore, c.Service = true, true, serviceFigure(runs, f.name)
		}
		if len(model) == 0 && len(live) == 0 {
			continue // neither side had what the figure is a share of
		}
		c.hold(model, live)
		out = append(out, c)
	}
	return out
}
