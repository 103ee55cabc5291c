// Package plan compiles a validated scenario, once, into what runs: the
// limiter's configuration, the store with its parameters, the traffic
// populations (who sends which request, where it arrives, when), the one
// latency sampler and the one time-scale rule. Both drivers run a Plan:
// the model in virtual time (internal/model), the live runner on the wall
// clock (internal/attack). The package is pure: no clock, no goroutines,
// no I/O.
//
// Data flows one way: scenario (parse, defaults, validation) -> plan ->
// driver -> measure -> report.
package plan

import (
	"time"

	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// Plan is a scenario compiled into what runs. It is read-only once
// compiled and shared by every trial or live worker.
type Plan struct {
	// Limiter is the limiter's configuration, with a live run's window
	// applied (CompileLive).
	Limiter limiter.Config
	// Token is where requests carry their anonymous token; Key what the
	// limiter keys a caller on.
	Token limiter.TokenSource
	Key   limiter.KeyBy
	// Store is the store and every kind's parameters.
	Store Store
	// Server is the serving side in front of the store (mode none: none).
	Server ServerParams
	// Faults are the store's fault schedule (scenario faults), in order of
	// their start; empty: none.
	Faults []Fault
	// Locations are the points of presence; populations and store
	// parameters refer to them by index.
	Locations []string
	// Populations are the traffic; Clients the number of clients in all.
	Populations []Population
	Clients     int
	// Start is the wall-clock instant of the run's time 0 in virtual time
	// (it places window boundaries and the quota's 00:00 UTC reset).
	Start time.Time
	// Duration is how long the run lasts: the scenario's duration, or its
	// live.duration for a live run.
	Duration time.Duration
	// Seed and Trials are the scenario's (flags may override them).
	Seed   uint64
	Trials int
	// Live is set for a plan compiled for a live run: TimeScale is then
	// the factor every store latency was divided by, and MaxRequests the
	// run's request bound (0: none).
	Live        bool
	TimeScale   float64
	MaxRequests int64
	// Warmup says whether a live run opens its closed loops' connections
	// before it starts (live.warmup).
	Warmup bool

	sc *scenario.Scenario
}

// Compile compiles sc as the simulator runs it: its own window, duration
// and latencies. The scenario is validated first (scenario.Validate, the
// one place input is checked), so an error names the field at fault.
func Compile(sc *scenario.Scenario) (*Plan, error) {
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	return compile(sc)
}

// compile compiles a validated scenario.
func compile(sc *scenario.Scenario) (*Plan, error) {
	lim, err := limiter.New(limiter.Config{Name: sc.Limiter.Name, Algorithm: limiter.Algorithm(sc.Limiter.Algorithm),
		Limit: sc.Limiter.Limit, Window: sc.Limiter.Window.D(), Policy: limiter.Policy(sc.Limiter.ErrorPolicy),
		Update: limiter.Update(sc.Limiter.Update), Burst: sc.Limiter.Burst})
	if err != nil {
		return nil, err
	}
	p := &Plan{Limiter: lim.Config(), Token: limiter.TokenSource{From: sc.Limiter.Token.From, Name: sc.Limiter.Token.Name},
		Key: limiter.KeyBy(sc.Limiter.Key), Start: sc.Start, Duration: sc.Duration.D(), Seed: sc.Seed, Trials: sc.Trials,
		TimeScale: 1, sc: sc}
	if p.Token == (limiter.TokenSource{}) {
		p.Token = limiter.DefaultTokenSource
	}
	for _, l := range sc.Locations {
		p.Locations = append(p.Locations, l.Name)
	}
	if p.Store, err = compileStore(sc); err != nil {
		return nil, err
	}
	p.Faults = compileFaults(sc.Faults)
	if p.Server, err = compileServer(sc); err != nil {
		return nil, err
	}
	if p.Populations, p.Clients, err = compilePopulations(sc, p.Duration); err != nil {
		return nil, err
	}
	return p, nil
}

// CompileLive compiles sc as a live run plays it, and as a prediction of
// that run must: the live window (live.window, when set) instead of the
// limiter's, the live duration, and every store latency and lag, of every
// store kind, divided by live.time_scale. This is the one time-scale rule:
// the built-in target's stores sleep exactly the latencies that
// `simulate -compare` predicts with. The scenario is validated as written;
// a population that starts after the live run ends sends nothing.
func CompileLive(sc *scenario.Scenario) (*Plan, error) {
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	live := *sc
	if w := sc.Live.Window; w > 0 {
		live.Limiter.Window = w
	}
	if d := sc.Live.Duration; d > 0 {
		live.Duration = d
	}
	p, err := compile(&live)
	if err != nil {
		return nil, err
	}
	p.sc = sc
	p.Live, p.TimeScale, p.MaxRequests, p.Warmup = true, sc.Live.TimeScale, sc.Live.MaxRequests, sc.Live.Warmup != nil && *sc.Live.Warmup
	if !(p.TimeScale > 0) {
		p.TimeScale = 1
	}
	p.Store = p.Store.scaled(p.TimeScale)
	return p, nil
}

// Scenario returns the scenario the plan was compiled from, for what only
// people read (names, the question, the source file).
func (p *Plan) Scenario() *scenario.Scenario { return p.sc }

// ScenarioRef identifies scenario sc in a summary: its name, file, hash,
// the hash of the file as written (before overrides), question and
// overrides. traffic describes its populations for people (the
// report package words it).
func ScenarioRef(sc *scenario.Scenario, traffic string) measure.ScenarioRef {
	return measure.ScenarioRef{Name: sc.Name, File: sc.Source(), Hash: sc.Hash(), BaseHash: sc.BaseHash(), Question: sc.Question,
		Params: sc.Overrides(), Traffic: traffic, Headline: sc.Report.Headline}
}

// LimiterRef describes the limiter for a summary, with store naming what it
// ran on: the model's store kind, or the live store's name.
func (p *Plan) LimiterRef(store string) measure.LimiterRef {
	return LimiterRef(p.Limiter, p.Key, store)
}

// LimiterRef describes limiter configuration c, keyed by key, on store for
// a summary.
func LimiterRef(c limiter.Config, key limiter.KeyBy, store string) measure.LimiterRef {
	if key == "" {
		key = limiter.KeyTokenIP
	}
	r := measure.LimiterRef{Algorithm: string(c.Algorithm), Limit: c.Limit, Window: scenario.Duration(c.Window).String(),
		WindowSecs: c.Window.Seconds(), Store: store, ErrorPolicy: string(c.Policy), Key: string(key)}
	if c.Update == limiter.Atomic {
		r.Update = string(c.Update)
	}
	if c.Algorithm == limiter.GCRA && c.Burst != 0 && c.Burst != c.Limit {
		r.Burst = c.Burst
	}
	return r
}

// MeasurePopulations returns the populations as the accounting names them.
func (p *Plan) MeasurePopulations() []measure.Population {
	out := make([]measure.Population, len(p.Populations))
	for i, q := range p.Populations {
		out[i] = measure.Population{Name: q.Name, Legitimate: q.Legitimate}
	}
	return out
}

// WithStore returns a copy of p that runs on store kind k: a prediction of
// a live run on another store than the scenario names.
func (p *Plan) WithStore(k StoreKind) *Plan {
	q := *p
	q.Store.Kind = k
	return &q
}
