// Package attack is overshoot's live driver: it turns a plan's populations
// (internal/plan: the same identities, locations and arrival rules the
// simulator runs) into vegeta attacks that run together against a target
// (the built-in one over loopback, or any URL), streams every result into
// one vegeta results file and into the same accounting the simulator uses
// (internal/measure), and returns the same summary.json, with mode "attack".
// The attack command (internal/attackcmd) is a thin layer over Run.
//
// Populations become attacks as follows:
//   - closed_loop: one attack per client, each with C workers and no rate
//     limit (vegeta.Rate{Freq: 0}, workers = max workers = C): each client has
//     C requests in flight, never more, and with think time waits for one of
//     its own responses and then the think time before its next request;
//   - open_loop: a constant rate (vegeta's ConstantPacer), poissonPacer arrivals (a
//     seeded pacer of this package) or a linear ramp (vegeta's LinearPacer, then
//     constant), at clients x the per-client rate;
//   - burst: clients x size requests at once at `at` and every `every`.
//
// Each request carries its client's identity: the token header (or cookie),
// X-Forwarded-For or CF-Connecting-IP, X-Overshoot-Location, and
// X-Overshoot-Client (a run-local client number, for false denials).
//
// Each response is a decision by its status: 2xx allowed, the
// Options.DenyStatus statuses (429) denied, another status denied when its
// rate-limit fields say nothing remains, else an error. Those fields are
// read in every dialect servers send (ReadLimits: the IETF drafts 6 to 8,
// X-RateLimit-*, Retry-After; docs/attack.md).
package attack

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/redact"
)

// DefaultDuration is how long a live run lasts when neither the scenario's
// live.duration nor a flag says.
const DefaultDuration = 10 * time.Second

// DefaultSkew is the clock margin within which a response that carries no
// window header is too close to a window boundary to attribute.
const DefaultSkew = 50 * time.Millisecond

// Options say what to attack and how.
type Options struct {
	// Plan is what to run, compiled for a live run (plan.CompileLive): the
	// populations, their identities and arrivals, the run's duration and
	// request bound. It is read, not changed.
	Plan *plan.Plan
	// URL is the target's URL; every request is a GET of it.
	URL string
	// Limit and Window are what overshoot is counted against; 0 means the
	// plan's limiter (a target may announce others).
	Limit  int64
	Window time.Duration
	// Duration bounds the run (0: the plan's, else DefaultDuration);
	// MaxRequests bounds its requests (0: the plan's, 0 there: no bound).
	Duration    time.Duration
	MaxRequests int64
	// Seed is the traffic's: a live run sends the requests of the model's
	// trial 0 of this seed (plan.NewStream), its locations, think times
	// and Poisson arrivals.
	Seed uint64
	// RunID prefixes every token sent, so that runs against a shared store
	// (a real Worker) do not count each other's requests; "" sends the
	// simulator's tokens as they are.
	RunID string
	// Trial, when set, receives the run's accounting before it is
	// summarised, so that repeated runs can be pooled exactly (attack
	// -repeat).
	Trial *measure.Trial
	// Start, when set, is the wall-clock instant the run starts at: Run
	// waits for it (the agreed start of a sharded run's shards). Zero
	// starts at once.
	Start time.Time
	// StartWhen, when set and Start is zero, is asked after the warm-up
	// when the run should start; zero starts at once. attack gives one that
	// fits each run in one window, so that it sees whole key-windows.
	StartWhen func() time.Time
	// Shard, when its Count is above 1, is the part of the run this
	// process sends (attack -shard I/N): of every open loop's and burst's
	// requests those numbered Index mod Count, of every closed-loop
	// client's in-flight slots those numbered so, and that share of
	// MaxRequests. The results then keep the runner's internal headers, so
	// that Merge can account for the shards' results as one run.
	Shard plan.Shard
	// IPHeader is the header that carries the client address:
	// X-Forwarded-For (default) or CF-Connecting-IP.
	IPHeader string
	// Skew is the clock margin for window attribution without the target's
	// window header (default DefaultSkew).
	Skew time.Duration
	// Timeout bounds each request (default 10 s).
	Timeout time.Duration
	// Soak, when above 0 and the plan warms up (live.warmup), keeps the
	// closed loops sending warm-up requests for that long after their
	// connections are open and before the run starts (soak), so that it
	// starts on a target and store that have served for a while. attack
	// sets it for the built-in target on Redis.
	Soak time.Duration
	// DenyStatus is the statuses that are denials besides a rate-limit
	// field saying nothing remains (none: DefaultDenyStatus, 429 alone);
	// each is 100-599 and not 2xx.
	DenyStatus []int
	// Results receives every result, vegeta's gob encoding, one encoder for
	// the whole run; nil discards them. ResultsFile is its name for the
	// summary.
	Results     io.Writer
	ResultsFile string
	// KV, when set, adds the store's counters to the trial before it is
	// summarised (the built-in target's CountingStore.AddTo). When nil the
	// store is out of sight (any URL): the summary's kv.observed is false.
	KV func(*measure.KVCounters)
	// Summary holds the identifying fields (scenario, seed, limiter,
	// target); Run fills in the rest.
	Summary measure.Summary
	// Progress, when set, is called about once a second with the results so
	// far.
	Progress func(results int64, elapsed time.Duration)
	// Series, when set, receives the run over time (rates, latency,
	// statuses per interval) for the report's figures.
	Series *[]measure.LivePoint
	// Samples, when set, receives a sample of the run's responses (up to
	// 2,000 of each decision, uniform over the run) with their latency,
	// for the report's latency over time.
	Samples *[]measure.LatencySample
}

// normalize checks o and fills in its defaults; it returns the run's
// duration and request bound (0: none).
func (o Options) normalize() (Options, time.Duration, int64, error) {
	pl := o.Plan
	if pl == nil {
		return o, 0, 0, fmt.Errorf("attack: no plan given")
	}
	if o.Limit <= 0 {
		o.Limit = pl.Limiter.Limit
	}
	if o.Window <= 0 {
		o.Window = pl.Limiter.Window
	}
	if o.Window%time.Millisecond != 0 {
		return o, 0, 0, fmt.Errorf("attack: window %v must be in whole milliseconds", o.Window)
	}
	if err := checkDenyStatus(o.DenyStatus); err != nil {
		return o, 0, 0, err
	}
	if len(pl.Populations) == 0 {
		return o, 0, 0, fmt.Errorf("attack: the plan has no traffic")
	}
	dur := o.Duration
	if dur <= 0 {
		dur = pl.Duration
	}
	if dur <= 0 {
		dur = DefaultDuration
	}
	maxReq := o.MaxRequests
	if maxReq <= 0 {
		maxReq = pl.MaxRequests
	}
	if o.Shard.Count < 1 {
		o.Shard = plan.Shard{Count: 1}
	}
	if o.Shard.Index < 0 || o.Shard.Index >= o.Shard.Count {
		return o, 0, 0, fmt.Errorf("attack: shard %d of %d does not exist", o.Shard.Index, o.Shard.Count)
	}
	if maxReq > 0 {
		if maxReq = o.Shard.Share(maxReq); maxReq == 0 {
			return o, 0, 0, fmt.Errorf("attack: %d requests over %d shards leave shard %d none: raise -max-requests", o.MaxRequests, o.Shard.Count, o.Shard.Index)
		}
	}
	h, err := IPHeader(o.IPHeader)
	if err != nil {
		return o, 0, 0, err
	}
	o.IPHeader = h
	if o.Skew <= 0 {
		o.Skew = DefaultSkew
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	return o, dur, maxReq, nil
}

// IPHeader returns the canonical form of the client address header h
// ("" means X-Forwarded-For), or an error when it is not one attack sends.
func IPHeader(h string) (string, error) {
	if h == "" {
		h = "X-Forwarded-For"
	}
	c := http.CanonicalHeaderKey(h)
	if c != "X-Forwarded-For" && c != "Cf-Connecting-Ip" {
		return "", fmt.Errorf("-ip-header %q is not supported: use X-Forwarded-For or CF-Connecting-IP", h)
	}
	return c, nil
}

// Validate checks everything Run would reject before it sends anything
// (the options and the client address header; the plan was validated when
// it was compiled), so that a command can refuse bad input before it
// creates a file or starts a server. Run checks the same again.
func Validate(o Options) error {
	_, _, _, err := o.normalize()
	return err
}

// spec is one population's attack.
type spec struct {
	name             string
	index            int
	pacer            pacer
	workers, maxWork uint64
	start, duration  time.Duration
	closed           bool
	ids              *identities
	tr               *transport
	// slots are, for a sharded closed loop, each client's in-flight slots
	// this shard runs and how its requests interleave with the other
	// shards'; nil: every client's C slots.
	slots []clientSlots
	// stoppedAt is when the attack stopped sending, from its start (ns;
	// 0: it has not): its pacer ended, the run was interrupted or the
	// request budget was spent. Requests in flight then still drain.
	stoppedAt atomic.Int64
	// active is how long the attack sent (until stoppedAt, else its
	// duration) and scheduledByActive the requests its schedule called
	// for in that time; both set when it ends.
	active            time.Duration
	scheduledByActive float64
}

// markStop notes that the attack stopped sending at elapsed from its start,
// keeping the earliest such time.
func (s *spec) markStop(elapsed time.Duration) {
	elapsed = max(elapsed, 1) // 0 means "not stopped"
	for {
		old := s.stoppedAt.Load()
		if old != 0 && old <= int64(elapsed) || s.stoppedAt.CompareAndSwap(old, int64(elapsed)) {
			return
		}
	}
}

// Run attacks o.URL with the scenario's traffic until the duration or the
// request budget is spent or ctx is cancelled (Ctrl-C), then returns the
// summary of what was measured. A cancelled run is not an error: its summary
// has Complete = false. Errors are for runs that could not start or could
// not write their results.
func Run(ctx context.Context, o Options) (measure.Summary, error) {
	o, dur, maxReq, err := o.normalize()
	if err != nil {
		return measure.Summary{}, err
	}
	pl := o.Plan
	var budget *atomic.Int64
	if maxReq > 0 {
		budget = new(atomic.Int64)
		budget.Store(maxReq)
	}
	base := newBaseTransport()
	defer base.CloseIdleConnections()
	specs, pops := buildSpecs(o, dur, budget, base)
	var warmed int64
	var soaked time.Duration
	if pl.Warmup {
		reqs := warmSlots(specs)
		n, err := warmUp(ctx, base, reqs, o.Timeout)
		if err != nil {
			return measure.Summary{}, err
		}
		warmed = int64(n)
		if o.Soak > 0 {
			warmed, soaked = warmed+soak(ctx, base, reqs, o.Soak, o.Timeout), o.Soak
		}
	}
	start := waitForStart(ctx, &o)
	rec := measure.NewRecorder(measure.Config{Limit: o.Limit, Window: o.Window, Algorithm: string(pl.Limiter.Algorithm), Start: start, Populations: pl.MeasurePopulations()})
	acct := newAccountant(rec, pops, len(specs), o.Window, o.Skew, start, o.DenyStatus)
	acct.step = seriesStep(dur)
	for _, sp := range specs {
		acct.closed[sp.index] = sp.closed
	}

	sink := newResultSink(&o, acct, start)
	var wg sync.WaitGroup
	for _, s := range specs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.run(ctx, start, sink.consume)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	sink.flush()

	if o.KV != nil {
		o.KV(&rec.KV)
	}
	ref := o.Summary
	ref.Mode, ref.Seed, ref.Complete = "attack", o.Seed, ctx.Err() == nil
	s := acct.summarize(ref, o.Limit, elapsed, offeredRequests(acct, specs), o.URL, o.ResultsFile, o.Trial)
	s.Live.WarmupRequests, s.Live.SoakSeconds = warmed, soaked.Seconds()
	// Without the store's counters (any URL) the KV work was not seen: its
	// zeros are not measurements.
	s.KV.Observed = o.KV != nil
	if o.Series != nil {
		*o.Series = liveSeries(acct, specs, elapsed)
	}
	if o.Samples != nil {
		*o.Samples = acct.latencySamples()
	}
	return s, sink.err
}

// waitForStart sets o.Start from o.StartWhen when it is unset, waits until
// o.Start (or until ctx is cancelled) and returns the run's start: o.Start,
// or now when there is none.
func waitForStart(ctx context.Context, o *Options) time.Time {
	if o.Start.IsZero() && o.StartWhen != nil {
		o.Start = o.StartWhen()
	}
	if wait := time.Until(o.Start); !o.Start.IsZero() && wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
	start := time.Now()
	if !o.Start.IsZero() {
		start = o.Start
	}
	return start
}

// resultSink is the one consumer of every population's results, under a
// mutex: one gob encoder for the whole run (gob streams cannot be
// concatenated) and one recorder. Each attack's own goroutine does the
// work as it reads its results, as the vegeta CLI's main loop does, with
// no hand-off between goroutines per result.
type resultSink struct {
	o      *Options
	acct   *accountant
	start  time.Time
	redURL string
	bw     *bufio.Writer
	enc    vegeta.Encoder

	mu   sync.Mutex
	err  error // the first error writing the results file
	tick time.Time
}

// newResultSink returns the sink of a run that started at start, writing
// its results to o.Results when it is set.
func newResultSink(o *Options, acct *accountant, start time.Time) *resultSink {
	k := &resultSink{o: o, acct: acct, start: start}
	if o.Results != nil {
		k.bw = bufio.NewWriterSize(o.Results, 256<<10)
		k.enc = vegeta.NewEncoder(k.bw)
	}
	k.tick = time.Now()
	k.redURL = redact.URL(o.URL)
	return k
}

// consume counts result r and writes it to the results file, reporting
// progress at most once a second. client is the index of the client that
// sent r, or -1 when only r's internal headers say.
func (k *resultSink) consume(r *vegeta.Result, client int) {
	o := k.o
	if r.Method == "" && r.URL == "" {
		// The fake result of a targeter that stopped the attack: the
		// budget was spent.
		return
	}
	sentKey, sentClient := internalHeaders(r, o.Shard.Count > 1)
	if client < 0 {
		client = sentClient
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.acct.add(r, sentKey, client)
	if k.redURL != o.URL {
		// The results file keeps no secret of the URL (redact).
		r.URL, r.Error = k.redURL, redact.Text(o.URL, r.Error)
	}
	if k.enc != nil && k.err == nil {
		if err := k.enc.Encode(r); err != nil {
			k.err = fmt.Errorf("writing results to %s: %w", o.ResultsFile, err)
		}
	}
	if o.Progress != nil && time.Since(k.tick) >= time.Second {
		k.tick = time.Now()
		o.Progress(k.acct.results, k.tick.Sub(k.start))
	}
}

// flush writes out the buffered results once every attack has ended,
// keeping the first error in k.err.
func (k *resultSink) flush() {
	if k.bw != nil && k.err == nil {
		if err := k.bw.Flush(); err != nil {
			k.err = fmt.Errorf("writing results to %s: %w", k.o.ResultsFile, err)
		}
	}
}

// offeredRequests is the requests the run's schedules called for: what
// closed loops sent, and what open schedules called for while active.
func offeredRequests(acct *accountant, specs []*spec) float64 {
	var offered float64
	for _, sp := range specs {
		if sp.closed {
			offered += float64(acct.perPop[sp.index])
		} else {
			offered += sp.scheduledByActive
		}
	}
	return offered
}

// summarize pools what the accountant saw into the run's summary, base
// holding its identifying fields; elapsed is the time the run covered and
// offered the requests its schedules called for in it.
func (a *accountant) summarize(base measure.Summary, limit int64, elapsed time.Duration, offered float64, url, resultsFile string, out *measure.Trial) measure.Summary {
	trial := a.rec.Finish(elapsed)
	trial.Service, trial.Store = a.service, a.store
	if out != nil {
		*out = trial
	}
	s := measure.Summarize(base, limit, []measure.Trial{trial})
	live := &measure.Live{URL: redact.URL(url), DurationSecs: elapsed.Seconds(), LatencyMs: a.lat.Stats(),
		LatencyNote: LatencyNote, Status: a.statusCounts(), Ambiguous: a.ambiguous, ResultsFile: resultsFile}
	if base.Live != nil {
		live.Target, live.StoreHostCores = base.Live.Target, base.Live.StoreHostCores
	}
	if secs := elapsed.Seconds(); secs > 0 {
		live.OfferedRate = offered / secs
		live.AchievedRate = float64(a.results) / secs
	}
	if a.service.N > 0 {
		st := a.service.Stats()
		live.ServiceMs = &st
	}
	if a.store.N > 0 {
		st, ov := a.store.Stats(), a.overhead.Stats()
		live.StoreMs, live.OverheadMs = &st, &ov
	}
	s.Live = live
	if live.LatencyMs.N > 0 {
		lat := live.LatencyMs // the same measurement, where simulate puts its own
		s.LatencyMs = &lat
	}
	return s
}

// liveSeries turns the accountant's intervals into the report's series.
// Offered requests per interval are what the open loops' pacers scheduled
// in it (until each attack stopped sending) plus what the closed loops sent.
func liveSeries(a *accountant, specs []*spec, elapsed time.Duration) []measure.LivePoint {
	out := make([]measure.LivePoint, len(a.series))
	offered := make([]float64, len(a.series))
	for i, iv := range a.series {
		offered[i] = float64(iv.closedSent)
	}
	for _, sp := range specs {
		if sp.closed || sp.active <= 0 {
			continue
		}
		// Cumulative counts at each interval's end, in increasing time
		// (a poissonPacer schedule is replayed once).
		var prev float64
		for i := range a.series {
			if time.Duration(i+1)*a.step <= sp.start {
				continue // the population has not started by this interval's end
			}
			end := min(time.Duration(i+1)*a.step-sp.start, sp.active)
			n := sp.pacer.hitsBy(end)
			offered[i] += n - prev
			prev = n
		}
	}
	for i, iv := range a.series {
		t0, t1 := time.Duration(i)*a.step, time.Duration(i+1)*a.step
		if i == len(a.series)-1 && elapsed > t0 && elapsed < t1 {
			t1 = elapsed // the last interval is cut short by the run's end
		}
		secs := (t1 - t0).Seconds()
		st := iv.lat.Stats()
		status := make(map[string]int64, len(iv.status))
		for c, n := range iv.status {
			status[statusKey(int(c))] = n
		}
		out[i] = measure.LivePoint{AtSecs: t0.Seconds(), OfferedRate: offered[i] / secs, AchievedRate: float64(iv.results) / secs,
			LatencyP50Ms: st.P50, LatencyP95Ms: st.P95, LatencyP99Ms: st.P99, Status: status}
	}
	return out
}

// internalHeaders returns the identity and the client index (-1: unknown) a
// result's request carried. Unless keep is set (a shard's results, which
// Merge reads again), it removes the runner's internal headers that
// brought them, so that the results file holds only what the target said.
func internalHeaders(r *vegeta.Result, keep bool) (string, int) {
	h := r.Headers
	if h == nil {
		return "", -1
	}
	key := first(h, hdrSentKey)
	client, err := strconv.Atoi(first(h, hdrSentClient))
	if err != nil {
		client = -1
	}
	if !keep {
		delete(h, hdrSentClient)
		delete(h, hdrSentKey)
	}
	return key, client
}

// buildSpecs turns the plan's populations into attacks lasting at most
// dur.
func buildSpecs(o Options, dur time.Duration, budget *atomic.Int64, base http.RoundTripper) ([]*spec, map[string]int) {
	pl := o.Plan
	pops := map[string]int{}
	var specs []*spec
	for i, name := range attackNames(pl) {
		p := &pl.Populations[i]
		pops[name] = i
		ids := newIdentities(o.URL, pl, i, name, o.RunID, o.IPHeader, budget, o.Shard, plan.NewStream(o.Seed, 0))
		s := &spec{name: name, index: i, ids: ids, start: p.Start}
		// A population ends at its own end, or when the run does (which
		// -duration may have moved).
		end := dur
		if p.End < pl.Duration {
			end = min(p.End, dur)
		}
		s.duration = end - s.start
		switch p.Send {
		case plan.Closed:
			// One attack per client, each with C workers (run), or with
			// this shard's share of the C slots.
			s.pacer = unbounded{}
			s.workers, s.maxWork, s.closed = uint64(p.Concurrency), uint64(p.Concurrency), true
			if o.Shard.Count > 1 {
				s.slots = shardSlots(p.Clients, p.Concurrency, o.Shard)
			}
		case plan.Open:
			if p.Poisson {
				s.pacer = newPoisson(p, ids.stream)
			} else {
				s.pacer = newArrivals(p)
			}
			s.workers, s.maxWork = 10, 2000
		case plan.Burst:
			n := p.BurstSize * p.Clients
			s.pacer = newBurst(p)
			w := uint64(max(1, o.Shard.Share(int64(n))))
			s.workers, s.maxWork = w, w
		}
		if o.Shard.Count > 1 && !s.closed {
			s.pacer = shardPacer{p: s.pacer, n: uint64(o.Shard.Count), i: uint64(o.Shard.Index)}
		}
		s.tr = newTransport(base, pl.Token, pl.Key, o.Timeout)
		// A closed loop's results come back on their client's own attack
		// (runClients), which names the client; a shard's results keep
		// the header for Merge.
		s.tr.echoClient = !s.closed || o.Shard.Count > 1
		specs = append(specs, s)
	}
	return specs, pops
}

// clientSlots is one closed-loop client's part in a shard: how many of its
// C in-flight slots the shard runs, and, of its requests in the whole run,
// which the shard's are (every every-th from the offset-th), assuming the
// shards holding its slots take turns.
type clientSlots struct {
	slots, every, offset int
}

// shardSlots spreads every client's C in-flight slots over the shards:
// slot j of client c is item c*C + j, which goes to shard (c*C + j) mod
// N. A botnet of one-slot clients is spread by client; one client with
// many slots, by slot.
func shardSlots(clients, concurrency int, sh plan.Shard) []clientSlots {
	out := make([]clientSlots, clients)
	for c := range out {
		first := c * concurrency
		holders := min(concurrency, sh.Count) // shards holding one of its slots
		rank := ((sh.Index-first)%sh.Count + sh.Count) % sh.Count
		if rank >= holders {
			continue
		}
		n := 0
		for j := rank; j < concurrency; j += sh.Count {
			n++
		}
		out[c] = clientSlots{slots: n, every: holders, offset: rank}
	}
	return out
}

// attackNames names each population's vegeta attack (the Attack field of
// its results): its name, made unique.
func attackNames(pl *plan.Plan) []string {
	seen := map[string]bool{}
	out := make([]string, len(pl.Populations))
	for i, p := range pl.Populations {
		name := p.Name
		if name == "" {
			name = "population-" + strconv.Itoa(i)
		}
		if seen[name] {
			name += "#" + strconv.Itoa(i)
		}
		seen[name] = true
		out[i] = name
	}
	return out
}

// run waits for the population's start, attacks for its duration and
// hands every result to consume. Cancelling ctx stops the attack; requests in
// flight finish and are forwarded.
func (s *spec) run(ctx context.Context, runStart time.Time, consume func(*vegeta.Result, int)) {
	if s.duration <= 0 {
		return
	}
	if wait := time.Until(runStart.Add(s.start)); wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
	}
	if ctx.Err() != nil {
		return
	}
	client := NoRedirects(s.tr, 0) // the transport bounds each request (Options.Timeout)
	began := time.Now()
	s.ids.deadline, s.ids.stop = began.Add(s.duration), ctx.Done()
	if s.closed {
		s.runClients(ctx, client, consume)
	} else {
		atk := vegeta.NewAttacker(vegeta.Client(client), vegeta.Workers(s.workers), vegeta.MaxWorkers(s.maxWork))
		results := atk.Attack(s.ids.target, interruptible{p: s.pacer, du: s.duration, stop: ctx.Done(), stopped: s.markStop},
			s.duration, s.name)
		stop := context.AfterFunc(ctx, func() {
			s.markStop(time.Since(began))
			atk.Stop()
		})
		for r := range results {
			if r.Method == "" && r.URL == "" {
				s.markStop(r.Timestamp.Sub(began)) // the budget was spent
			}
			consume(r, -1)
		}
		stop()
	}
	// Sending stopped when the pacer, an interrupt or the budget said so,
	// else at the attack's end; not when the last requests in flight came
	// back, which is later.
	s.active = min(time.Since(began), s.duration)
	if at := time.Duration(s.stoppedAt.Load()); at > 0 {
		s.active = min(s.active, at)
	}
	if !s.closed {
		s.scheduledByActive = s.pacer.hitsBy(s.active)
		if n := float64(s.ids.n.Load()); s.scheduledByActive < n {
			s.scheduledByActive = n
		}
	}
}

// runClients runs a closed loop as one vegeta attack per client, each with
// exactly C workers: a client never has more than C requests in flight, and
// its think time (thinkPacer) follows its own responses. Without think time
// the workers alone pace the loop (vegeta.Rate{Freq: 0}).
func (s *spec) runClients(ctx context.Context, hc *http.Client, consume func(*vegeta.Result, int)) {
	var wg sync.WaitGroup
	for c := range s.ids.pop.Clients {
		cl := &client{id: s.ids, c: c}
		workers := s.workers
		if s.slots != nil {
			sl := s.slots[c]
			if sl.slots == 0 {
				continue // all of this client's slots are other shards'
			}
			workers, cl.every, cl.offset = uint64(sl.slots), uint64(sl.every), uint64(sl.offset)
		}
		var (
			p     vegeta.Pacer = unbounded{}
			freed chan struct{}
		)
		if s.ids.hasThink() {
			freed = make(chan struct{}, workers)
			p = &thinkPacer{id: s.ids, slots: workers, freed: freed, draws: s.ids.stream.Client(s.ids.pop, c),
				every: int64(cl.every), offset: int64(cl.offset)}
		}
		atk := vegeta.NewAttacker(vegeta.Client(hc), vegeta.Workers(workers), vegeta.MaxWorkers(workers))
		wg.Add(1)
		go func() {
			defer wg.Done()
			results := atk.Attack(cl.target, interruptible{p: p, du: s.duration, stop: ctx.Done()}, s.duration, s.name)
			stop := context.AfterFunc(ctx, func() { atk.Stop() })
			defer stop()
			for r := range results {
				consume(r, s.ids.pop.First+c)
				if freed != nil {
					select { // one of the client's slots is free again
					case freed <- struct{}{}:
					default:
					}
				}
			}
		}()
	}
	wg.Wait()
}
