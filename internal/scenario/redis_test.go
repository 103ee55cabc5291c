package scenario

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// redisBase is a minimal scenario on the redis store; cases append to it.
const redisBase = "limiter: {limit: 5, window: 1m}\nduration: 2m\ntraffic: [{name: a, closed_loop: {}}]\n"

// TestRedisSchema checks store.redis and faults: their defaults, and each
// error naming its field, its position and what to give.
func TestRedisSchema(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"defaults", "store: {kind: redis}\n", ""},
		{"replica reads", "store: {kind: redis, redis: {read: replica, replicas: 1, wait: 1, wait_timeout: 10ms}}\n", ""},
		{"bad read", "store: {kind: redis, redis: {read: nearest}}\n", `x.yaml:1:36: store.redis.read: "nearest" is unknown: use primary or replica`},
		{"replica reads without replicas", "store: {kind: redis, redis: {read: replica, replicas: 0}}\n", "store.redis.read: is replica but store.redis.replicas is 0"},
		{"too many replicas", "store: {kind: redis, redis: {replicas: 65}}\n", "store.redis.replicas: 65 is out of range: give 0 to 64"},
		{"wait over replicas", "store: {kind: redis, redis: {wait: 3}}\n", "store.redis.wait: 3 is out of range: give 0 (no WAIT) to store.redis.replicas (2)"},
		{"zero timeout", "store: {kind: redis, redis: {timeout: 0s}}\n", "store.redis.timeout: must be above 0"},
		{"zero down_after", "store: {kind: redis, redis: {down_after: 0s}}\n", "store.redis.down_after: must be above 0"},
		{"bad lag", "store: {kind: redis, redis: {replication_lag: {dist: uniform, min: 2ms, max: 1ms}}}\n", "store.redis.replication_lag:"},
		{"service", "store: {kind: redis, redis: {service: {dist: lognormal, median: 50us, p99: 200us}}}\n", ""},
		{"bad service", "store: {kind: redis, redis: {service: {dist: lognormal, median: 0s, p99: 1ms}}}\n", "x.yaml:1:39: store.redis.service: lognormal median must be above 0"},
		{"threads", "store: {kind: redis, redis: {threads: 2, service: 50us}}\n", ""},
		{"bad threads", "store: {kind: redis, redis: {threads: -1}}\n", "store.redis.threads: -1 is out of range: give 1 to 1024"},
		{"kill", "store: {kind: redis}\nfaults: [{at: 30s, kind: kill-primary}]\n", ""},
		{"every kind", "store: {kind: redis}\nfaults: [{at: 1s, kind: pause, target: replica-2, for: 5s}, {at: 2s, kind: link-latency, target: replicas, latency: 200ms, jitter: 50ms},\n  {at: 3s, kind: partition, for: 40s}, {at: 90s, kind: kill-primary, target: primary}]\n", ""},
		{"faults on kv", "faults: [{at: 30s, kind: kill-primary}]\n", "x.yaml:1:9: faults: are given but store.kind is kv: only store.kind redis models faults"},
		{"unknown kind", "store: {kind: redis}\nfaults: [{at: 30s, kind: reboot}]\n", `x.yaml:2:26: faults.0.kind: "reboot" is unknown: use one of kill-primary, pause, link-latency, partition`},
		{"after the end", "store: {kind: redis}\nfaults: [{at: 2m, kind: kill-primary}]\n", "faults.0.at: 2m is outside the run"},
		{"no such replica", "store: {kind: redis}\nfaults: [{at: 1s, kind: pause, target: replica-3}]\n", `faults.0.target: "replica-3" names no replica: the store has 2`},
		{"replica-0", "store: {kind: redis}\nfaults: [{at: 1s, kind: pause, target: replica-0}]\n", `faults.0.target: "replica-0" is not a target of pause`},
		{"kill a replica", "store: {kind: redis}\nfaults: [{at: 1s, kind: kill-primary, target: replica-1}]\n", `faults.0.target: "replica-1" is not a target of kill-primary: give primary`},
		{"latency of the primary", "store: {kind: redis}\nfaults: [{at: 1s, kind: link-latency, target: primary, latency: 1s}]\n", "give replica-N or replicas"},
		{"pause needs a target", "store: {kind: redis}\nfaults: [{at: 1s, kind: pause}]\n", `faults.0.target: "" is not a target of pause`},
		{"kill for", "store: {kind: redis}\nfaults: [{at: 1s, kind: kill-primary, for: 5s}]\n", "faults.0.for: is 5s but a killed primary does not come back"},
		{"latency on a pause", "store: {kind: redis}\nfaults: [{at: 1s, kind: pause, target: primary, latency: 5ms}]\n", "faults.0.latency: latency and jitter are set but kind is pause"},
		{"link-latency without latency", "store: {kind: redis}\nfaults: [{at: 1s, kind: link-latency, target: replica-1}]\n", "faults.0.latency: is missing"},
		{"atomic with wait", "limiter: {limit: 5, window: 1m, update: atomic}\nstore: {kind: redis, redis: {wait: 1}}\n", "store.redis.wait: 1 with limiter.update atomic"},
		{"atomic", "limiter: {limit: 5, window: 1m, update: atomic}\nstore: {kind: redis}\n", ""},
		{"advise redis", "store: {kind: redis}\nadvise: {stores: [memory, redis]}\n", ""},
		{"second fault", "store: {kind: redis}\nfaults: [{at: 1s, kind: partition}, {at: 3m, kind: partition}]\n", "x.yaml:2:42: faults.1.at: 3m is outside the run"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := redisBase
			if strings.HasPrefix(tc.data, "limiter:") {
				_, base, _ = strings.Cut(redisBase, "\n") // the case gives its own limiter
			}
			s, err := Parse("x.yaml", []byte(tc.data+base))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				if s.Store.Redis == nil || s.Store.Redis.DownAfter.D() != DefaultRedisDownAfter || s.Store.Redis.Timeout.D() != DefaultRedisTimeout {
					t.Errorf("store.redis = %+v, want its defaults filled in", s.Store.Redis)
				}
				for i, f := range s.Faults {
					if f.Target == "" {
						t.Errorf("faults.%d.target is empty after SetDefaults", i)
					}
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestRedisAbsentKeepsHash checks that a scenario of another store kind
// gets no store.redis section, so that its canonical form has none.
func TestRedisAbsentKeepsHash(t *testing.T) {
	s, err := Parse("x.yaml", []byte(redisBase))
	if err != nil {
		t.Fatal(err)
	}
	if s.Store.Redis != nil || s.Faults != nil {
		t.Fatalf("kv scenario got store.redis %+v, faults %v", s.Store.Redis, s.Faults)
	}
	c := string(s.Canonical())
	if strings.Contains(c, "redis") || strings.Contains(c, "faults") {
		t.Errorf("canonical form of a kv scenario names redis or faults: %s", c)
	}
}

// FuzzRedisFields fills store.redis and one fault with any values: Parse
// must not panic and must return an *Error or a valid scenario, whose
// fault then names a replica the store has and runs on store kind redis.
func FuzzRedisFields(f *testing.F) {
	f.Add("redis", 2, "replica", 1, "10ms", "30s", "kill-primary", "primary", "0s", "")
	f.Add("redis", 1, "primary", 0, "0s", "1s", "pause", "replica-1", "5s", "")
	f.Add("redis", 3, "replica", 3, "1s", "59s", "link-latency", "replicas", "1m", "latency: 200ms, jitter: 20ms")
	f.Add("redis", 0, "replica", 0, "", "1s", "partition", "replica-01", "-1s", "latency: 1ms")
	f.Add("kv", 2, "primary", 0, "2s", "0s", "partition", "", "", "")
	f.Fuzz(func(t *testing.T, kind string, replicas int, read string, wait int, waitTimeout, at, fkind, target, forDur, extra string) {
		q := func(s string) string { return strconv.Quote(s) }
		if extra != "" {
			extra = ", " + extra
		}
		data := fmt.Sprintf("store: {kind: %s, redis: {replicas: %d, read: %s, wait: %d, wait_timeout: %s}}\nfaults: [{at: %s, kind: %s, target: %s, for: %s%s}]\n%s",
			q(kind), replicas, q(read), wait, q(waitTimeout), q(at), q(fkind), q(target), q(forDur), extra, redisBase)
		s, err := Parse("fuzz.yaml", []byte(data))
		if err != nil {
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not an *Error: %v", err, err)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("Parse returned an invalid scenario: %v", err)
		}
		if s.Store.Kind != KindRedis || s.Store.Redis == nil {
			t.Fatalf("faults accepted on store kind %q (redis section %v)", s.Store.Kind, s.Store.Redis)
		}
		for _, f := range s.Faults {
			if i, ok := ReplicaTarget(f.Target); ok && i >= s.Store.Redis.Replicas {
				t.Fatalf("fault target %s accepted with %d replicas", f.Target, s.Store.Redis.Replicas)
			}
			if f.At < 0 || f.At >= s.Duration || f.For < 0 {
				t.Fatalf("fault at %v for %v accepted in a run of %v", f.At, f.For, s.Duration)
			}
		}
		_ = s.Hash()
	})
}
