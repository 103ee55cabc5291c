package model

import (
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// The oracle tests check the model against answers derived by hand, in the
// comments, from the rules in the package doc; the code was not run to get
// them.

// TestOracleSequentialMemory: memory store, 1 ms per operation, limit 5 per
// 10 s window, one client in a closed loop with no think time, 60 s.
//
// Derivation. An allowed request reads (1 ms) then writes (1 ms): 2 ms. A
// denied one only reads: 1 ms. The client is alone, so every read sees every
// earlier write. In window 0 requests arrive at 0, 2, 4, 6, 8 ms (allowed;
// counts 0..4), then at 10, 11, ..., 9999 ms (denied: 9990 requests). The
// arrival at 10 000 ms plans window 1 and the pattern repeats: every window
// of the six has exactly 5 allowed and 9995 requests. Decisions come 1 ms
// after arrival; the trial covers [0, 60 s), so the arrival at 59 999 ms,
// decided at 60 000 ms, is not counted: 6 x 9995 - 1 = 59 969 requests.
func TestOracleSequentialMemory(t *testing.T) {
	sc := memoryScenario(5, 10*time.Second, ms(1), 60*time.Second, closedLoop(bot("bot"), 1, ms(0)))
	trials, err := RunTrials(planOf(t, sc), Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	tr := trials[0]
	if len(tr.Hist) != 1 || tr.Hist[5] != 6 {
		t.Errorf("key-windows by allowed count = %v, want {5: 6}", tr.Hist)
	}
	if tr.Totals.Allowed != 30 || tr.Totals.Requests != 59969 {
		t.Errorf("allowed %d of %d requests, want 30 of 59969", tr.Totals.Allowed, tr.Totals.Requests)
	}
	if tr.KV.LostUpdates != 0 || tr.OverLimit != 0 {
		t.Errorf("lost updates %d, windows over the limit %d; want 0 and 0", tr.KV.LostUpdates, tr.OverLimit)
	}
}

// TestOracleSimultaneousFirst: memory store, 5 ms per operation, limit 5;
// one client sends C = 16 requests at once at t = 0 (one identity).
//
// Derivation. All 16 reads take effect at t = 0, before any write is even
// submitted (writes are submitted at 5 ms, when the reads return): every
// read sees "missing", count 0 < 5, so all 16 are allowed, ratio 16/5. Each
// writes "1": 16 increments acknowledged, a count of 1 at the end, 15 lost
// updates. 16 reads, 16 writes.
func TestOracleSimultaneousFirst(t *testing.T) {
	sc := memoryScenario(5, time.Hour, ms(5), time.Minute, burst(bot("bot"), 16, 0, 0))
	trials, err := RunTrials(planOf(t, sc), Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	tr := trials[0]
	if tr.Totals.Allowed != 16 || tr.Totals.Requests != 16 {
		t.Errorf("allowed %d of %d, want 16 of 16", tr.Totals.Allowed, tr.Totals.Requests)
	}
	if tr.KV.LostUpdates != 15 || tr.KV.Reads != 16 || tr.KV.Writes != 16 {
		t.Errorf("kv = %d reads, %d writes, %d lost updates; want 16, 16, 15", tr.KV.Reads, tr.KV.Writes, tr.KV.LostUpdates)
	}
}

// TestOracleAlternatingLocations: kv store, locations A and B, cacheTtl 60 s,
// hot read 5 ms, cold read 50 ms, write 100 ms, no purge, read-your-writes
// always, no write limit; limit L = 5 per day; one bot in a closed loop
// with no think time whose requests alternate A, B, A, B, ...
//
// Derivation. Request 0 at A (t = 0): A's cache is empty, the cold read
// finds nothing centrally, A caches "missing"; count 0, allowed, writes "1";
// at commit A's cache holds "1" (A sees its own write). Request 1 at B
// (t = 150 ms): B's cache is empty, the cold read fetches "1"; count 1,
// allowed, writes "2"; B now holds "2". From then on each location serves
// its own cache (entries live 60 s from their last write, and the whole
// exchange below takes under 2 s), and each sees only its own writes: A
// reads 1, 2, 3, 4 on requests 2, 4, 6, 8 and B reads 2, 3, 4 on requests
// 3, 5, 7. So A allows counts 0..4 (5 requests) and B counts 1..4 (4): 2L - 1
// = 9 allowed, then A reads 5 and B reads 5 and both deny. When their
// entries expire they fetch the central value, the last write: "5" from
// either, still 5: denied to the end of the day. Lost updates: nine
// increments acknowledged, and the central count ends at 5 (the last
// write, A's or B's "5"): 9 - 5 = 4.
func TestOracleAlternatingLocations(t *testing.T) {
	p := closedLoop(bot("bot"), 1, ms(0))
	p.Arrive.Mode = "alternate"
	sc := kvScenario(5, 24*time.Hour, kvParams(5, 50, 100), []string{"A", "B"}, 10*time.Minute, p)
	trials, err := RunTrials(planOf(t, sc), Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	tr := trials[0]
	if tr.Totals.Allowed != 9 || tr.Hist[9] != 1 {
		t.Errorf("allowed %d (key-windows %v), want 9 in one key-window", tr.Totals.Allowed, tr.Hist)
	}
	if tr.KV.LostUpdates != 4 || tr.KV.Writes != 9 {
		t.Errorf("kv writes %d, lost updates %d; want 9 and 4", tr.KV.Writes, tr.KV.LostUpdates)
	}
}

// TestOracleWriteLimitFailOpen: kv store, one location, 1 write/s per key
// (global), fail-open; hot and cold reads 10 ms, writes 20 ms; limit L = 5
// per day; a bot at R = 10 requests/s, constant, starting at t = 0.
//
// Derivation. Requests arrive at k/10 s. Request 0 reads "missing" (cold,
// 10 ms), submits "1" at 10 ms: accepted, commits at 30 ms and the location
// sees it. Requests 1..9 read "1" and submit "2" within the second after
// 10 ms: each gets 429, and fail-open allows it. Request 10 submits at
// 1.010 s, exactly 1 s after the last accepted write: accepted, "2" commits
// at 1.030 s. So the count rises by one a second; requests at 0..4 s
// inclusive read counts below 5 and are allowed (k = 0..40: R(L-1) + 1 =
// 41), five of them by accepted writes (k = 0, 10, 20, 30, 40) and 36 by
// fail-open after a 429. Request 41 (4.1 s) reads "5" (committed at
// 4.030 s) and is denied, as is every later request that day.
func TestOracleWriteLimitFailOpen(t *testing.T) {
	kvp := kvParams(10, 10, 20)
	kvp.WriteLimit.PerSecond, kvp.WriteLimit.Scope = 1, "global"
	sc := kvScenario(5, 24*time.Hour, kvp, []string{"A"}, time.Minute, openLoop(bot("bot"), 10))
	trials, err := RunTrials(planOf(t, sc), Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	tr := trials[0]
	if tr.Totals.Allowed != 41 || tr.Totals.FailOpen != 36 {
		t.Errorf("allowed %d, fail-open %d; want 41 and 36", tr.Totals.Allowed, tr.Totals.FailOpen)
	}
	if tr.KV.WriteRateLimited != 36 || tr.KV.Writes != 41 {
		t.Errorf("writes %d, 429s %d; want 41 and 36", tr.KV.Writes, tr.KV.WriteRateLimited)
	}
	// 60 s at 10/s: arrivals at 0.0 .. 59.9 s, decided 10 ms later, all
	// inside the minute.
	if tr.Totals.Requests != 600 {
		t.Errorf("requests = %d, want 600", tr.Totals.Requests)
	}
}

// TestOracleWindowBoundary: memory store, 1 ms per operation, limit 5 per
// 10 s window; a bot at 1 request/s starting at 5 s (the trial starts on a
// window boundary), 30 s.
//
// Derivation. Requests at 5..9 s are window 0's first five: allowed. At 10,
// 11, 12, 13, 14 s window 1 begins: five more allowed; 15..19 denied. So
// the ten allowed at 5..14 s fall in one interval of 9 s, shorter than a
// window: the most allowed in any window-long interval is 2L = 10, while
// no window allowed more than 5.
func TestOracleWindowBoundary(t *testing.T) {
	p := openLoop(bot("bot"), 1)
	p.Start = dur(5 * time.Second)
	sc := memoryScenario(5, 10*time.Second, ms(1), 30*time.Second, p)
	s, err := Run(planOf(t, sc), Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s.Overshoot.MaxInInterval != 10 || s.Overshoot.MaxAllowed != 5 {
		t.Errorf("max in interval %d, max per window %d; want 10 and 5", s.Overshoot.MaxInInterval, s.Overshoot.MaxAllowed)
	}
	if s.Overshoot.MaxInIntervalRatio != 2 {
		t.Errorf("max in interval ratio %v, want 2", s.Overshoot.MaxInIntervalRatio)
	}
	var _ measure.Summary = s
}

// TestOracleOtherAlgorithms drives the sliding window and the token bucket
// through the engine: memory store, 1 ms per operation, limit 5 per 10 s, a
// bot at 10 requests/s for 60 s (requests never overlap: each takes at most
// 3 ms).
//
// Token bucket (GCRA, interval 10 s / 5 = 2 s, tolerance 4 x 2 s = 8 s),
// arrivals at k/10 s: at 0, 0.1, 0.2, 0.3, 0.4 s the theoretical arrival
// time moves to 2, 4, 6, 8, 10 s, each time at most 8 s ahead of now:
// allowed. At 0.5 s it is 9.5 s ahead: denied, until 10 - t <= 8, at 2.0 s
// (exactly 8 s ahead: allowed, the check is <=), then every 2 s: 2, 4, ...,
// 58 s, 29 more. Per 10-s window: 5 + 4 (2, 4, 6, 8 s) = 9 in the first,
// then 5 in each of the other five: 34 in all.
//
// Sliding window, arrivals at 0.05 + k/10 s (off the exact fractions, so no
// estimate lands on 5.0 in floating point): window 0 has no previous count
// and allows the first five (0.05 .. 0.45 s). In each later window the
// previous count is 5, so the estimate 5(1 - f) + current, f the elapsed
// fraction, is under 5 at 10.05 s (f = 0.005, current 0) and then first
// again after f passes 0.2, 0.4, 0.6, 0.8 (12.05, 14.05, 16.05, 18.05 s):
// 5 per window, 30 in all.
func TestOracleOtherAlgorithms(t *testing.T) {
	bucket := memoryScenario(5, 10*time.Second, ms(1), time.Minute, openLoop(bot("bot"), 10))
	bucket.Limiter.Algorithm = "token-bucket"
	p := openLoop(bot("bot"), 10)
	p.Start = dur(50 * time.Millisecond)
	sliding := memoryScenario(5, 10*time.Second, ms(1), time.Minute, p)
	sliding.Limiter.Algorithm = "sliding-window"
	cases := []struct {
		name    string
		sc      *scenario.Scenario
		allowed int64
		hist    map[int64]int64
	}{
		{"token-bucket", bucket, 34, map[int64]int64{9: 1, 5: 5}},
		{"sliding-window", sliding, 30, map[int64]int64{5: 6}},
	}
	for _, c := range cases {
		trials, err := RunTrials(planOf(t, c.sc), Options{Seed: 1})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		tr := trials[0]
		if tr.Totals.Allowed != c.allowed {
			t.Errorf("%s: allowed %d, want %d", c.name, tr.Totals.Allowed, c.allowed)
		}
		if len(tr.Hist) != len(c.hist) {
			t.Errorf("%s: key-windows by allowed count %v, want %v", c.name, tr.Hist, c.hist)
		}
		for k, v := range c.hist {
			if tr.Hist[k] != v {
				t.Errorf("%s: key-windows by allowed count %v, want %v", c.name, tr.Hist, c.hist)
				break
			}
		}
	}
}

// TestOracleRotatingBurst: memory store, 5 ms per operation, limit 5; one
// client sends a burst of 10 at once with a new token for every request.
//
// Derivation. Each request plans its own key (token r0..r9), reads
// "missing" and is allowed: 10 key-windows of one allowed request each,
// ratio 0.2 everywhere. Accounting must file each request under the token
// it was sent with, not the client's latest one (which would make one
// key-window of 10, ratio 2).
func TestOracleRotatingBurst(t *testing.T) {
	p := burst(bot("bot"), 10, 0, 0)
	p.Identity = scenario.Identity{Token: "rotating", RotateEvery: 1, IP: "per-client"}
	sc := memoryScenario(5, time.Hour, ms(5), time.Minute, p)
	trials, err := RunTrials(planOf(t, sc), Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if h := trials[0].Hist; len(h) != 1 || h[1] != 10 {
		t.Errorf("key-windows by allowed count = %v, want {1: 10}", h)
	}
}

// TestOracleSpreadBurst: memory store, 5 ms per operation, limit 5; one
// client bursts 10 requests spread over 40 ms, one every 4 ms.
//
// Derivation. Each operation takes effect half-way through its 5 ms:
// request i is sent at 4i ms, reads at 4i+2.5, decides at 4i+5, and its
// write commits at 4i+7.5 (it completes at 4i+10). Request i+1 reads at
// 4i+6.5, before that commit; request i+2 at 4i+10.5, after it. Request i
// therefore sees the write of request i-2: counts read are c(0) = c(1) = 0
// and c(i) = c(i-2)+1, i.e. 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, all under 5: all
// 10 allowed. Spread over 100 ms (one every 10 ms) request i+1 reads at
// 10i+12.5, after request i's commit at 10i+7.5: counts 0, 1, 2, ..., so
// requests 0..4 are allowed and 5..9 read 5 and are denied. (Were the read
// to take effect when sent and the write when its latency ends, the race
// window would be 10 ms and the 100 ms spread would allow all 10.)
func TestOracleSpreadBurst(t *testing.T) {
	for _, tt := range []struct {
		spread  time.Duration
		allowed int64
	}{{40 * time.Millisecond, 10}, {100 * time.Millisecond, 5}} {
		p := burst(bot("bot"), 10, 0, 0)
		p.Burst.Spread = dur(tt.spread)
		sc := memoryScenario(5, time.Hour, ms(5), time.Minute, p)
		trials, err := RunTrials(planOf(t, sc), Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if got := trials[0].Totals.Allowed; got != tt.allowed {
			t.Errorf("spread %v: allowed %d, want %d", tt.spread, got, tt.allowed)
		}
	}
}
