package eventual

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/model"
	"github.com/overshoot-dev/overshoot/internal/plan"
)

// Options configure a Store.
type Options struct {
	// KV is the Workers KV model's parameters, from a live plan
	// (plan.CompileLive): its latencies and lags already divided by the
	// run's time scale.
	KV plan.KVParams
	// Locations are the plan's location names; a request's location name
	// picks one (unknown or empty: the first).
	Locations []string
	// Seed seeds the model's random draws (latencies, lags, cache domains).
	Seed uint64
	// Start is the wall-clock instant of the model's time 0; zero means now.
	Start time.Time
	// Now and Sleep, when set, stand for the wall clock and kv.Sleep: a
	// test drives the store on a virtual clock with them (Sleep moving
	// Now on). nil means the real ones.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// Counts says the limiter's values are counts (limiter.Algorithm.Counts):
	// the store then counts lost updates, the increments acknowledged
	// that a key's count lacks when its life ends (AddTo settles the
	// lives still running).
	Counts bool
}

// Store is the live eventual store: a kv.Store over internal/model's KV state
// machine on the wall clock, following the model's package doc: one mutex
// around every model call, now = time since Start, the latencies the model
// returns really slept outside the mutex, and every accepted write committed
// after its latency. It is safe for concurrent use.
type Store struct {
	mu    sync.Mutex
	m     *model.KV
	start time.Time
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error
	locs  map[string]int
	ctr   *measure.KVCounters
	// pending counts writes committing in the background after their
	// caller gave up, so Close can wait for them.
	pending sync.WaitGroup
}

// New builds the store, or says which parameter cannot be used.
func New(o Options) (*Store, error) {
	if len(o.Locations) == 0 {
		o.Locations = []string{""}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = kv.Sleep
	}
	if o.Start.IsZero() {
		o.Start = o.Now()
	}
	locs := make(map[string]int, len(o.Locations))
	for i, l := range o.Locations {
		locs[l] = i
	}
	ctr := measure.NewKVCounters()
	m, err := model.NewKV(model.KVConfig{Params: o.KV, Locations: len(o.Locations), Start: o.Start,
		Rand: model.TrialRand(o.Seed, 0), Counters: ctr})
	if err != nil {
		return nil, fmt.Errorf("eventual store: %w", err)
	}
	if o.Counts {
		m.CountIncrements()
	}
	return &Store{m: m, start: o.Start, now: o.Now, sleep: o.Sleep, locs: locs, ctr: ctr}, nil
}

// loc returns the model's index of the request's location.
func (s *Store) loc(ctx context.Context) int {
	return s.locs[kv.LocationFrom(ctx)] // unknown or empty: 0, the first
}

// elapsed is the model's now: the time since Start.
func (s *Store) elapsed() time.Duration { return s.now().Sub(s.start) }

// wait sleeps d or until ctx ends, reporting whether it waited it all.
func (s *Store) wait(ctx context.Context, d time.Duration) bool {
	return d <= 0 || s.sleep(ctx, d) == nil
}

// Get reads key as a Worker at the request's location would: from that
// location's cache while its entry lives, else from the central store. The
// read takes effect at once; its latency is then slept.
func (s *Store) Get(ctx context.Context, key string) (string, bool, error) {
	req := requestFrom(ctx)
	s.mu.Lock()
	r := s.m.Read(s.elapsed(), s.loc(ctx), req.domainOf(), key)
	s.mu.Unlock()
	req.noteRead(key, r.Version)
	req.noteDomain(r.Domain)
	req.noteLatency(r.Latency)
	if !s.wait(ctx, r.Latency) {
		return "", false, kv.WrapUnavailable("get", key, ctx.Err())
	}
	return r.Value, r.Found, r.Err
}

// Put submits a write, sleeps its latency and commits it. When ctx ends
// first, the write still commits when its latency is over (it was sent),
// and Put returns the context's error.
func (s *Store) Put(ctx context.Context, key, value string, ttl time.Duration) error {
	req := requestFrom(ctx)
	version, ok := req.readOf(key)
	if !ok {
		version = model.UnknownVersion
	}
	s.mu.Lock()
	w, lat, err := s.m.Write(s.elapsed(), s.loc(ctx), req.domainOf(), key, value, ttl, version)
	s.mu.Unlock()
	req.noteLatency(lat)
	if err != nil {
		s.wait(ctx, lat)
		return err
	}
	commit := func() {
		s.mu.Lock()
		s.m.Commit(s.elapsed(), w)
		s.mu.Unlock()
	}
	deadline := time.Now().Add(lat)
	if !s.wait(ctx, lat) {
		s.pending.Add(1)
		go func() {
			defer s.pending.Done()
			time.Sleep(time.Until(deadline))
			commit()
		}()
		return kv.WrapUnavailable("put", key, ctx.Err())
	}
	commit()
	return nil
}

// StoreTime returns the sum of the latencies the model gave the operations
// of the request ctx carries (kv.WithLocation), and true; false when ctx
// carries none. The built-in target states it beside its service time:
// the rest is its own (CPU, timers, scheduling), which the model has no
// part for.
func (s *Store) StoreTime(ctx context.Context) (time.Duration, bool) {
	r := requestFrom(ctx)
	if r == nil {
		return 0, false
	}
	return r.slept, true
}

// Wait waits for writes still committing after their callers gave up.
func (s *Store) Wait() { s.pending.Wait() }

// AddTo adds the store's KV work so far (reads, writes, errors, lost
// updates, staleness, visibility) to k. It settles the lost updates of
// every key first, as the run's end: call it once, when the run is over.
func (s *Store) AddTo(k *measure.KVCounters) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m.Settle(s.elapsed())
	k.Add(*s.ctr)
}
