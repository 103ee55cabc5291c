// Package measure is overshoot's accounting, the same in both drivers: the
// simulator and the live attack runner feed it one event per request, and it
// turns them into summary.json. Definitions follow the design ("What
// is measured"); keeping them in one package is what makes a prediction and a
// measurement comparable.
package measure

import (
	"math"
	"slices"
	"strconv"
)

// ClockClient is Summary.LatencyClock for a model whose latency stands for
// the attacker's clock.
const ClockClient = "client"

// SchemaVersion is the version of summary.json's layout; it changes only when
// a field changes meaning or is removed.
const SchemaVersion = 1

// Summary is summary.json: what one run (simulate or attack) found. Field
// names are the same in both modes, so that any two summaries compare.
type Summary struct {
	Schema   int         `json:"schema"`
	Mode     string      `json:"mode"` // "simulate" or "attack"
	Scenario ScenarioRef `json:"scenario"`
	Seed     uint64      `json:"seed"`
	Trials   int         `json:"trials"`
	// Complete is false when the run was interrupted: what is here was
	// measured, but not all that was planned.
	Complete bool `json:"complete"`
	// Warnings say in words why the numbers may not mean what they seem
	// (see Summary.Health): most requests got no decision, or the store
	// failed most reads. For a sweep, the top level lists its points'
	// warnings, each prefixed with the point.
	Warnings []string   `json:"warnings,omitempty"`
	Limiter  LimiterRef `json:"limiter"`
	Totals   Totals     `json:"totals"`
	// Overshoot is the headline: how far past the limit each limiter key got
	// in each window.
	Overshoot   Overshoot    `json:"overshoot"`
	Populations []Population `json:"populations"`
	KV          KVWork       `json:"kv"`
	Cost        Cost         `json:"cost"`
	// WorstKeys are the key-windows that let the most through, with the
	// times of their allowed requests, for the timeline figure.
	WorstKeys []KeyTimeline `json:"worst_keys,omitempty"`
	// Answer says who is behind the worst figure and why it reads as it
	// does (see AnswerOf).
	Answer *Answer `json:"answer,omitempty"`
	// Live is set by attack only.
	Live *Live `json:"live,omitempty"`
	// Points holds one summary per sweep point, in grid order; the rest of
	// the top level then describes the scenario as written, and summary.json
	// leaves out its totals, overshoot, populations, kv, cost and worst keys
	// (nothing was run there) for Worst.
	Points []Point `json:"points,omitempty"`
	// Worst is set for a sweep (see SetWorst): the point that did worst by
	// the scenario's headline metric, and each metric's highest value.
	Worst *Worst `json:"worst,omitempty"`
	// LatencyMs is the requests' latency, from sent to answered: simulated,
	// or a live run's (the same numbers as Live.LatencyMs).
	LatencyMs *Stats `json:"latency_ms,omitempty"`
	// LatencyByDecision splits the latency by what each request got
	// (allowed, denied, fail-open, fail-closed, error): live runs only for
	// now, where a 429 answers in a few milliseconds and an allowed
	// request waits for the store.
	LatencyByDecision *LatencyByDecision `json:"latency_by_decision_ms,omitempty"`
	// Sensitivity is the headline with each of the model's assumptions at
	// its alternatives (simulate, single runs; see Sensitivity).
	Sensitivity []Sensitivity `json:"sensitivity,omitempty"`
	// Repeats is set by attack -repeat N: each run's numbers and their
	// median and spread; the rest of the summary is the runs pooled.
	Repeats *Repeats `json:"repeats,omitempty"`
	// Comparison is set by simulate -compare: the prediction against the
	// measured summary.
	Comparison *Comparison `json:"comparison,omitempty"`

	// Mechanism is, per trial (live: per run), what the store and the
	// error policy did: the counts behind the 429, lost-update,
	// stale-read and fail-open rates and the latency quantiles that
	// simulate -compare checks beside the headline (see Mechanism).
	Mechanism *Mechanism `json:"mechanism,omitempty"`

	// LatencyClock says what a simulation's latency spans: ClockClient
	// when the model holds each request's own time at its host besides
	// its store commands' (store.redis.request_service: the client's work
	// and the target's), so that it stands for the attacker's clock, as
	// simulate -calibrate fits it; empty when the model's latency is the
	// store's parts alone, which a live run's target states nearer
	// (X-Overshoot-Service-Us, X-Overshoot-Store-Us).
	LatencyClock string `json:"latency_clock,omitempty"`
}

// ScenarioRef identifies the scenario a run came from.
type ScenarioRef struct {
	Name string `json:"name"`
	File string `json:"file,omitempty"`
	Hash string `json:"hash"`
	// BaseHash is the hash of the scenario the run's was derived from: its
	// file (or the embedded default) as written, before the -set overrides
	// in Params and before a sweep point's values. Runs of one file with
	// different -set values share it; simulate -compare checks a run
	// against a calibrated scenario by it. Summaries written before it
	// existed have none.
	BaseHash string `json:"base_hash,omitempty"`
	Question string `json:"question,omitempty"`
	// Params are the -set overrides applied, as path=value.
	Params []string `json:"params,omitempty"`
	// Traffic says in words what hit the limiter, for headlines.
	Traffic string `json:"traffic,omitempty"`
	// Headline names the metric the scenario's question is about (see
	// Metrics); reports lead with it. Empty means DefaultHeadline.
	Headline string `json:"headline,omitempty"`
}

// HeadlineMetric is the metric the scenario's question is about: the one it
// names, else DefaultHeadline (also for a name this version does not know).
func (r ScenarioRef) HeadlineMetric() Metric {
	if m, err := LookupMetric(r.Headline); err == nil {
		return m
	}
	m, _ := LookupMetric(DefaultHeadline)
	return m
}

// LimiterRef is the limiter under test.
type LimiterRef struct {
	Algorithm   string  `json:"algorithm"`
	Limit       int64   `json:"limit"`
	Window      string  `json:"window"`
	WindowSecs  float64 `json:"window_seconds"`
	Store       string  `json:"store"`
	ErrorPolicy string  `json:"error_policy"`
	// Key is what the limiter keys a caller on: token-ip (the seed's,
	// also when empty), ip or token.
	Key string `json:"key"`
	// Update is "atomic" for a limiter whose store applies its update in
	// one step; empty for the seed's read-then-write.
	Update string `json:"update,omitempty"`
	// Burst is gcra's burst, when it is not the limit.
	Burst int64 `json:"burst,omitempty"`
}

// AlgorithmText names the limiter's algorithm for people, as every writer
// of a summary (the terminal, the report, diff) says it: "atomic " before
// it for an atomic update, gcra's burst after it when it is not the
// limit: "atomic gcra (burst 3)". Empty when the algorithm is unknown.
func (l LimiterRef) AlgorithmText() string {
	a := l.Algorithm
	if a == "" {
		return ""
	}
	if l.Burst > 0 {
		a += " (burst " + strconv.FormatInt(l.Burst, 10) + ")"
	}
	if l.Update == "atomic" {
		a = "atomic " + a
	}
	return a
}

// KeyedBy names the key as the limiter sees it, for people: "token and
// IP", "IP" or "token".
func (l LimiterRef) KeyedBy() string {
	switch l.Key {
	case "ip":
		return "IP"
	case "token":
		return "token"
	}
	return "token and IP"
}

// Totals counts requests by what the limiter answered.
type Totals struct {
	Requests int64 `json:"requests"`
	Allowed  int64 `json:"allowed"`
	Denied   int64 `json:"denied"`
	// Errors are requests that got no decision (live: a status that is
	// neither 2xx nor a denial status, or a transport error).
	Errors int64 `json:"errors"`
	// FailOpen and FailClosed are decisions the error policy made because
	// the store failed; they are included in Allowed and Denied.
	FailOpen   int64 `json:"fail_open"`
	FailClosed int64 `json:"fail_closed"`
	// SimulatedSeconds is the time covered, per trial (virtual or real).
	SimulatedSeconds float64 `json:"seconds"`
}

// Overshoot describes allowed requests per limiter key and window, over
// every key-window of every trial.
type Overshoot struct {
	// KeyWindows is how many (key, window) pairs saw at least one request.
	KeyWindows int64 `json:"key_windows"`
	// OverLimit is how many of them allowed more than the limit, and
	// OverLimitShare that as a fraction of KeyWindows.
	OverLimit      int64   `json:"over_limit"`
	OverLimitShare float64 `json:"over_limit_share"`
	// Excess is the sum over key-windows of max(0, allowed - limit).
	Excess int64 `json:"excess"`
	// Reference holds the run against an exact limiter on the same
	// requests: what the store's consistency cost.
	Reference Reference `json:"reference"`
	// Ratio is allowed / limit across key-windows (all trials pooled),
	// derived from Allowed.
	Ratio Stats `json:"ratio"`
	// Allowed is the allowed count across key-windows (all trials
	// pooled): the counts themselves, from which Ratio is derived.
	Allowed CountStats `json:"allowed"`
	// MaxAllowed is the most any key-window allowed.
	MaxAllowed int64 `json:"max_allowed"`
	// MaxInInterval is the most one key allowed in any interval one window
	// long (not aligned to windows): the fixed window's boundary 2x.
	MaxInInterval      int64   `json:"max_in_interval"`
	MaxInIntervalRatio float64 `json:"max_in_interval_ratio"`
	// LargestReadGroup is the most allowed requests of one key-window that
	// read the same count (all trials pooled): the race itself, how many
	// got through on one read. 0 when unknown (a target that does not
	// state what remains).
	LargestReadGroup int64 `json:"largest_read_group,omitempty"`
	// PerTrial describes, across trials, each trial's max and p99 ratio
	// and its total excess, with 95% intervals.
	PerTrial PerTrial `json:"per_trial"`
	// Histogram counts key-windows by allowed count, ascending.
	Histogram []Bin `json:"histogram"`
}

// Stats summarises a distribution.
type Stats struct {
	N    int64   `json:"n"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
}

// CountStats summarises a distribution of counts: the quantiles and the
// max are counts some key-window had, kept as integers.
type CountStats struct {
	N    int64   `json:"n"`
	Max  int64   `json:"max"`
	Mean float64 `json:"mean"`
	P50  int64   `json:"p50"`
	P95  int64   `json:"p95"`
	P99  int64   `json:"p99"`
}

// P95Count is the 95% nearest-rank quantile of per-trial counts, or 0 for
// none (as Quantile, on integers).
func P95Count(v []int64) int64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return Quantile(s, 0.95)
}

// Ratio is the distribution as multiples of limit.
func (c CountStats) Ratio(limit int64) Stats {
	if c.N == 0 || limit <= 0 {
		return Stats{N: c.N}
	}
	l := float64(limit)
	return Stats{N: c.N, Max: float64(c.Max) / l, Mean: c.Mean / l, P50: float64(c.P50) / l, P95: float64(c.P95) / l, P99: float64(c.P99) / l}
}

// Interval is a statistic's spread across trials: its mean with a 95%
// confidence interval (normal approximation over trials), and the central
// 95% of trials (2.5th to 97.5th percentile), where a single trial, or a
// single live run, is expected to fall.
type Interval struct {
	Mean   float64 `json:"mean"`
	MeanLo float64 `json:"mean_lo"`
	MeanHi float64 `json:"mean_hi"`
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
	// P95 is the value 95% of trials stay at or under.
	P95 float64 `json:"p95"`
}

// PerTrial is the spread of per-trial statistics across trials.
type PerTrial struct {
	MaxRatio Interval `json:"max_ratio"`
	P99Ratio Interval `json:"p99_ratio"`
	Excess   Interval `json:"excess"`
	// MaxRatios lists each trial's max ratio in trial order, for the CDF.
	MaxRatios []float64 `json:"max_ratios"`
	// MaxAllowed lists each trial's most allowed in one key-window, the
	// counts MaxRatios are derived from, and MaxAllowedP95 the count 95%
	// of trials stay at or under (nearest rank; MaxRatio.P95 is its
	// ratio).
	MaxAllowed    []int64 `json:"max_allowed_counts,omitempty"`
	MaxAllowedP95 int64   `json:"max_allowed_p95,omitempty"`
	// ReadGroups lists each trial's largest read group (see
	// Overshoot.LargestReadGroup) in trial order, when known.
	ReadGroups []int64 `json:"largest_read_groups,omitempty"`
	// Misfit is a calibrated scenario's calibrated.misfit, when it has
	// one: Compare widens the band of the max ratio by it (the low end
	// times the first, the high end times the second).
	Misfit []float64 `json:"misfit,omitempty"`
}

// Bin is one bar of the histogram: KeyWindows key-windows allowed Allowed.
type Bin struct {
	Allowed    int64 `json:"allowed"`
	KeyWindows int64 `json:"key_windows"`
}

// Population is one traffic population's outcome.
type Population struct {
	Name       string `json:"name"`
	Legitimate bool   `json:"legitimate"`
	Requests   int64  `json:"requests"`
	Allowed    int64  `json:"allowed"`
	Denied     int64  `json:"denied"`
	Errors     int64  `json:"errors"`
	// FalseDenials are legitimate requests denied that an exact limiter
	// (linearizable, no lag, the same algorithm) would have allowed on
	// the same requests: a correct denial is never one. Several clients
	// can share a key behind a NAT or a shared token.
	FalseDenials int64 `json:"false_denials"`
	// FalselyDeniedClients counts the population's clients falsely denied
	// at least once (in each trial, summed over trials).
	FalselyDeniedClients int64 `json:"falsely_denied_clients"`
	// Overshoot is the population's key-windows (a key-window belongs to
	// its first request's population), for gates per population.
	Overshoot *PopulationOvershoot `json:"overshoot,omitempty"`
}

// PopulationOvershoot is Overshoot restricted to one population's
// key-windows.
type PopulationOvershoot struct {
	KeyWindows int64      `json:"key_windows"`
	OverLimit  int64      `json:"over_limit"`
	Ratio      Stats      `json:"ratio"`
	Allowed    CountStats `json:"allowed"`
	Histogram  []Bin      `json:"histogram"`
}

// KVWork is what the store did, and how stale what it served was.
type KVWork struct {
	// Observed is false when the store was out of sight (attack -url): the
	// counts below are then zero because nothing was measured, not because
	// nothing happened. LostUpdates and staleness are only observed by the
	// simulator, the eventual store and Redis (a limiter that stores
	// counts; stale reads from replicas).
	Observed         bool  `json:"observed"`
	Reads            int64 `json:"reads"`
	Writes           int64 `json:"writes"`
	ReadErrors       int64 `json:"read_errors"`
	WriteErrors      int64 `json:"write_errors"`
	WriteRateLimited int64 `json:"write_rate_limited"`
	QuotaErrors      int64 `json:"quota_errors"`
	// LostUpdates are increments the store acknowledged that are not in
	// the count it ends with: per key and window (one life of a key), the
	// writes acknowledged less the count the key ends its life with at the
	// store's authoritative copy (KV's central store, Redis's primary),
	// summed, for a limiter that stores counts (the fixed and sliding
	// windows, read-then-write or atomic; 0 for a token bucket's or GCRA's
	// times). It holds two writers that read the same count, a stale write
	// that took the count back, and a failover's or partition's losses
	// alike; the race itself is overshoot.largest_read_group.
	LostUpdates int64 `json:"lost_updates"`
	// StaleReads are reads that returned something older than the latest
	// committed write; Staleness is how long what they returned had been
	// outdated (since the first write that replaced it), in milliseconds.
	StaleReads  int64 `json:"stale_reads"`
	StalenessMs Stats `json:"staleness_ms"`
	// Visibility is P(a read sees the latest write) against time since that
	// write (PBS t-visibility).
	Visibility []VisibilityPoint `json:"visibility,omitempty"`
}

// VisibilityPoint is one bin of t-visibility: of Reads reads made between
// SinceMs and the next bin's start after the latest write, Fresh saw it.
type VisibilityPoint struct {
	SinceMs float64 `json:"since_ms"`
	// UntilMs is the bin's end; 0 for the last, open-ended bin.
	UntilMs float64 `json:"until_ms"`
	Reads   int64   `json:"reads"`
	Fresh   int64   `json:"fresh"`
	P       float64 `json:"p"`
}

// Cost is what the run's store work and Worker requests cost at published
// prices (paid plan, beyond the included amounts; docs/facts.md), and how
// soon the free plan's daily quotas run out.
type Cost struct {
	// Store is the store priced (the summary's limiter.store).
	Store string `json:"store"`
	// Reads and writes the store accepted (billed), per million requests;
	// a Durable Object's or the Rate Limiting binding's reads are its
	// requests (one per check).
	ReadsPerMillionRequests  float64 `json:"reads_per_million_requests"`
	WritesPerMillionRequests float64 `json:"writes_per_million_requests"`
	// USDPerMillionRequests is the whole: the store's part and the Workers
	// request fee's.
	USDPerMillionRequests        float64 `json:"usd_per_million_requests"`
	StoreUSDPerMillionRequests   float64 `json:"store_usd_per_million_requests"`
	WorkersUSDPerMillionRequests float64 `json:"workers_usd_per_million_requests"`
	// Basis says in words which prices were applied.
	Basis string `json:"basis,omitempty"`
	// Reference is set for the memory store, priced as the KV binding it
	// stands for: a reference, not a store one can ship.
	Reference bool `json:"reference"`
	// FreeWritesExhaustedAfterSecs is how long after 00:00 UTC the free
	// plan's 1,000 writes a day run out on a steady day at this run's
	// rates, counting the writes that use the quota (accepted, or refused
	// by the quota itself; a 429 uses none): the run's writes per
	// key-window, for each of its keys in every window of the day. 0 when
	// they last the day. Likewise for the 100,000 reads, at the run's rate
	// of reads. For a Durable Object, FreeReadsExhaustedAfterSecs is for
	// its 100,000 requests a day; for the Rate Limiting binding, for the
	// Worker's 100,000 requests a day (see FreePlanSentence).
	FreeWritesExhaustedAfterSecs float64 `json:"free_writes_exhausted_after_seconds"`
	FreeReadsExhaustedAfterSecs  float64 `json:"free_reads_exhausted_after_seconds"`
	// NotPriced, when set, says why the run's store work has no price.
	// Every store is priced now; a summary written before that may still
	// carry it, and then the dollars and the free plan's times are 0.
	NotPriced string `json:"not_priced,omitempty"`
}

// Priced reports whether c prices the run's store work (see NotPriced).
func (c Cost) Priced() bool { return c.NotPriced == "" }

// KeyTimeline is one key-window's allowed requests over time.
type KeyTimeline struct {
	Trial   int    `json:"trial"`
	Key     string `json:"key"`
	Window  int64  `json:"window"`
	Allowed int64  `json:"allowed"`
	// Population is the population of the key-window's first request.
	Population string `json:"population,omitempty"`
	// Offered is how many requests the limiter decided in the key-window,
	// and Reference how many of them an exact limiter would have allowed;
	// SentOverSecs is the time from the first to the last of them.
	Offered      int64   `json:"offered"`
	Reference    int64   `json:"reference"`
	SentOverSecs float64 `json:"sent_over_seconds"`
	// AllowedAtSecs are the times of allowed requests, in seconds from the
	// run's start (at most MaxTimelinePoints).
	AllowedAtSecs []float64 `json:"allowed_at_seconds"`
	// WindowStartSecs is when the window began, on the same scale.
	WindowStartSecs float64 `json:"window_start_seconds"`
	// ReadGroups counts the allowed requests by the count they read,
	// count 0 first, when known: a race shows as many on one count. It ends
	// at the highest count any of them read (counts past it are 0).
	ReadGroups []int64 `json:"read_groups,omitempty"`
}

// Live is what only a live run measures.
type Live struct {
	URL          string  `json:"url"`
	Target       string  `json:"target"` // built-in store or "url"
	OfferedRate  float64 `json:"offered_rate"`
	AchievedRate float64 `json:"achieved_rate"`
	DurationSecs float64 `json:"duration_seconds"`
	// WarmupRequests is how many requests opened the run's connections
	// before it started (live.warmup), and warmed its target up for
	// SoakSeconds, not counted in it.
	WarmupRequests int64 `json:"warmup_requests,omitempty"`
	// SoakSeconds is how long the closed loops kept sending warm-up
	// requests before the run started (the built-in target on Redis,
	// deciding them on its store's servers without counting them).
	SoakSeconds float64 `json:"soak_seconds,omitempty"`
	LatencyMs   Stats   `json:"latency_ms"`
	// ServiceMs is the target's own time per request, as the built-in
	// target states it (X-Overshoot-Service-Us): the latency without the
	// HTTP hop between attacker and target, which the model's latency
	// stands for. nil for a target that does not state it.
	ServiceMs *Stats `json:"service_ms,omitempty"`
	// StoreMs is what the target's store's modeled latencies stood for
	// per request (X-Overshoot-Store-Us), the part of ServiceMs the
	// model's latency stands for, and OverheadMs the rest: the target's
	// own time (CPU, late timers, waits for a core), which the model has
	// no part for. nil unless the store models its latencies (eventual).
	StoreMs    *Stats `json:"store_ms,omitempty"`
	OverheadMs *Stats `json:"overhead_ms,omitempty"`
	// StoreHostCores is how many cores the host that ran attack has, when
	// the built-in target's store servers ran on it too (-redis-harness,
	// or a Redis on loopback) and shared them with the attacker and the
	// target: what the model's store.redis.threads stands for. 0 when the
	// store ran elsewhere, or was not a server.
	StoreHostCores int `json:"store_host_cores,omitempty"`
	// LatencyNote says how latency was measured and what it hides.
	LatencyNote string           `json:"latency_note"`
	Status      map[string]int64 `json:"status"`
	// Ambiguous are responses too close to a window boundary to attribute
	// to a window; they are counted here and in no key-window.
	Ambiguous   int64  `json:"ambiguous"`
	ResultsFile string `json:"results_file"`
}

// Point is one point of a sweep: the parameter values and the summary there.
type Point struct {
	Params  []Param  `json:"params"`
	Summary *Summary `json:"summary"`
}

// Param is one swept parameter's value at a point.
type Param struct {
	Path  string `json:"path"`
	Value string `json:"value"`
}

// LivePoint is one interval of a live run: the rates, latency and statuses
// the report draws over time. It is not part of summary.json.
type LivePoint struct {
	// AtSecs is the interval's start in seconds from the attack's start.
	AtSecs float64
	// OfferedRate and AchievedRate are requests per second sent and
	// answered in the interval.
	OfferedRate  float64
	AchievedRate float64
	// LatencyMs are the latency percentiles of responses in the interval.
	LatencyP50Ms float64
	LatencyP95Ms float64
	LatencyP99Ms float64
	// Status counts responses in the interval by status code ("200",
	// "429", "error" for transport errors).
	Status map[string]int64
}

// Worst is a sweep's worst point, so that a gate on the top level of
// summary.json reads real numbers: Metric is the scenario's headline metric,
// Params and Value the point where it was highest and its value there,
// Values every measured metric at that point, and Highest each measured
// metric's highest value over all points (wherever it was).
type Worst struct {
	Metric  string             `json:"metric"`
	Value   float64            `json:"value"`
	Params  []Param            `json:"params"`
	Values  map[string]float64 `json:"values"`
	Highest map[string]float64 `json:"highest"`
}

// Sensitivity is the headline re-predicted with one assumption of the
// model at one of its plausible alternatives (simulate, single runs): how
// far the answer moves when the assumption is wrong.
type Sensitivity struct {
	// Path and Value are the assumption's field and the alternative, as
	// -set writes them; What says what the default assumes. The first
	// entry has no Path: it is the defaults with the same number of trials
	// as the alternatives, the reference they are compared with.
	Path  string `json:"path"`
	Value string `json:"value"`
	What  string `json:"what"`
	// Metric is the headline metric, Headline its value with the
	// alternative (Measured false when the run did not measure it), over
	// Trials trials.
	Metric   string  `json:"metric"`
	Headline float64 `json:"headline"`
	Measured bool    `json:"measured"`
	Trials   int     `json:"trials"`
	// Note is "saturated" when the limiter denied nothing with the
	// alternative, "capped" when the worst key-window got all it sent
	// (SensitivityNote): the value is then the offered load's, and its not
	// moving says nothing about the assumption.
	Note string `json:"note,omitempty"`
}

// TrialMaxP95 is the most allowed in one key-window that 95% of trials
// stay at or under: the count itself, or for a summary written before
// counts were kept, its ratio's multiple of limit, rounded.
func (p PerTrial) TrialMaxP95(limit int64) int64 {
	if len(p.MaxAllowed) > 0 {
		return p.MaxAllowedP95
	}
	return int64(math.Round(p.MaxRatio.P95 * float64(limit)))
}
