package model

import (
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// singleThread puts sc behind one thread with constant steps (ms) and round
// trip rtt (ms).
func singleThread(sc *scenario.Scenario, before, between, after, rtt float64) *scenario.Scenario {
	sc.Server = &scenario.Server{Mode: scenario.ServerSingleThread,
		CPU: scenario.ServerCPU{BeforeRead: ms(before), Between: ms(between), AfterWrite: ms(after)}, RTT: ms(rtt),
		BatchMax: scenario.DefaultBatchMax}
	return sc
}

// withProxy puts a proxy thread with constant passes in and out (ms) in
// front of sc's server.
func withProxy(sc *scenario.Scenario, in, out float64) *scenario.Scenario {
	sc.Server.Proxy = &scenario.ServerProxy{CPUIn: ms(in), CPUOut: ms(out)}
	return sc
}

// withWake gives sc's threads a constant wake-up of w ms.
func withWake(sc *scenario.Scenario, w float64) *scenario.Scenario {
	sc.Server.Wake = ms(w)
	return sc
}

// withSend gives sc's closed loops a constant send spacing: the second of
// the requests sent at one instant first ms after the first, each further
// one next ms after the one before.
func withSend(sc *scenario.Scenario, first, next float64) *scenario.Scenario {
	sc.Server.Send = &scenario.ServerSend{First: ms(first), Next: ms(next)}
	return sc
}

// withStall gives sc's threads constant stalls: one of lasts ms after
// every every ms of a thread's work.
func withStall(sc *scenario.Scenario, every, lasts float64) *scenario.Scenario {
	sc.Server.Stall = &scenario.ServerStall{Every: ms(every), Lasts: ms(lasts)}
	return sc
}

// TestOracleSingleThread checks the single-thread server against answers
// derived by hand, in each case's comment, from the rules in server.go's
// doc; the code was not run to get them. The store's own latency (5 ms)
// must play no part: the thread's steps are the store's work.
func TestOracleSingleThread(t *testing.T) {
	spread := func(p scenario.Population, d time.Duration) scenario.Population {
		p.Burst.Spread = dur(d)
		return p
	}
	tests := []struct {
		name                       string
		sc                         *scenario.Scenario
		requests, allowed          int64
		reads, writes, lostUpdates int64
	}{
		// C = 8 at once, limit 3, steps 1, 2, 0.5 ms, no round trip. The
		// eight arrive together: one batch. The thread runs the eight
		// before_read steps first (reads at 1..8 ms, all "missing"), then
		// the first between step: exactly 8 reads before the first write
		// (at 10 ms). All 8 allowed (ratio 8/3); the first commit replaces
		// nothing, the 7 others a version their writer never read.
		{"eight at once", singleThread(memoryScenario(3, time.Hour, ms(5), time.Minute, burst(bot("bot"), 8, 0, 0)), 1, 2, 0.5, 0),
			8, 8, 8, 8, 7},
		// Six spread over 1.8 ms (one every 0.3 ms), limit 2, steps 1 ms
		// each, no round trip. The first finds the thread idle: a batch of
		// one. It reads at 1 ms; its between step is queued before the
		// thread looks at the inbox, so it writes "1" at 2 ms and answers
		// at 3 ms. The five others (arrived at 0.3..1.5 ms) then enter as
		// one batch, read "1" at 4..8 ms (1 < 2: allowed) and write "2":
		// 6 allowed, 4 lost updates.
		{"one then five", singleThread(memoryScenario(2, time.Hour, ms(5), time.Minute, spread(burst(bot("bot"), 6, 0, 0), 1800*time.Microsecond)), 1, 1, 1, 0),
			6, 6, 6, 6, 4},
		// The same six at limit 1. Without a wake-up: the first alone
		// (allowed, writes "1"), then five that read "1" and are denied:
		// 1 allowed, 6 reads, 1 write.
		{"one then five, limit 1", singleThread(memoryScenario(1, time.Hour, ms(5), time.Minute, spread(burst(bot("bot"), 6, 0, 0), 1800*time.Microsecond)), 1, 1, 1, 0),
			6, 1, 6, 1, 0},
		// With a wake-up of 2 ms the thread, blocked when the first
		// arrives, starts at 2 ms, when all six (the last at 1.5 ms) are in
		// the inbox: one batch, six reads of "missing" before the first
		// write. 6 allowed, 6 writes, 5 lost.
		{"six in one batch after a wake-up", withWake(singleThread(memoryScenario(1, time.Hour, ms(5), time.Minute, spread(burst(bot("bot"), 6, 0, 0), 1800*time.Microsecond)), 1, 1, 1, 0), 2),
			6, 6, 6, 6, 5},
		// One closed loop, limit 5 per hour, steps 1 ms, round trip 1 ms,
		// 100 ms. An allowed request takes 0.5 + 3 + 0.5 = 4 ms (sent at 0,
		// 4, 8, 12, 16 ms); a denied one skips between: 3 ms (sent at
		// 20 + 3k ms, decided at its read, 1.5 ms after sending). Decided
		// before 100 ms: 21.5 + 3k < 100, k <= 26: 27 denied. 32 requests,
		// 32 reads, 5 writes, nothing lost.
		{"closed loop", singleThread(memoryScenario(5, time.Hour, ms(5), 100*time.Millisecond, closedLoop(bot("bot"), 1, ms(0))), 1, 1, 1, 1),
			32, 5, 32, 5, 0},
		// The same behind a proxy taking 0.5 ms in and 0.5 ms out. An
		// allowed request takes 0.5 + 0.5 + 3 + 0.5 + 0.5 = 5 ms (sent at
		// 0, 5, 10, 15, 20 ms), a denied one 4 ms (sent at 25 + 4k ms,
		// decided at its read, 2 ms after sending). Decided before 100 ms:
		// 27 + 4k < 100, k <= 18: 19 denied. 24 requests, 5 writes.
		{"closed loop behind a proxy", withProxy(singleThread(memoryScenario(5, time.Hour, ms(5), 100*time.Millisecond, closedLoop(bot("bot"), 1, ms(0))), 1, 1, 1, 1), 0.5, 0.5),
			24, 5, 24, 5, 0},
		// The same with a wake-up of 0.25 ms: each request finds the proxy,
		// the server and the proxy again blocked, three wake-ups. An
		// allowed request takes 0.5 + 0.25 + 0.5 + 0.25 + 3 + 0.25 + 0.5 +
		// 0.5 = 5.75 ms (sent at 0, 5.75, ... 23 ms), a denied one 4.75 ms
		// (sent at 28.75 + 4.75k ms, decided at its read 2.5 ms after
		// sending). Decided before 100 ms: 31.25 + 4.75k < 100, k <= 14: 15
		// denied. 20 requests, 5 writes.
		{"closed loop behind a proxy, waking", withWake(withProxy(singleThread(memoryScenario(5, time.Hour, ms(5), 100*time.Millisecond, closedLoop(bot("bot"), 1, ms(0))), 1, 1, 1, 1), 0.5, 0.5), 0.25),
			20, 5, 20, 5, 0},
		// Four at once (a burst: no place in line), limit 5, steps 0.5 ms,
		// no round trip, behind a proxy taking 1.1 ms in and 0.2 ms out.
		// The first, A, finds the proxy idle: a batch of one, on at
		// 1.1 ms; the thread reads "missing" at 1.6, writes "1" at 2.1 and
		// answers at 2.6. The proxy's next batch is B, C, D: B, its
		// first, goes on at 2.2 (the thread is busy: B waits), C and D
		// are held until D has passed (4.4). The thread takes B alone at
		// 2.6: reads "1" at 3.1, writes "2" at 3.6, answers at 4.1. C and
		// D arrive together at 4.4: one batch, both read "2" (4.9, 5.4),
		// both write "3" (5.9, 6.4): D's replaces C's, 1 lost. (Passed
		// one at a time, each on as it passed, C would arrive at 3.3 and
		// D at 4.4, each read alone: nothing lost.)
		{"a burst behind a proxy: its first alone, the rest together", withProxy(singleThread(memoryScenario(5, time.Hour, ms(5), time.Minute, burst(bot("bot"), 4, 0, 0)), 0.5, 0.5, 0.5, 0), 1.1, 0.2),
			4, 4, 4, 4, 1},
		// A closed loop of 3, limit 1, steps 0.1 ms, no round trip, no
		// proxy. Its three first requests leave in line: at 0, 0.15 and
		// 0.185 ms. The first finds the thread idle: a batch of one, reads
		// "missing" at 0.1 ms, writes "1" at 0.2 and answers at 0.3 (and
		// is sent again then, alone). The two others wait in the inbox,
		// read "1" and are denied, as is everything after: 1 allowed. (Sent
		// at one instant, the three would make one batch and all read
		// "missing": 3 allowed.)
		{"a closed loop's first requests leave in line", singleThread(memoryScenario(1, time.Hour, ms(5), 2*time.Millisecond, closedLoop(bot("bot"), 3, ms(0))), 0.1, 0.1, 0.1, 0),
			-1, 1, -1, 1, 0},
		// The same with server.send at 0.05 ms, then 0.01 ms: the three
		// leave at 0, 0.05 and 0.06 ms. The first still finds the thread
		// idle and is a batch of one (it starts at 0): it reads "missing"
		// at 0.1 and writes "1" at 0.2; the two others, in the inbox, then
		// read "1" and are denied: 1 allowed. With a wake-up of 0.1 ms the
		// thread starts at 0.1 ms with all three in the inbox: one batch,
		// three reads of "missing" (0.2, 0.3, 0.4) before the first write:
		// 3 allowed, 2 lost. With the default spacing and that wake-up, the
		// second arrives at 0.15 ms, after the thread took the first alone
		// at 0.1: reads "1" after the write at 0.3, as the third does: 1
		// allowed.
		{"a tighter send spacing, no wake-up", withSend(singleThread(memoryScenario(1, time.Hour, ms(5), 2*time.Millisecond, closedLoop(bot("bot"), 3, ms(0))), 0.1, 0.1, 0.1, 0), 0.05, 0.01),
			-1, 1, -1, 1, 0},
		{"a tighter send spacing, waking", withWake(withSend(singleThread(memoryScenario(1, time.Hour, ms(5), 2*time.Millisecond, closedLoop(bot("bot"), 3, ms(0))), 0.1, 0.1, 0.1, 0), 0.05, 0.01), 0.1),
			-1, 3, -1, 3, 2},
		// The closed loop of one at limit 5 (steps 1 ms, round trip 1 ms,
		// 100 ms; "closed loop" above) with each thread stalling for 2 ms
		// after every 2 ms of its work: every second step is held 2 ms
		// longer. Each allowed request's three steps are 1, 3, 1 ms, then
		// 3, 1, 3 ms (a step ends the thread's 2nd, 4th, ... ms of work),
		// so the five take 6, 8, 6, 8, 6 ms: sent at 0, 6, 14, 20, 28 ms.
		// The denied ones take two steps each: the read ends the thread's
		// 16th, 18th, ... ms of work, so it is held (3 ms), the response
		// is not (1 ms): 0.5 + 3 + 1 + 0.5 = 5 ms, sent at 34 + 5k ms and
		// decided at their read, 3.5 ms after sending. Decided before
		// 100 ms: 37.5 + 5k < 100, k <= 12: 13 denied. 18 requests, 5
		// writes.
		{"a closed loop's steps held by stalls", withStall(singleThread(memoryScenario(5, time.Hour, ms(5), 100*time.Millisecond, closedLoop(bot("bot"), 1, ms(0))), 1, 1, 1, 1), 2, 2),
			18, 5, 18, 5, 0},
		{"the default spacing, waking", withWake(singleThread(memoryScenario(1, time.Hour, ms(5), 2*time.Millisecond, closedLoop(bot("bot"), 3, ms(0))), 0.1, 0.1, 0.1, 0), 0.1),
			-1, 1, -1, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			trials, err := RunTrials(planOf(t, tc.sc), Options{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			tr := trials[0]
			// A requests or reads of -1 is not checked (a closed loop's
			// denied requests, which only the allowed ones are about).
			if tc.requests >= 0 && tr.Totals.Requests != tc.requests || tr.Totals.Allowed != tc.allowed {
				t.Errorf("allowed %d of %d, want %d of %d", tr.Totals.Allowed, tr.Totals.Requests, tc.allowed, tc.requests)
			}
			if tc.reads >= 0 && tr.KV.Reads != tc.reads || tr.KV.Writes != tc.writes || tr.KV.LostUpdates != tc.lostUpdates {
				t.Errorf("kv = %d reads, %d writes, %d lost; want %d, %d, %d", tr.KV.Reads, tr.KV.Writes, tr.KV.LostUpdates, tc.reads, tc.writes, tc.lostUpdates)
			}
		})
	}
}

// TestSingleThreadBetweenBounds checks the two limits docs/serving-side.md
// states: a closed loop of C on one thread lets through between the limit
// and C times it in its first window, and a larger C never fewer in the
// first batch than a smaller one.
func TestSingleThreadBetweenBounds(t *testing.T) {
	for _, c := range []int{1, 2, 8, 32} {
		sc := singleThread(memoryScenario(5, time.Hour, ms(1), 2*time.Second, closedLoop(bot("bot"), c, ms(0))), 0.5, 0.5, 0.5, 0.1)
		trials, err := RunTrials(planOf(t, sc), Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		a := trials[0].Totals.Allowed
		if a < 5 || a > int64(5*c) {
			t.Errorf("C=%d: allowed %d, want between 5 and %d", c, a, 5*c)
		}
		if c == 1 && a != 5 {
			t.Errorf("C=1: allowed %d, want exactly the limit 5", a)
		}
	}
}

// TestProxySplitsBatches checks what the proxy is in the model for: with
// every request passing it one at a time, a closed loop of C no longer
// reaches the server's thread as one batch, so its first window lets
// through less than without the proxy, and still at least the limit.
func TestProxySplitsBatches(t *testing.T) {
	for _, c := range []int{8, 32} {
		allowed := func(proxy bool) int64 {
			sc := singleThread(memoryScenario(5, time.Hour, ms(1), 2*time.Second, closedLoop(bot("bot"), c, ms(0))), 0.5, 0.6, 0.3, 0.1)
			if proxy {
				sc = withProxy(sc, 0.5, 0.5)
			}
			trials, err := RunTrials(planOf(t, sc), Options{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			return trials[0].Totals.Allowed
		}
		without, with := allowed(false), allowed(true)
		if with >= without || with < 5 {
			t.Errorf("C=%d: allowed %d behind the proxy, %d without: want at least the limit 5 and fewer than without", c, with, without)
		}
		t.Logf("C=%d: allowed %d behind the proxy, %d without", c, with, without)
	}
}

// TestBatchMax checks the cap on a batch: 40 requests at once, limit 5,
// steps 1 ms, no round trip. With batches of at most 16, the first batch's
// 16 read "missing" and write "1"; the second's 16 read "1"; the last 8
// read "2": all 40 allowed (5 is not reached). With a cap of 4: batches
// read 0, 1, 2, 3, 4, then 5 (denied) for the rest: 20 allowed.
func TestBatchMax(t *testing.T) {
	for _, tc := range []struct {
		max     int
		allowed int64
	}{{16, 40}, {4, 20}, {100, 40}} {
		sc := singleThread(memoryScenario(5, time.Hour, ms(5), time.Minute, burst(bot("bot"), 40, 0, 0)), 1, 1, 1, 0)
		sc.Server.BatchMax = tc.max
		trials, err := RunTrials(planOf(t, sc), Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if a := trials[0].Totals.Allowed; a != tc.allowed {
			t.Errorf("batch_max %d: allowed %d, want %d", tc.max, a, tc.allowed)
		}
	}
}
