package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

const msec = time.Millisecond

// redisParams are constant timings for transcripts: commands 2 ms,
// replication lag 10 ms, timeout 1 s, down_after 1 s, failover 500 ms,
// reconnect 100 ms; two replicas read from the primary.
func redisParams(tb testing.TB, edit func(r *scenario.Redis)) plan.RedisParams {
	tb.Helper()
	r := scenario.Redis{Replicas: 2, Read: scenario.RedisReadPrimary, ReplicationLag: ms(10), Latency: ms(2),
		Timeout: dur(time.Second), DownAfter: dur(time.Second), Failover: ms(500), Reconnect: ms(100)}
	if edit != nil {
		edit(&r)
	}
	sc := memoryScenario(1, time.Minute, ms(1), time.Minute, closedLoop(bot("b"), 1, ms(1)))
	sc.Store = scenario.Store{Kind: scenario.KindRedis, Redis: &r}
	return planOf(tb, sc).Store.Redis
}

// newTestRedis is a Redis store with p and faults, and counters ready,
// counting lost updates (the values written are counts).
func newTestRedis(tb testing.TB, p plan.RedisParams, faults ...plan.Fault) (*Redis, *measure.KVCounters) {
	tb.Helper()
	ctr := &measure.NewRecorder(measure.Config{Limit: 1, Window: time.Minute, Populations: []measure.Population{{}}}).KV
	s, err := NewRedis(RedisConfig{Params: p, Faults: faults, Rand: TrialRand(1, 0), Counters: ctr})
	if err != nil {
		tb.Fatal(err)
	}
	s.CountIncrements()
	return s, ctr
}

// step is one line of a store transcript: at At, a read of k or a write
// of k=Value (with the version its writer read), and what it must give.
type step struct {
	At    time.Duration
	Op    string // "read" or "write"
	Value string // write: the value; read: the value wanted ("" missing)
	Read  uint64 // write: the version the writer read (0: missing)
	Err   string // an error wanted, "" none
	Lat   time.Duration
}

// play runs a transcript on s, committing each write at its time (the
// store's latency after it), in time order with the other steps, and
// settles its lost updates at the end (the values written are counts).
func play(t *testing.T, s *Redis, steps []step) {
	t.Helper()
	type commit struct {
		at time.Duration
		w  PendingWrite
	}
	var due []commit
	flush := func(until time.Duration) {
		for len(due) > 0 && due[0].at <= until {
			s.Commit(due[0].at, due[0].w)
			due = due[1:]
		}
	}
	for i, st := range steps {
		flush(st.At)
		var err error
		var lat time.Duration
		switch st.Op {
		case "read":
			r := s.Read(st.At, 0, AnyDomain, "k")
			err, lat = r.Err, r.Latency
			if err == nil && (r.Value != st.Value || r.Found != (st.Value != "")) {
				t.Errorf("step %d: read at %v = %q (found %v), want %q", i, st.At, r.Value, r.Found, st.Value)
			}
		case "write":
			var w PendingWrite
			w, lat, err = s.Write(st.At, 0, AnyDomain, "k", st.Value, time.Minute, st.Read)
			if err == nil {
				due = append(due, commit{st.At + lat, w})
				for j := len(due) - 1; j > 0 && due[j].at < due[j-1].at; j-- {
					due[j], due[j-1] = due[j-1], due[j]
				}
			}
		}
		switch {
		case st.Err == "" && err != nil:
			t.Errorf("step %d: %s at %v: %v", i, st.Op, st.At, err)
		case st.Err != "" && (err == nil || !strings.Contains(err.Error(), st.Err)):
			t.Errorf("step %d: %s at %v: error %v, want one containing %q", i, st.Op, st.At, err, st.Err)
		case st.Err != "" && kv.KindOf(err) != kv.Unavailable:
			t.Errorf("step %d: error %v is not Unavailable: the error policy would not see a store failure", i, err)
		}
		if st.Lat != 0 && lat != st.Lat {
			t.Errorf("step %d: %s at %v took %v, want %v", i, st.Op, st.At, lat, st.Lat)
		}
	}
	end := steps[len(steps)-1].At
	if len(due) > 0 {
		end = max(end, due[len(due)-1].at)
	}
	flush(end)
	s.Settle(end)
}

// TestRedisReplicaReads: a replica answers from what it has applied, 10 ms
// after each commit; a read before that is stale and counted, unless it
// returns the count the primary holds (by another write); a write by
// a writer that read the stale copy writes the count again: two
// increments acknowledged, a count of one, a lost update. The primary's
// reads are always fresh.
func TestRedisReplicaReads(t *testing.T) {
	s, ctr := newTestRedis(t, redisParams(t, func(r *scenario.Redis) { r.Replicas, r.Read = 1, scenario.RedisReadReplica }))
	play(t, s, []step{
		{At: 0, Op: "write", Value: "1", Lat: 2 * msec}, // commits at 2 ms, at the replica at 12 ms
		{At: 5 * msec, Op: "read", Value: "", Lat: 2 * msec},
		{At: 11 * msec, Op: "write", Value: "1", Read: 0}, // read missing, replaces version 1 at 13 ms
		{At: 12 * msec, Op: "read", Value: "1"},
		{At: 20 * msec, Op: "read", Value: "1"}, // version 1, the primary version 2 since 13 ms: the same count, fresh
		{At: 23 * msec, Op: "read", Value: "1"}, // version 2 applied at 23 ms: fresh
	})
	if ctr.Reads != 4 || ctr.Writes != 2 || ctr.LostUpdates != 1 || ctr.StaleReads != 1 {
		t.Errorf("reads %d writes %d lost %d stale %d, want 4, 2, 1, 1", ctr.Reads, ctr.Writes, ctr.LostUpdates, ctr.StaleReads)
	}
	// The stale read was outdated since the commit that replaced what it
	// returned: 3 ms (5 - 2).
	if h := ctr.Staleness; h.N != 1 || h.Sum != 3 || h.MaxV != 3 {
		t.Errorf("staleness: %d reads, sum %v ms, max %v ms; want 1, 3, 3", h.N, h.Sum, h.MaxV)
	}
}

// TestRedisFailoverTranscript: the primary is killed at 105 ms, one write
// after the replicas last heard from it. The sentinels see it down at
// 1.105 s and promote at 1.605 s the replica that applied most: replica-2,
// since a link latency holds replica-1 50 ms behind. Clients keep
// failing at once until they reconnect at 1.705 s; the write replica-2
// never applied is a lost update (once, though a writer read it: five
// increments acknowledged, a count of 4 at the end), and the new primary
// answers with what it had.
func TestRedisFailoverTranscript(t *testing.T) {
	s, ctr := newTestRedis(t, redisParams(t, nil),
		plan.Fault{At: 0, Kind: plan.LinkLatency, Target: 0, Latency: 50 * msec},
		plan.Fault{At: 105 * msec, Kind: plan.KillPrimary, Target: plan.TargetPrimary})
	play(t, s, []step{
		{At: 0, Op: "write", Value: "1"},                        // at the primary at 2 ms; replica-2 12 ms, replica-1 52 ms
		{At: 70 * msec, Op: "write", Value: "2", Read: 1},       // version 2 at 72 ms; replica-2 82 ms, replica-1 122 ms: never
		{At: 100 * msec, Op: "write", Value: "3", Read: 2},      // version 3 at 102 ms: no replica has it at 105 ms
		{At: 106 * msec, Op: "read", Err: "EOF", Lat: 6 * msec}, // a sentinel's round trip, a connect, its own
		{At: 1500 * msec, Op: "write", Value: "4", Err: "EOF"},
		{At: 1650 * msec, Op: "read", Err: "EOF"}, // promoted, but clients still on the old one
		{At: 1706 * msec, Op: "read", Value: "2"},
		{At: 1710 * msec, Op: "write", Value: "3", Read: 2},
		// A writer that read the lost version 3 before the kill replaces
		// version 4: the increment it misses is the one already counted.
		{At: 1715 * msec, Op: "write", Value: "4", Read: 3},
		{At: 1720 * msec, Op: "read", Value: "4"},
	})
	if s.Failovers() != 1 || s.Primary() != 2 {
		t.Errorf("failovers %d, primary node %d; want 1 and replica-2 (node 2)", s.Failovers(), s.Primary())
	}
	if ctr.LostUpdates != 1 || ctr.ReadErrors != 2 || ctr.WriteErrors != 1 {
		t.Errorf("lost %d, read errors %d, write errors %d; want 1, 2, 1", ctr.LostUpdates, ctr.ReadErrors, ctr.WriteErrors)
	}
	// replica-1 resynchronised from replica-2: it has version 2 (applied
	// after the promotion) and the new write 10 ms + 50 ms after its
	// commit at 1.712 s.
	s.advance(int64(1771 * msec))
	if e := s.nodes[1].data["k"]; e == nil || e.value != "2" {
		t.Errorf("replica-1 at 1.771 s holds %+v, want 2", e)
	}
	s.advance(int64(1772 * msec))
	if e := s.nodes[1].data["k"]; e == nil || e.value != "3" || s.nodes[1].isPrimary {
		t.Errorf("replica-1 after the failover holds %+v, want the new primary's 3", e)
	}
}

// TestRedisKilledPrimaryRedials: a command to a killed primary fails as
// go-redis's failover client fails it on the harness (measured there: a
// failed INCR took 1.0 to 1.5 ms against 0.34 to 0.72 ms for one
// answered, 8 clients): its dialer asks a sentinel for the primary's
// address (a round trip and a command at the host's thread), connects (a
// round trip, no thread's time), and the command's own round trip ends in
// EOF, its service taken at the thread too. Commands 2 ms; with a
// service of 1 ms on one thread the sentinel's command and the failed one
// each take 1 ms there (8 ms); the atomic update, judged half-way, reaches
// the thread with the sentinel's command and one waits for the other
// (9 ms). A read, a write and the atomic update alike.
func TestRedisKilledPrimaryRedials(t *testing.T) {
	for _, tc := range []struct {
		name      string
		service   time.Duration
		want, upd time.Duration
	}{
		{"no service", 0, 6 * msec, 6 * msec},
		{"service 1ms", msec, 8 * msec, 9 * msec},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := redisParams(t, func(r *scenario.Redis) {
				if tc.service > 0 {
					r.Service, r.Threads, r.Order = ms(float64(tc.service.Milliseconds())), 1, scenario.RedisOrderFIFO
				}
			})
			kill := plan.Fault{At: 100 * msec, Kind: plan.KillPrimary, Target: plan.TargetPrimary}
			s, _ := newTestRedis(t, p, kill)
			if r := s.Read(200*msec, 0, AnyDomain, "k"); r.Err == nil || r.Latency != tc.want {
				t.Errorf("read: %v after %v, want EOF after %v", r.Err, r.Latency, tc.want)
			}
			s, _ = newTestRedis(t, p, kill)
			if _, lat, err := s.Write(200*msec, 0, AnyDomain, "k", "1", time.Minute, 0); err == nil || lat != tc.want {
				t.Errorf("write: %v after %v, want EOF after %v", err, lat, tc.want)
			}
			s, _ = newTestRedis(t, p, kill)
			keys, cur := [2]string{"k"}, [2]limiter.Read{}
			lat := s.UpdateLatency()
			if err := s.Update(200*msec, &keys, 1, &cur); err == nil || lat+s.LastWait() != tc.upd {
				t.Errorf("atomic update: %v after %v, want EOF after %v", err, lat+s.LastWait(), tc.upd)
			}
		})
	}
}

// TestRedisDefaultFailoverGap: with the harness's down_after (1 s), the
// defaults' gap without a primary (down_after, failover, reconnect) is the
// one measured on the harness's loopback cluster: errors from the kill
// to 2.18-2.30 s after it, 8 clients through go-redis's failover client,
// the sentinels naming the promoted replica 2.18-2.27 s after the kill
// (11 failovers). 90% of draws inside 2.1-2.45 s.
func TestRedisDefaultFailoverGap(t *testing.T) {
	r := scenario.DefaultRedis()
	r.DownAfter = dur(time.Second)
	sc := memoryScenario(1, time.Minute, ms(1), time.Minute, closedLoop(bot("b"), 1, ms(1)))
	sc.Store = scenario.Store{Kind: scenario.KindRedis, Redis: &r}
	p := planOf(t, sc).Store.Redis
	rng := TrialRand(1, 0)
	const n = 1000
	in := 0
	for range n {
		gap := p.DownAfter + p.Failover.Sample(rng) + p.Reconnect.Sample(rng)
		if gap >= 2100*msec && gap <= 2450*msec {
			in++
		}
	}
	if in < n*9/10 {
		t.Errorf("%d of %d default gaps inside 2.1-2.45 s, want 90%% (failover %v, reconnect %v)", in, n, r.Failover, r.Reconnect)
	}
}

// TestRedisPauseAndPartition: a primary paused for less than down_after
// makes clients wait (and time out past the client timeout) but is not
// failed over; a partition longer than down_after is: the old primary keeps
// taking its clients' writes until they reconnect, and every write it took
// that the promoted replica never had is lost when it rejoins (four
// increments acknowledged, a count of 2 at the end).
func TestRedisPauseAndPartition(t *testing.T) {
	s, ctr := newTestRedis(t, redisParams(t, nil),
		plan.Fault{At: 10 * msec, Kind: plan.Pause, Target: plan.TargetPrimary, For: 300 * msec},
		plan.Fault{At: 2 * time.Second, Kind: plan.Partition, Target: plan.TargetPrimary, For: 5 * time.Second})
	play(t, s, []step{
		{At: 0, Op: "write", Value: "1"},
		{At: 100 * msec, Op: "read", Value: "1", Lat: 212 * msec}, // answered when the pause ends at 310 ms
		{At: 500 * msec, Op: "write", Value: "2", Read: 1},
		{At: 2100 * msec, Op: "write", Value: "3", Read: 2}, // partitioned: taken, never replicated
		{At: 3000 * msec, Op: "read", Value: "3"},
		// Detected at 3 s, promoted at 3.5 s (replica-1: a tie, the first), clients there at 3.6 s.
		{At: 3550 * msec, Op: "write", Value: "4", Read: 3}, // still to the old primary: lost
		{At: 3700 * msec, Op: "read", Value: "2"},
		{At: 8000 * msec, Op: "read", Value: "2"},
	})
	if s.Failovers() != 1 || s.Primary() != 1 {
		t.Errorf("failovers %d, primary %d; want 1 and node 1", s.Failovers(), s.Primary())
	}
	if ctr.LostUpdates != 2 || ctr.ReadErrors != 0 {
		t.Errorf("lost %d read errors %d, want 2 (the writes of 2.1 s and 3.55 s) and 0", ctr.LostUpdates, ctr.ReadErrors)
	}
	if e := s.nodes[0].data["k"]; s.nodes[0].isPrimary || e == nil || e.value != "2" {
		t.Errorf("the old primary after the partition: primary %v, holds %+v; want a replica holding 2", s.nodes[0].isPrimary, e)
	}
	// A pause past the client timeout fails the command after it.
	s2, _ := newTestRedis(t, redisParams(t, nil), plan.Fault{At: 50 * msec, Kind: plan.Pause, Target: plan.TargetPrimary, For: 2 * time.Second})
	play(t, s2, []step{{At: 0, Op: "read", Value: ""}, {At: 100 * msec, Op: "read", Err: "timeout", Lat: time.Second}})
}

// TestRedisWait: WAIT 1 answers when the first replica applied the write;
// with a replica paused and WAIT 2, after wait_timeout; and a WAIT longer
// than the client's timeout fails the request, the write committed all
// the same.
func TestRedisWait(t *testing.T) {
	s, ctr := newTestRedis(t, redisParams(t, func(r *scenario.Redis) { r.Wait = 1 }))
	// Committed half-way, at 1 ms, applied at 11 ms; WAIT, sent with the
	// write's answer at 2 ms, answered 1 ms after that.
	play(t, s, []step{{At: 0, Op: "write", Value: "1", Lat: 12 * msec}, {At: 3 * msec, Op: "read", Value: "1"}})
	s, _ = newTestRedis(t, redisParams(t, func(r *scenario.Redis) { r.Wait, r.WaitTimeout = 2, dur(100*msec) }),
		plan.Fault{At: 0, Kind: plan.Pause, Target: 1})
	// Committed at 2 ms, WAIT times out at 102 ms, answered at 103 ms.
	play(t, s, []step{{At: 1 * msec, Op: "write", Value: "1", Lat: 102 * msec}})
	s, ctr = newTestRedis(t, redisParams(t, func(r *scenario.Redis) { r.Wait = 2 }),
		plan.Fault{At: 0, Kind: plan.Pause, Target: 1})
	play(t, s, []step{{At: 1 * msec, Op: "write", Value: "1", Err: "WAIT 2: timeout", Lat: 1002 * msec},
		{At: 10 * msec, Op: "read", Value: "1"}})
	if ctr.WriteErrors != 1 {
		t.Errorf("write errors %d, want 1", ctr.WriteErrors)
	}
}

// TestRedisFailoverLosesUnapplied: under random lags and a steady stream
// of increments to seven keys until the kill, the lost updates are
// exactly the writes the primary had committed that the promoted replica
// had not applied, and those sent before the kill and due after it (the
// increments acknowledged less the counts the promoted replica holds),
// and the promoted replica is the one that had applied most.
func TestRedisFailoverLosesUnapplied(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		p := redisParams(t, func(r *scenario.Redis) {
			r.Replicas = 3
			r.ReplicationLag = scenario.Lognormal(20*msec, 200*msec)
			r.Latency = scenario.Lognormal(msec, 5*msec)
		})
		kill := time.Duration(500+seed*37) * msec
		ctr := &measure.NewRecorder(measure.Config{Limit: 1, Window: time.Minute, Populations: []measure.Population{{}}}).KV
		s, err := NewRedis(RedisConfig{Params: p, Rand: TrialRand(seed, 1), Counters: ctr,
			Faults: []plan.Fault{{At: kill, Kind: plan.KillPrimary, Target: plan.TargetPrimary}}})
		if err != nil {
			t.Fatal(err)
		}
		s.CountIncrements()
		var counts [7]int
		var applied [4]uint64
		var committed, best, window uint64
		type commit struct {
			at time.Duration
			w  PendingWrite
		}
		var due []commit // in time order
		for at := time.Duration(0); at < 3*time.Second; at += msec {
			for len(due) > 0 && due[0].at <= at {
				s.Commit(due[0].at, due[0].w)
				due = due[1:]
			}
			if at == kill {
				s.advance(int64(kill))
				for i, nd := range s.nodes {
					applied[i] = nd.seq
				}
				committed, best = applied[0], max(applied[1], applied[2], applied[3])
			}
			if at >= kill {
				continue
			}
			k := at / msec % 7
			w, lat, err := s.Write(at, 0, AnyDomain, fmt.Sprintf("k%d", k), strconv.Itoa(counts[k]+1), time.Minute, UnknownVersion)
			if err != nil {
				continue
			}
			counts[k]++
			if at < kill && at+lat >= kill {
				window++ // sent before the kill, due after: lost with the primary
			}
			i := len(due)
			due = append(due, commit{at + lat, w})
			for ; i > 0 && due[i].at < due[i-1].at; i-- {
				due[i], due[i-1] = due[i-1], due[i]
			}
		}
		s.Settle(3 * time.Second)
		if s.Failovers() != 1 || s.nodes[s.Primary()].seq < best || applied[s.Primary()] != best {
			t.Errorf("seed %d: promoted node %d (applied %d), want one that applied the most, %d", seed, s.Primary(), applied[s.Primary()], best)
		}
		if want := committed - best + window; ctr.LostUpdates != int64(want) || committed == best {
			t.Errorf("seed %d: %d lost updates, want %d: committed %d, promoted replica applied %d, %d due after the kill",
				seed, ctr.LostUpdates, want, committed, best, window)
		}
	}
}

// TestRedisMatchesMemory: with no lag, no faults and reads at the primary,
// the redis store is the memory store: the same summary for the same seed.
func TestRedisMatchesMemory(t *testing.T) {
	lat := scenario.Lognormal(msec, 5*msec)
	traffic := []scenario.Population{closedLoop(bot("a"), 4, scenario.Constant(0)), closedLoop(bot("b"), 2, ms(3))}
	traffic[1].Clients = 3
	mem := memoryScenario(5, 10*time.Second, lat, 25*time.Second, traffic...)
	mem.Trials = 3
	red := memoryScenario(5, 10*time.Second, lat, 25*time.Second, traffic...)
	red.Trials = 3
	red.Store = scenario.Store{Kind: scenario.KindRedis, Redis: &scenario.Redis{Replicas: 2, Read: scenario.RedisReadPrimary,
		ReplicationLag: ms(0), Latency: lat, Timeout: dur(time.Second), DownAfter: dur(time.Second), Failover: ms(1), Reconnect: ms(1)}}
	run := func(sc *scenario.Scenario) string {
		s, err := Run(planOf(t, sc), Options{Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		s.Limiter.Store, s.Scenario, s.Cost = "", measure.ScenarioRef{}, measure.Cost{}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	m, r := run(mem), run(red)
	if m != r {
		t.Errorf("redis without lag or faults differs from memory:\nmemory %s\nredis  %s", m, r)
	}
	if !strings.Contains(m, `"lost_updates":`) {
		t.Errorf("summary has no lost updates: %s", m)
	}
}

// TestRedisRefusesBadConfig: NewRedis names what is wrong.
func TestRedisRefusesBadConfig(t *testing.T) {
	p := redisParams(t, nil)
	_, err := NewRedis(RedisConfig{Params: p, Rand: TrialRand(1, 0), Faults: []plan.Fault{{Kind: plan.Pause, Target: 5}}})
	if err == nil || !strings.Contains(err.Error(), "targets replica-6 but there are 2 replicas") {
		t.Errorf("fault on a missing replica: %v", err)
	}
	if _, err := NewRedis(RedisConfig{Params: p}); err == nil {
		t.Error("no random source: no error")
	}
	var ke *kv.Error
	s, _ := newTestRedis(t, p)
	if _, _, err := s.Write(0, 0, AnyDomain, "k", "1", 500*msec, 0); !errors.As(err, &ke) || ke.Kind != kv.InvalidTTL {
		t.Errorf("a TTL under a second: %v, want InvalidTTL (EX takes whole seconds)", err)
	}
}

// TestRedisFailoverRun: one client, a command 1 ms, think 9 ms, the
// primary killed at 1 s. Until the clients reconnect at 2.6 s (down_after
// 1 s, failover 500 ms, reconnect 100 ms) every read fails after the
// client's redial (a sentinel's round trip and a connect, 1 ms each) and
// its own 1 ms, and the error policy lets the request through: 134
// fail-opens, each a 12 ms cycle. The writes that commit at 981 ms and 992 ms (every 11 ms,
// 2 ms after each send) reach the replica 20 ms later, after the kill:
// 2 lost updates. The same plan on another store kind is refused.
func TestRedisFailoverRun(t *testing.T) {
	sc := memoryScenario(1_000_000, time.Minute, ms(1), 4*time.Second, closedLoop(bot("a"), 1, ms(9)))
	sc.Store = scenario.Store{Kind: scenario.KindRedis, Redis: &scenario.Redis{Replicas: 1, Read: scenario.RedisReadPrimary,
		ReplicationLag: ms(20), Latency: ms(1), Timeout: dur(time.Second), DownAfter: dur(time.Second), Failover: ms(500), Reconnect: ms(100)}}
	sc.Faults = []scenario.Fault{{At: dur(time.Second), Kind: scenario.FaultKillPrimary, Target: scenario.FaultTargetPrimary}}
	pl := planOf(t, sc)
	s, err := Run(pl, Options{Trials: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s.Totals.FailOpen != 134 || s.KV.ReadErrors != 134 {
		t.Errorf("fail-open %d, read errors %d; want 134 and 134", s.Totals.FailOpen, s.KV.ReadErrors)
	}
	if s.KV.LostUpdates != 2 {
		t.Errorf("lost updates %d, want 2", s.KV.LostUpdates)
	}
	if _, err := Run(pl.WithStore(plan.Memory), Options{Trials: 1}); err == nil || !strings.Contains(err.Error(), "faults: store kind memory does not model faults") {
		t.Errorf("faults on the memory store: %v", err)
	}
}

// TestRedisStaleAgainstAcknowledged: a replica read is judged against the
// latest write acknowledged before it was sent, as a live client (and
// redis.Ledger) can judge it: a read sent while a write is committed but
// not yet answered, returning the count before it, is fresh; one sent
// after the answer, returning the same, is stale; one sent before the
// key's first write was answered is no read of a written key.
func TestRedisStaleAgainstAcknowledged(t *testing.T) {
	s, ctr := newTestRedis(t, redisParams(t, func(r *scenario.Redis) { r.Replicas, r.Read = 1, scenario.RedisReadReplica }))
	write := func(at time.Duration, value string) {
		w, effect, answer, err := s.WriteHalf(at, 0, AnyDomain, "k", value, time.Minute, UnknownVersion)
		if err != nil || effect != msec || answer != 2*msec {
			t.Fatalf("write at %v: effect %v, answer %v, %v; want 1ms, 2ms", at, effect, answer, err)
		}
		s.Commit(at+effect, w)
	}
	reads := func() (n int64) {
		for _, r := range ctr.VisReads {
			n += r
		}
		return n
	}
	write(0, "1") // committed at 1 ms, answered at 2 ms, at the replica at 11 ms
	if r := s.ReadHalf(1500*time.Microsecond, 2*msec, 0, AnyDomain, "k"); r.Found || reads() != 0 {
		t.Errorf("a read sent at 0.5 ms: found %v, %d reads of a written key; want nothing yet", r.Found, reads())
	}
	write(10*msec, "2") // committed at 11 ms, answered at 12 ms, at the replica at 21 ms
	if r := s.ReadHalf(11500*time.Microsecond, 2*msec, 0, AnyDomain, "k"); r.Value != "1" || ctr.StaleReads != 0 {
		t.Errorf("a read sent at 10.5 ms: %q, %d stale; want 1, fresh (2 not yet answered)", r.Value, ctr.StaleReads)
	}
	if r := s.ReadHalf(13*msec, 2*msec, 0, AnyDomain, "k"); r.Value != "1" || ctr.StaleReads != 1 {
		t.Errorf("a read sent at 12 ms: %q, %d stale; want 1, stale (2 answered)", r.Value, ctr.StaleReads)
	}
	if reads() != 2 {
		t.Errorf("%d reads of a written key, want 2", reads())
	}
}

// TestRedisKillCutsAnswers: the primary killed at 100 ms with its links
// cut holds the answers of the commands it took before (judged half-way,
// 1 ms after a 2 ms round trip's send): a read or an atomic update taken
// by the node before the kill and answering after it times out after the
// client's timeout (1 s), one answered before the kill or sent to the dead
// node does not; a write answers as before (its acknowledgement is the
// ledger's, parity_test.go).
func TestRedisKillCutsAnswers(t *testing.T) {
	kill := plan.Fault{At: 100 * msec, Kind: plan.KillPrimary, Target: plan.TargetPrimary}
	for _, tc := range []struct {
		name string
		sent time.Duration
		cut  bool
	}{
		{"answered before the kill", 97 * msec, false},
		{"taken well before the kill, answered after", 98200 * time.Microsecond, true},
		{"taken just before the kill, answered after", 98900 * time.Microsecond, true},
		{"reaching the dead node", 99500 * time.Microsecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := redisParams(t, nil)
			s, _ := newTestRedis(t, p, kill)
			r := s.Read(tc.sent, 0, AnyDomain, "k")
			if cut := r.Err != nil && r.Latency == time.Second; cut != tc.cut {
				t.Errorf("read sent at %v: %v after %v; want cut (a timeout after 1s) %v", tc.sent, r.Err, r.Latency, tc.cut)
			}
			s, _ = newTestRedis(t, p, kill)
			keys, cur := [2]string{"k"}, [2]limiter.Read{}
			there, back := half(s.UpdateLatency())
			at := tc.sent + there
			if err := s.Update(at, &keys, 1, &cur); err == nil {
				lat, err := s.CutUpdate(at, at+back+s.LastWait(), "k")
				if cut := err != nil && lat == time.Second; cut != tc.cut {
					t.Errorf("atomic update taken at %v: cut %v after %v; want cut %v", at, err, lat, tc.cut)
				}
			} else if tc.cut {
				t.Errorf("atomic update taken at %v: %v, want it taken and its answer cut", at, err)
			}
			s, _ = newTestRedis(t, p, kill)
			if _, _, err := s.Write(tc.sent, 0, AnyDomain, "k", "1", time.Minute, 0); err != nil && tc.sent < 99*msec {
				t.Errorf("write sent at %v: %v, want it answered as before", tc.sent, err)
			}
		})
	}
}
