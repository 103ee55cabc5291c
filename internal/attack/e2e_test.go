package attack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/overshoot-dev/overshoot/internal/attack/attacktest"
	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/model"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
	"github.com/overshoot-dev/overshoot/internal/target"
)

const sequentialYAML = attacktest.SequentialYAML

// TestSequentialExactLimit: one client, one request at a time, a
// linearizable store: every window allows exactly the limit, never more.
// A live run of 1.6 s covers three 500 ms windows at least in full.
func TestSequentialExactLimit(t *testing.T) {
	sc := parse(t, sequentialYAML)
	began := time.Now()
	s := runBuiltin(t, sc, kv.NewMemory(kv.MemoryOptions{}), Options{})
	within(t, "a 1.6 s run", time.Since(began), 10*time.Second)
	o := s.Overshoot
	if s.Totals.Requests == 0 || s.Totals.Errors != 0 {
		t.Fatalf("totals = %+v, want requests and no errors", s.Totals)
	}
	if o.MaxAllowed != 5 || o.OverLimit != 0 || o.Excess != 0 {
		t.Errorf("overshoot = max %d, over %d, excess %d; want exactly 5 and nothing over", o.MaxAllowed, o.OverLimit, o.Excess)
	}
	// Every window but the first and the last (which the run may cover
	// for only a moment) allows exactly 5.
	full := int64(0)
	for _, b := range o.Histogram {
		if b.Allowed == 5 {
			full = b.KeyWindows
		}
	}
	if o.KeyWindows < 3 || full < o.KeyWindows-2 {
		t.Errorf("histogram %+v over %d windows: want all but the first and last with exactly 5 allowed", o.Histogram, o.KeyWindows)
	}
	if s.Live == nil || s.Live.Ambiguous != 0 || s.Live.Status["200"] != s.Totals.Allowed || s.Live.Status["429"] != s.Totals.Denied {
		t.Errorf("live = %+v, want status counts matching totals and nothing ambiguous", s.Live)
	}
	if !s.Complete || s.Mode != "attack" {
		t.Errorf("complete = %v, mode = %q; want true, attack", s.Complete, s.Mode)
	}
}

const raceYAML = attacktest.RaceYAML

// TestConcurrentRace: 32 clients behind one identity, with 20 ms between
// each read and its write: they all read before anyone writes, and the
// window lets far more than the limit through: the race, shown live.
func TestConcurrentRace(t *testing.T) {
	sc := parse(t, raceYAML)
	s := runBuiltin(t, sc, kv.NewMemory(kv.MemoryOptions{Latency: 20 * time.Millisecond}), Options{})
	o := s.Overshoot
	if o.MaxAllowed <= 5 || o.OverLimit == 0 {
		t.Errorf("overshoot = max %d (ratio %.2f), over %d; want more than the limit of 5", o.MaxAllowed, o.Ratio.Max, o.OverLimit)
	}
	t.Logf("32 concurrent clients, limit 5: %d allowed in one window (ratio %.1f)", o.MaxAllowed, o.Ratio.Max)
}

// TestResultsFileDecodes streams a run into a buffer and reads it back with
// vegeta's own decoders: one result per response, with the target's
// headers and none of the runner's internal ones, in one gob stream.
func TestResultsFileDecodes(t *testing.T) {
	sc := parse(t, strings.Replace(sequentialYAML, "duration: 1600ms", "duration: 300ms", 1))
	var buf bytes.Buffer
	s := runBuiltin(t, sc, kv.NewMemory(kv.MemoryOptions{}), Options{Results: &buf, ResultsFile: "mem"})
	dec := vegeta.DecoderFor(bytes.NewReader(buf.Bytes()))
	if dec == nil {
		t.Fatal("vegeta.DecoderFor does not recognise the results")
	}
	dec = vegeta.NewDecoder(bytes.NewReader(buf.Bytes()))
	var n int64
	codes := map[uint16]int64{}
	var m vegeta.Metrics
	for {
		var r vegeta.Result
		err := dec.Decode(&r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("result %d: %v", n, err)
		}
		n++
		codes[r.Code]++
		m.Add(&r)
		if r.Headers.Get(target.HeaderWindow) == "" || r.Attack != "bot" || r.URL == "" {
			t.Fatalf("result %d = %+v: want the target's window header, attack bot and a URL", n, r)
		}
		if r.Headers.Get(hdrSentClient) != "" || r.Headers.Get(hdrSentKey) != "" {
			t.Fatalf("result %d carries the runner's internal headers: %v", n, r.Headers)
		}
	}
	m.Close()
	if n == 0 || n != s.Totals.Requests {
		t.Errorf("decoded %d results, summary counted %d", n, s.Totals.Requests)
	}
	if codes[200] != s.Totals.Allowed || codes[429] != s.Totals.Denied {
		t.Errorf("codes %v, summary allowed %d denied %d", codes, s.Totals.Allowed, s.Totals.Denied)
	}
	if m.Requests != uint64(n) {
		t.Errorf("vegeta metrics saw %d requests, want %d", m.Requests, n)
	}
}

// jsonPaths lists every object key path in a JSON document; array elements
// share the path "[]".
func jsonPaths(t *testing.T, v any) []string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{}
	var walk func(prefix string, x any)
	walk = func(prefix string, x any) {
		switch x := x.(type) {
		case map[string]any:
			for k, v := range x {
				set[prefix+k] = true
				walk(prefix+k+".", v)
			}
		case []any:
			for _, v := range x {
				walk(prefix+"[].", v)
			}
		}
	}
	walk("", doc)
	var out []string
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// TestSummarySchemaMatchesSimulate: an attack's summary.json and a
// simulation's of the same scenario have the same field names; attack adds
// only "live". Optional sections (a sweep's points, the visibility curve,
// per-status maps) are left out of the comparison where one run has data
// and the other has none.
func TestSummarySchemaMatchesSimulate(t *testing.T) {
	sc := parse(t, raceYAML)
	sc.Trials = 2
	sc.Duration = scenario.Duration(2 * time.Second)
	pl, err := plan.Compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := model.Run(pl, model.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	sc2 := parse(t, strings.Replace(raceYAML, "600ms", "300ms", 1))
	att := runBuiltin(t, sc2, kv.NewMemory(kv.MemoryOptions{Latency: 5 * time.Millisecond}), Options{})
	if sim.Mode != "simulate" || att.Mode != "attack" {
		t.Fatalf("modes %q and %q", sim.Mode, att.Mode)
	}
	simPaths, attPaths := jsonPaths(t, sim), jsonPaths(t, att)
	optional := func(p string) bool {
		return strings.HasPrefix(p, "points") || strings.HasPrefix(p, "kv.visibility") ||
			strings.HasPrefix(p, "scenario.") || strings.HasPrefix(p, "worst_keys")
	}
	inAtt := map[string]bool{}
	for _, p := range attPaths {
		inAtt[p] = true
	}
	inSim := map[string]bool{}
	for _, p := range simPaths {
		inSim[p] = true
		if !inAtt[p] && !optional(p) {
			t.Errorf("simulate's summary has %q, attack's does not", p)
		}
	}
	for _, p := range attPaths {
		// Live only: live., and a run's service times at the target.
		liveOnly := p == "live" || strings.HasPrefix(p, "live.") || strings.HasPrefix(p, "mechanism.trials.[].service_")
		if !inSim[p] && !optional(p) && !liveOnly {
			t.Errorf("attack's summary has %q, simulate's does not", p)
		}
	}
	if !inAtt["live.offered_rate"] || !inAtt["live.latency_ms.p99"] || !inAtt["live.latency_note"] || !inAtt["live.status"] {
		t.Errorf("attack summary lacks live fields: %v", attPaths)
	}
}

// stripHeaders hides the built-in target's exact-accounting headers, to
// stand for a target that sends only a status (any URL).
func stripHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			if k != target.HeaderWindow && k != target.HeaderKey {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	})
}

// TestAttributionWithoutHeaders attacks a target that does not say which
// window it counted a request in: the runner attributes each response by
// its own clock, counts those too close to a boundary as ambiguous, and
// still finds exactly the limit per window for one sequential client.
func TestAttributionWithoutHeaders(t *testing.T) {
	sc := parse(t, strings.Replace(sequentialYAML, "500ms", "200ms", 1))
	l, err := limiter.New(limiter.Config{Name: "t", Limit: 5, Window: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	h, err := target.New(target.Config{Limiter: l, Store: kv.NewMemory(kv.MemoryOptions{})})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := target.Start("127.0.0.1:0", stripHeaders(h))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	s, err := Run(context.Background(), Options{Plan: livePlan(t, sc), URL: srv.URL(), Limit: 5, Window: 200 * time.Millisecond,
		Duration: time.Second, Skew: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if s.Live.Ambiguous == 0 {
		t.Errorf("no ambiguous responses over 5 window boundaries with a 10 ms margin: attribution guessed?")
	}
	if s.Overshoot.MaxAllowed > 5 || s.Overshoot.KeyWindows < 3 {
		t.Errorf("overshoot = %+v: want at most 5 per window over at least 3 windows", s.Overshoot)
	}
	if got := s.Totals.Requests + s.Live.Ambiguous; got != s.Live.Status["200"]+s.Live.Status["429"] {
		t.Errorf("counted %d + ambiguous %d != responses %v", s.Totals.Requests, s.Live.Ambiguous, s.Live.Status)
	}
}

// TestMaxRequests bounds a run by count: exactly max_requests responses,
// none of vegeta's fake "no more targets" results counted.
func TestMaxRequests(t *testing.T) {
	sc := parse(t, `
name: count
limiter: {name: t, limit: 5, window: 1h}
traffic:
  - name: a
    clients: 4
    closed_loop: {concurrency: 2}
  - name: b
    open_loop: {rate: 2000/s}
live: {duration: 5s, max_requests: 300}
`)
	began := time.Now()
	s := runBuiltin(t, sc, kv.NewMemory(kv.MemoryOptions{}), Options{})
	within(t, "300 requests", time.Since(began), 4*time.Second)
	var n int64
	for _, c := range s.Live.Status {
		n += c
	}
	if n != 300 || s.Totals.Requests != 300 || s.Totals.Errors != 0 {
		t.Errorf("responses %d, counted %d (errors %d); want exactly 300 and no errors", n, s.Totals.Requests, s.Totals.Errors)
	}
	if s.Populations[0].Requests == 0 || s.Populations[1].Requests == 0 {
		t.Errorf("populations %+v: both should have sent", s.Populations)
	}
	// 4 clients x 2 in flight plus one open loop: 5 per-client keys plus 1.
	if s.Overshoot.KeyWindows != 5 {
		t.Errorf("key-windows = %d, want 5 (4 closed-loop clients and 1 open-loop client)", s.Overshoot.KeyWindows)
	}
}

// TestCancel stops a run through its context: the summary says incomplete
// and holds what was measured.
func TestCancel(t *testing.T) {
	sc := parse(t, strings.Replace(sequentialYAML, "1600ms", "30s", 1))
	url, cfg := serve(t, sc, kv.NewMemory(kv.MemoryOptions{}))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	began := time.Now()
	s, err := Run(ctx, Options{Plan: livePlan(t, sc), URL: url, Limit: cfg.Limit, Window: cfg.Window})
	if err != nil {
		t.Fatal(err)
	}
	within(t, "a cancelled run", time.Since(began), 5*time.Second)
	if s.Complete || s.Totals.Requests == 0 {
		t.Errorf("complete %v, requests %d: want an incomplete summary of what was measured", s.Complete, s.Totals.Requests)
	}
}

// TestLiveSeries: the run over time comes in 1 s intervals whose rates add
// up to the responses counted, with the open loop's offered rate from its
// pacer.
func TestLiveSeries(t *testing.T) {
	sc := parse(t, `
name: series
limiter: {name: t, limit: 5, window: 10s}
traffic:
  - name: steady
    open_loop: {rate: 200/s}
live: {duration: 2500ms}
`)
	var series []measure.LivePoint
	var samples []measure.LatencySample
	s := runBuiltin(t, sc, kv.NewMemory(kv.MemoryOptions{}), Options{Series: &series, Samples: &samples})
	// Latency split by decision: the limit's 5 allowed, the rest denied,
	// every response in one class and in the sample (under 2,000 each).
	by := s.LatencyByDecision
	if by == nil || by.Allowed == nil || by.Denied == nil {
		t.Fatalf("latency by decision %+v, want allowed and denied", by)
	}
	if by.Allowed.N != s.Totals.Allowed || by.Denied.N != s.Totals.Denied || by.FailOpen != nil || by.Error != nil {
		t.Errorf("latency by decision counts allowed %d, denied %d; totals %+v", by.Allowed.N, by.Denied.N, s.Totals)
	}
	if int64(len(samples)) != s.Totals.Requests {
		t.Errorf("%d samples of %d responses, want all of them", len(samples), s.Totals.Requests)
	}
	for i := 1; i < len(samples); i++ {
		if samples[i].AtSecs < samples[i-1].AtSecs {
			t.Fatalf("samples out of time order at %d: %v after %v", i, samples[i].AtSecs, samples[i-1].AtSecs)
		}
	}
	if len(series) != 3 {
		t.Fatalf("%d intervals for 2.5 s, want 3: %+v", len(series), series)
	}
	var n float64
	for i, p := range series {
		w := 1.0
		if i == 2 {
			w = s.Live.DurationSecs - 2
		}
		n += p.AchievedRate * w
		if i < 2 && (p.OfferedRate < 190 || p.OfferedRate > 210) {
			t.Errorf("interval %d offered %.1f/s, want about 200", i, p.OfferedRate)
		}
		if p.Status["429"]+p.Status["200"] == 0 {
			t.Errorf("interval %d has no statuses: %+v", i, p)
		}
	}
	if int64(n+0.5) != s.Totals.Requests {
		t.Errorf("series adds up to %.1f responses, summary counted %d", n, s.Totals.Requests)
	}
	if s.Live.OfferedRate < 180 || s.Live.OfferedRate > 220 {
		t.Errorf("offered %.1f/s, want about 200", s.Live.OfferedRate)
	}
}

// TestScheduleAndThink: a population that starts late and stops early sends
// only in its span; a closed loop's think time spaces its requests but is
// not counted as latency; a population that would start after the run sends
// nothing.
func TestScheduleAndThink(t *testing.T) {
	sc := parse(t, `
name: schedule
limiter: {name: t, limit: 1000, window: 10s}
traffic:
  - name: late
    open_loop: {rate: 100/s}
    start: 300ms
    duration: 200ms
  - name: thinker
    closed_loop: {concurrency: 1, think: 50ms}
  - name: never
    open_loop: {rate: 100/s}
    start: 5s
live: {duration: 700ms}
`)
	var buf bytes.Buffer
	s := runBuiltin(t, sc, kv.NewMemory(kv.MemoryOptions{}), Options{Results: &buf})
	if n := s.Populations[0].Requests; n < 18 || n > 22 {
		t.Errorf("late population sent %d in its 200 ms at 100/s, want about 20", n)
	}
	if n := s.Populations[1].Requests; n < 10 || n > 15 {
		t.Errorf("thinker sent %d in 700 ms with 50 ms think, want about 13", n)
	}
	if n := s.Populations[2].Requests; n != 0 {
		t.Errorf("a population starting after the run sent %d", n)
	}
	dec := vegeta.NewDecoder(&buf)
	var first, lastLate time.Time
	for {
		var r vegeta.Result
		if err := dec.Decode(&r); err != nil {
			break
		}
		if first.IsZero() || r.Timestamp.Before(first) {
			first = r.Timestamp
		}
		if r.Attack == "late" && r.Timestamp.After(lastLate) {
			lastLate = r.Timestamp
		}
		if r.Attack == "thinker" && r.Latency >= 45*time.Millisecond {
			t.Errorf("thinker latency %v includes its 50 ms think time", r.Latency)
		}
	}
	if d := lastLate.Sub(first); d < 400*time.Millisecond || d > 600*time.Millisecond {
		t.Errorf("late population's last request %v after the run's first, want about 500ms", d)
	}
}

// TestSlowLoopsEndOnTime: an open loop of one request an hour and a bot
// that thinks a minute must not hold a 600 ms run (vegeta would sleep the
// whole wait), nor an interrupted one; the bot sends its first request at
// once and nothing after.
func TestSlowLoopsEndOnTime(t *testing.T) {
	sc := parse(t, `
name: slow
limiter: {name: t, limit: 5, window: 10s}
traffic:
  - name: trickle
    open_loop: {rate: 1/h, poisson: true}
  - name: bot
    closed_loop: {concurrency: 1, think: 1m}
live: {duration: 600ms, max_requests: 10}
`)
	began := time.Now()
	s := runBuiltin(t, sc, kv.NewMemory(kv.MemoryOptions{}), Options{})
	within(t, "a 600 ms run of slow loops", time.Since(began), 3*time.Second)
	if s.Populations[1].Requests != 1 || !s.Complete {
		t.Errorf("bot sent %d (complete %v), want exactly its first request", s.Populations[1].Requests, s.Complete)
	}

	url, cfg := serve(t, sc, kv.NewMemory(kv.MemoryOptions{}))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	began = time.Now()
	s, err := Run(ctx, Options{Plan: livePlan(t, sc), URL: url, Limit: cfg.Limit, Window: cfg.Window, Duration: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	within(t, "an interrupted hour of slow loops", time.Since(began), 3*time.Second)
	if s.Complete {
		t.Errorf("interrupted run marked complete")
	}
}

// TestFalseDenialsPerClient: 4 legitimate clients share one token and no
// address, so one limiter key; limit 5 per window. A denial is false when
// an exact limiter on the same requests would have allowed it: while the
// key-window had fewer than 5 allowed (as simulate counts them), whoever
// sent it. The target, one decision at a time over a memory store, is such
// a limiter: it tallies the truth in decision order, and the summary must
// agree (none), though the attacker records responses in another order.
func TestFalseDenialsPerClient(t *testing.T) {
	sc := parse(t, `
name: shared
limiter: {name: t, limit: 5, window: 10s}
traffic:
  - name: users
    clients: 4
    legitimate: true
    identity: {token: shared, ip: none}
    closed_loop: {concurrency: 1}
live: {duration: 300ms, warmup: false}   # the tally counts every request it sees as a client's
`)
	l, err := limiter.New(limiter.Config{Name: "t", Limit: 5, Window: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	h, err := target.New(target.Config{Limiter: l, Store: kv.NewMemory(kv.MemoryOptions{})})
	if err != nil {
		t.Fatal(err)
	}
	type cw struct{ client, window string }
	var (
		mu      sync.Mutex
		allowed = map[cw]int{}
		clients = map[string]bool{}
		falseD  int64
	)
	tally := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock() // one decision at a time: the truth in decision order
		defer mu.Unlock()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		k := cw{r.Header.Get(HeaderClient), rec.Header().Get(target.HeaderWindow)}
		clients[k.client] = true
		kw := cw{window: k.window} // one key: the key-window is the window
		switch rec.Code {
		case http.StatusOK:
			allowed[kw]++
		case http.StatusTooManyRequests:
			if allowed[kw] < 5 {
				falseD++
			}
		}
		for hk, v := range rec.Header() {
			w.Header()[hk] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	})
	srv, err := target.Start("127.0.0.1:0", tally)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	s, err := Run(context.Background(), Options{Plan: livePlan(t, sc), URL: srv.URL(), Limit: 5, Window: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(clients) != 4 {
		t.Errorf("the target saw clients %v, want 4 distinct client indexes", clients)
	}
	p := s.Populations[0]
	if p.Denied == 0 {
		t.Fatalf("denied %d: want denials", p.Denied)
	}
	if p.FalseDenials != falseD {
		t.Errorf("summary counts %d false denials (of %d denied), the target %d", p.FalseDenials, p.Denied, falseD)
	}
}

// TestClosedLoopPerClient: 8 clients, each with its own token and address
// (one key each) and one request in flight, over a store with 1-40 ms of
// latency per operation. A client that never has two requests in flight is
// sequential on its own key: every key-window allows exactly the limit,
// none more (simulate gives the same).
func TestClosedLoopPerClient(t *testing.T) {
	sc := parse(t, `
name: per-client
limiter: {name: t, limit: 5, window: 60s}
store: {kind: memory, latency: {dist: uniform, min: 1ms, max: 40ms}}
traffic:
  - name: bots
    clients: 8
    identity: {token: per-client, ip: per-client}
    closed_loop: {concurrency: 1}
live: {duration: 1200ms}
`)
	lat := livePlan(t, sc).Store.Latency
	rng := rand.New(rand.NewPCG(1, 2))
	var mu sync.Mutex
	store := &kv.Delayed{Store: kv.NewMemory(kv.MemoryOptions{}), Delay: func() time.Duration {
		mu.Lock()
		defer mu.Unlock()
		return lat.Sample(rng)
	}}
	s := runBuiltin(t, sc, store, Options{})
	o := s.Overshoot
	if o.KeyWindows < 8 || s.Totals.Errors != 0 {
		t.Fatalf("%d key-windows, %d errors: want at least one per client and no errors", o.KeyWindows, s.Totals.Errors)
	}
	if o.MaxAllowed != 5 || o.OverLimit != 0 {
		t.Errorf("most allowed in a key-window %d, %d of %d key-windows over the limit: want exactly 5 and none over (histogram %+v)",
			o.MaxAllowed, o.OverLimit, o.KeyWindows, o.Histogram)
	}
}

// TestThinkNotInErrorLatency: a closed loop with 100 ms think time against
// a target that drops every connection: each result is a transport error,
// and its latency is the failed round trip only, not the think time before
// it (as for a response, TestScheduleAndThink).
func TestThinkNotInErrorLatency(t *testing.T) {
	sc := parse(t, `
name: drops
limiter: {name: t, limit: 5, window: 10s}
traffic:
  - name: thinker
    closed_loop: {concurrency: 1, think: 100ms}
live: {duration: 650ms, warmup: false}   # nothing answers a warm-up
`)
	drop := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic(http.ErrAbortHandler) // close the connection without a response
	}))
	defer drop.Close()
	var buf bytes.Buffer
	s, err := Run(context.Background(), Options{Plan: livePlan(t, sc), URL: drop.URL, Limit: 5, Window: 10 * time.Second, Results: &buf})
	if err != nil {
		t.Fatal(err)
	}
	if s.Totals.Errors < 4 || s.Totals.Errors != s.Totals.Requests {
		t.Fatalf("totals %+v: want only transport errors, about 6 of them", s.Totals)
	}
	dec := vegeta.NewDecoder(&buf)
	for n := 0; ; n++ {
		var r vegeta.Result
		if err := dec.Decode(&r); err != nil {
			break
		}
		if r.Code != 0 || r.Error == "" {
			t.Fatalf("result %d = code %d, error %q: want a transport error", n, r.Code, r.Error)
		}
		if r.Latency >= 50*time.Millisecond {
			t.Errorf("error %d took %v: its 100 ms think time counted as latency", n, r.Latency)
		}
	}
	if s.Live.LatencyMs.Max >= 50 {
		t.Errorf("latency max %.1f ms includes think time", s.Live.LatencyMs.Max)
	}
}

// TestOfferedAfterEarlyStop: an open loop of 200/s over a slow store (each
// request takes about 300 ms), stopped after 300 ms. The offered count is
// what the schedule called for until sending stopped, about the requests
// sent; not the schedule over the time the requests in flight took to
// drain. constantPacer and poissonPacer (whose count is its real arrivals, not the
// rate times the time).
func TestOfferedAfterEarlyStop(t *testing.T) {
	for _, poisson := range []bool{false, true} {
		t.Run(fmt.Sprintf("poisson=%v", poisson), func(t *testing.T) {
			sc := parse(t, fmt.Sprintf(`
name: early-stop
limiter: {name: t, limit: 100000, window: 10s}
traffic:
  - name: steady
    open_loop: {rate: 200/s, poisson: %v}
live: {duration: 10s}
`, poisson))
			url, cfg := serve(t, sc, kv.NewMemory(kv.MemoryOptions{Latency: 150 * time.Millisecond}))
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(300*time.Millisecond, cancel)
			var series []measure.LivePoint
			s, err := Run(ctx, Options{Plan: livePlan(t, sc), URL: url, Limit: cfg.Limit, Window: cfg.Window, Seed: 3, Series: &series})
			if err != nil {
				t.Fatal(err)
			}
			if s.Live.DurationSecs < 0.5 {
				t.Fatalf("the run lasted %.2f s: the store's latency should hold it past the stop", s.Live.DurationSecs)
			}
			offered := s.Live.OfferedRate * s.Live.DurationSecs
			sent := float64(s.Totals.Requests)
			// The schedule over the whole run, drain included, is what a
			// wrong count would give. On a busy machine the pacer falls
			// behind its schedule, so some requests it called for before
			// the stop were never sent (5 to 16 at load average 18): the
			// offer must be nearer the requests sent than that count.
			wrong := 200 * s.Live.DurationSecs
			if sent < 30 || math.Abs(offered-sent) >= (wrong-sent)/2 {
				t.Errorf("offered %.1f requests, sent %.0f, the schedule over the whole %.2f s run %.0f: want the offer counted until sending stopped, near the requests sent",
					offered, sent, s.Live.DurationSecs, wrong)
			}
			var fromSeries float64
			for i, p := range series {
				w := 1.0
				if i == len(series)-1 {
					w = s.Live.DurationSecs - float64(i)
				}
				fromSeries += p.OfferedRate * w
			}
			if math.Abs(fromSeries-offered) > 0.5 {
				t.Errorf("the series offers %.1f requests, the summary %.1f", fromSeries, offered)
			}
		})
	}
}
