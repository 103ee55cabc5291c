package model

import (
	"strings"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// TestRedisServiceTranscript: with store.redis.service, a command waits
// for the commands that reached its node's thread before it and is served
// for the service time; the wait delays its answer, not its effect. Round
// trips 2 ms (1 ms each way), service 1 ms, constant.
func TestRedisServiceTranscript(t *testing.T) {
	tests := []struct {
		name string
		at   time.Duration // when the command is sent (read: when it arrives)
		op   string        // read, write, update
		want time.Duration // read: its answer after at; write and update: after they are sent
		err  string
	}{
		// The thread is idle: 1 ms service, then the 1 ms way back.
		{"first read", 1 * msec, "read", 2 * msec, ""},
		// Arrives with the first: waits for it until 2 ms, served to 3 ms.
		{"second read", 1 * msec, "read", 3 * msec, ""},
		// Sent at 1 ms, arrives at 2 ms: waits to 3 ms, served to 4 ms,
		// answered at 5 ms.
		{"write", 1 * msec, "write", 4 * msec, ""},
		// The thread is idle again at 4 ms: this one is served at once.
		{"late read", 10 * msec, "read", 2 * msec, ""},
		// An atomic update sent at 9 ms arrives at 10 ms behind the late
		// read: waits to 11 ms, served to 12 ms: LastWait 2 ms.
		{"update", 10 * msec, "update", 2 * msec, ""},
	}
	s, _ := newTestRedis(t, redisParams(t, func(r *scenario.Redis) { r.Service, r.Order = ms(1), scenario.RedisOrderFIFO }))
	for _, tt := range tests {
		var got time.Duration
		var err error
		switch tt.op {
		case "read":
			r := s.ReadHalf(tt.at, 2*msec, 0, AnyDomain, "k")
			got, err = r.Latency, r.Err
		case "write":
			var effect time.Duration
			var w PendingWrite
			w, effect, got, err = s.WriteHalf(tt.at, 0, AnyDomain, "k", "1", time.Minute, 0)
			if err == nil && effect != msec {
				t.Errorf("%s: takes effect %v after it is sent, want 1ms (half-way, when it reaches the thread)", tt.name, effect)
			}
			if err == nil {
				s.Commit(tt.at+effect, w)
			}
		case "update":
			var cur [2]limiter.Read
			err = s.Update(tt.at, &[2]string{"k"}, 1, &cur)
			got = s.LastWait()
			if err == nil && (!cur[0].Found || cur[0].Value != "1") {
				t.Errorf("%s: read %+v, want the write's 1", tt.name, cur[0])
			}
		}
		if tt.err == "" && err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
		if got != tt.want {
			t.Errorf("%s at %v: %v, want %v", tt.name, tt.at, got, tt.want)
		}
	}
}

// TestRedisCopiesTakeNoCapacity: a write's copies to the replicas take
// none of the host's thread (on the validation's host a request that
// writes costs no more at C = 32 than its two commands do: matrices R1 and
// R2, docs/validation.md), so a command arriving after the write waits
// for the write alone, whatever the replicas. Round trips 2 ms (1 ms each
// way), service 1 ms, constant, one thread.
func TestRedisCopiesTakeNoCapacity(t *testing.T) {
	for _, tt := range []struct {
		replicas int
		want     time.Duration // the read's answer after it arrives at 2 ms
	}{
		{0, 2 * msec}, // the write served 1-2 ms; the read 2-3 ms, back at 4 ms
		{1, 2 * msec},
		{2, 2 * msec},
	} {
		s, _ := newTestRedis(t, redisParams(t, func(r *scenario.Redis) { r.Replicas, r.Service, r.Order = tt.replicas, ms(1), scenario.RedisOrderFIFO }))
		w, effect, _, err := s.WriteHalf(0, 0, AnyDomain, "k", "1", time.Minute, 0)
		if err != nil {
			t.Fatal(err)
		}
		s.Commit(effect, w)
		if r := s.ReadHalf(2*msec, 2*msec, 0, AnyDomain, "k"); r.Err != nil || r.Latency != tt.want {
			t.Errorf("%d replicas: the read's answer %v after it arrives (%v), want %v", tt.replicas, r.Latency, r.Err, tt.want)
		}
	}
}

// TestRedisServiceTimeout: a wait at the thread longer than the client's
// timeout fails the command, as an unanswered command does.
func TestRedisServiceTimeout(t *testing.T) {
	s, _ := newTestRedis(t, redisParams(t, func(r *scenario.Redis) { r.Service, r.Order = ms(600), scenario.RedisOrderFIFO }))
	if r := s.ReadHalf(msec, 2*msec, 0, AnyDomain, "k"); r.Err != nil {
		t.Fatalf("first read: %v", r.Err)
	}
	r := s.ReadHalf(msec, 2*msec, 0, AnyDomain, "k")
	if r.Err == nil || !strings.Contains(r.Err.Error(), "timeout") {
		t.Errorf("a read served 1.2 s after it arrived, timeout 1 s: %v, want a timeout", r.Err)
	}
}

// TestRedisServiceThroughput: through the engine, C requests kept in
// flight get through the thread at one command per service time (and
// one request_service per request before its first command), so the
// request rate stops growing with C; without either it grows with C.
// Every request is allowed (GET and SET: two commands; the SET's copy to
// the one replica takes none of the thread). In arrival order (fifo) the
// bounds are the thread's; in no fixed order (random) a request can be
// answered before the work ahead of it is done, so a run of 1 s can
// count up to what is in flight more (each request's work borrowed once,
// as the queue fills), and no more.
func TestRedisServiceThroughput(t *testing.T) {
	tests := []struct {
		conc     int
		service  scenario.Latency
		request  scenario.Latency
		min, max int64 // requests in 1 s, in arrival order
	}{
		{1, scenario.Latency{}, scenario.Latency{}, 4900, 5000},   // 2 x 100 us a request
		{8, scenario.Latency{}, scenario.Latency{}, 39000, 40100}, // 8 in flight
		{1, ms(0.5), scenario.Latency{}, 830, 840},                // 2 x (100 us + 500 us)
		{8, ms(0.5), scenario.Latency{}, 990, 1010},               // the thread: 2 x 500 us a request
		{32, ms(0.5), scenario.Latency{}, 990, 1010},              // no more with more in flight
		{1, ms(0.5), ms(1), 450, 460},                             // 1 ms, then 2 x (100 us + 500 us)
		{8, ms(0.5), ms(1), 495, 505},                             // the thread: 1 ms + 2 x 500 us a request
		{8, scenario.Latency{}, ms(1), 900, 1000},                 // at most one a 1 ms; commands wait their turn too
	}
	for _, order := range []string{scenario.RedisOrderFIFO, scenario.RedisOrderRandom} {
		for _, tt := range tests {
			sc := memoryScenario(1_000_000, time.Minute, ms(0.1), time.Second, closedLoop(bot("a"), tt.conc, scenario.Constant(0)))
			sc.Store = scenario.Store{Kind: scenario.KindRedis, Redis: &scenario.Redis{Replicas: 1, Read: scenario.RedisReadPrimary, Order: order,
				ReplicationLag: ms(1), Latency: ms(0.1), Service: tt.service, RequestService: tt.request, Timeout: dur(time.Second), DownAfter: dur(time.Second), Failover: ms(500), Reconnect: ms(100)}}
			s, err := Run(planOf(t, sc), Options{Trials: 1})
			if err != nil {
				t.Fatal(err)
			}
			lo, hi := tt.min, tt.max
			if order == scenario.RedisOrderRandom && (!tt.service.IsZero() || !tt.request.IsZero()) {
				lo, hi = tt.min*97/100, tt.max+int64(tt.conc)
			}
			if n := s.Totals.Requests; n < lo || n > hi {
				t.Errorf("%s, C = %d, service %v, request service %v: %d requests in 1 s, want %d to %d", order, tt.conc, tt.service, tt.request, n, lo, hi)
			}
		}
	}
}

// TestRedisThreads: with store.redis.threads the host serves that many at
// once, so the request rate a saturated host allows grows with them; with
// one, commands never overlap.
func TestRedisThreads(t *testing.T) {
	for _, tt := range []struct {
		threads  int
		min, max int64 // requests in 1 s at C = 8: 2 x 500 us each (GET, SET; the copy to the replica takes none)
	}{{0, 990, 1010}, {1, 990, 1010}, {2, 1980, 2010}, {4, 3950, 4010}} {
		sc := memoryScenario(1_000_000, time.Minute, ms(0.1), time.Second, closedLoop(bot("a"), 8, scenario.Constant(0)))
		sc.Store = scenario.Store{Kind: scenario.KindRedis, Redis: &scenario.Redis{Replicas: 1, Read: scenario.RedisReadPrimary, Threads: tt.threads,
			ReplicationLag: ms(1), Latency: ms(0.1), Service: ms(0.5), Timeout: dur(time.Second), DownAfter: dur(time.Second), Failover: ms(500), Reconnect: ms(100)}}
		s, err := Run(planOf(t, sc), Options{Trials: 1})
		if err != nil {
			t.Fatal(err)
		}
		if n := s.Totals.Requests; n < tt.min || n > tt.max {
			t.Errorf("%d threads: %d requests in 1 s, want %d to %d", tt.threads, n, tt.min, tt.max)
		}
	}
}

// TestRedisReplicaWaitsForTheHost: in arrival order (order: fifo) a
// write's copy reaches a replica its replication lag after the commit
// plus the host's backlog then (what work reaching the thread would
// wait), so a replica falls behind while the host is busy and catches up
// once it is idle; in no fixed order (random, the default), and without
// a service time, it waits its lag alone: a read's wait is drawn as the
// copy's would be, and the read takes effect when it arrives. Lag 1 ms,
// service 1 ms, constant, one thread.
func TestRedisReplicaWaitsForTheHost(t *testing.T) {
	for _, tc := range []struct {
		name   string
		queued bool
		order  string
		busy   time.Duration // the backlog the copy waits while the host is busy to 3 ms
	}{
		{"fifo", true, scenario.RedisOrderFIFO, 3 * msec},
		{"random", true, scenario.RedisOrderRandom, 0},
		{"no service", false, scenario.RedisOrderFIFO, 0},
	} {
		s, _ := newTestRedis(t, redisParams(t, func(r *scenario.Redis) {
			r.Replicas, r.ReplicationLag, r.Order = 1, ms(1), tc.order
			if tc.queued {
				r.Service = ms(1)
			}
		}))
		var replica *rnode
		for _, nd := range s.nodes {
			if !nd.isPrimary {
				replica = nd
			}
		}
		if got := s.lag(replica, 0); got != int64(msec) {
			t.Errorf("%s, the host idle: lag %v, want 1ms", tc.name, time.Duration(got))
		}
		for range 3 {
			s.serve(0) // the thread busy until 3 ms
		}
		if got := s.lag(replica, 0); got != int64(msec+tc.busy) {
			t.Errorf("%s, the host busy: lag %v, want %v", tc.name, time.Duration(got), msec+tc.busy)
		}
		if got := s.lag(replica, int64(5*msec)); got != int64(msec) {
			t.Errorf("%s, the host idle again: lag %v, want 1ms", tc.name, time.Duration(got))
		}
	}
}

// TestRedisRandomOrder: in no fixed order (the default) work that finds
// the host busy waits a uniform share of what is ahead of it, never more
// than in arrival order and never less than its own service, while the
// core stays busy for every piece's service as in arrival order. One
// thread, service 1 ms, constant: the k-th of n commands reaching it at
// once waits (k-1) ms in arrival order.
func TestRedisRandomOrder(t *testing.T) {
	s, _ := newTestRedis(t, redisParams(t, func(r *scenario.Redis) { r.Service = ms(1) }))
	const n = 2000
	var sum float64
	for k := range n {
		d := s.serve(0)
		if d < int64(msec) || d > int64(k+1)*int64(msec) {
			t.Fatalf("command %d: done %v after it arrived, want 1ms to %v", k+1, time.Duration(d), time.Duration(k+1)*msec)
		}
		sum += float64(d-int64(msec)) / float64(k*int(msec)+1)
	}
	if mean := sum / n; mean < 0.45 || mean > 0.55 {
		t.Errorf("mean share of the wait ahead: %.3f, want about 0.5 (uniform)", mean)
	}
	if got := s.q.free[0]; got != n*int64(msec) {
		t.Errorf("the thread is busy to %v, want %v (every command's service)", time.Duration(got), n*msec)
	}
}

// TestLatencyClock: a redis store whose requests take their own time at
// the host (store.redis.request_service) predicts the attacker's clock, so
// the summary says so for compare; without it, and on the other stores,
// the model's latency is the store's parts alone.
func TestLatencyClock(t *testing.T) {
	redis := func(request scenario.Latency) scenario.Store {
		return scenario.Store{Kind: scenario.KindRedis, Redis: &scenario.Redis{Replicas: 2, Read: scenario.RedisReadPrimary,
			ReplicationLag: ms(10), Latency: ms(2), Timeout: dur(time.Second), DownAfter: dur(time.Second), Failover: ms(500),
			Reconnect: ms(100), Service: ms(0.05), RequestService: request}}
	}
	tests := []struct {
		name  string
		store scenario.Store
		want  string
	}{
		{"memory", scenario.Store{}, ""},
		{"redis without request_service", redis(scenario.Latency{}), ""},
		{"redis with request_service", redis(ms(0.04)), measure.ClockClient},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc := memoryScenario(1, time.Minute, ms(1), time.Minute, closedLoop(bot("b"), 1, ms(1)))
			if tc.store.Kind != "" {
				sc.Store = tc.store
			}
			if got := Base(planOf(t, sc), 1).LatencyClock; got != tc.want {
				t.Errorf("LatencyClock %q, want %q", got, tc.want)
			}
		})
	}
}
