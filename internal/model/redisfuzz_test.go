package model

import (
	"fmt"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// FuzzRedisStore drives the redis store through any schedule of faults
// (six bytes a fault: kind, target, start, length, latency, jitter) with
// a writer and readers on three keys for 4 s: it must not panic; a read
// returns only a value some write wrote; lost updates never outnumber
// writes; no replica is ahead of the primary; each replica's queue is in
// apply order.
func FuzzRedisStore(f *testing.F) {
	f.Add(uint64(1), uint8(2), uint16(10), uint8(0), false, []byte{0, 0, 50, 0, 0, 0})
	f.Add(uint64(2), uint8(2), uint16(30), uint8(1), true, []byte{3, 0, 20, 40, 0, 0, 1, 3, 10, 5, 0, 0})
	f.Add(uint64(3), uint8(3), uint16(5), uint8(2), true, []byte{2, 4, 0, 0, 200, 50, 1, 0, 30, 20, 0, 0, 0, 0, 120, 0, 0, 0})
	f.Add(uint64(4), uint8(1), uint16(0), uint8(0), false, []byte{0, 0, 10, 0, 0, 0, 0, 0, 200, 0, 0, 0})
	f.Fuzz(func(t *testing.T, seed uint64, nrep uint8, lagMs uint16, wait uint8, replicaReads bool, spec []byte) {
		replicas := int(nrep % 4)
		p := redisParams(t, func(r *scenario.Redis) {
			r.Replicas = replicas
			r.ReplicationLag = scenario.Lognormal(time.Duration(lagMs%500+1)*time.Millisecond/2, time.Duration(lagMs%500+1)*time.Millisecond*4)
			r.Latency = scenario.Lognormal(msec, 5*msec)
			if replicas > 0 {
				r.Wait = int(wait) % (replicas + 1)
				if replicaReads {
					r.Read = scenario.RedisReadReplica
				}
			}
		})
		var faults []plan.Fault
		for i := 0; i+6 <= len(spec) && len(faults) < 8; i += 6 {
			b := spec[i : i+6]
			fl := plan.Fault{Kind: plan.FaultKind(b[0]%4 + 1), At: time.Duration(b[2]) * 20 * msec, For: time.Duration(b[3]) * 20 * msec,
				Target: plan.TargetPrimary}
			switch fl.Kind {
			case plan.KillPrimary:
				fl.For = 0
			case plan.Pause, plan.LinkLatency:
				if replicas > 0 {
					switch n := int(b[1]) % (replicas + 2); n {
					case replicas:
						fl.Target = plan.TargetReplicas
					case replicas + 1:
						if fl.Kind == plan.LinkLatency {
							fl.Target = plan.TargetReplicas
						}
					default:
						fl.Target = plan.FaultTarget(n)
					}
				} else if fl.Kind == plan.LinkLatency {
					continue
				}
				if fl.Kind == plan.LinkLatency {
					fl.Latency, fl.Jitter = time.Duration(b[4])*msec, time.Duration(b[5])*msec
				}
			}
			faults = append(faults, fl)
		}
		ctr := &measure.NewRecorder(measure.Config{Limit: 1, Window: time.Minute, Populations: []measure.Population{{}}}).KV
		s, err := NewRedis(RedisConfig{Params: p, Faults: sortFaults(faults), Rand: TrialRand(seed, 0), Counters: ctr})
		if err != nil {
			t.Fatalf("faults %+v: %v", faults, err)
		}
		written := map[string]bool{}
		type commit struct {
			at time.Duration
			w  PendingWrite
		}
		var due []commit
		n := 0
		for at := time.Duration(0); at < 4*time.Second; at += msec {
			for len(due) > 0 && due[0].at <= at {
				s.Commit(due[0].at, due[0].w)
				due = due[1:]
			}
			key := fmt.Sprintf("k%d", at/msec%3)
			if r := s.Read(at, 0, AnyDomain, key); r.Err == nil && r.Found && !written[r.Value] {
				t.Fatalf("read of %s at %v returned %q, which no write wrote", key, at, r.Value)
			}
			if at%(3*msec) == 0 {
				n++
				v := fmt.Sprint(n)
				written[v] = true
				if w, lat, err := s.Write(at, 0, AnyDomain, key, v, time.Minute, UnknownVersion); err == nil {
					i := len(due)
					due = append(due, commit{at + lat, w})
					for ; i > 0 && due[i].at < due[i-1].at; i-- {
						due[i], due[i-1] = due[i-1], due[i]
					}
				}
			}
			if at%(100*msec) == 0 {
				checkRedis(t, s, at)
			}
		}
		if ctr.LostUpdates > ctr.Writes {
			t.Fatalf("%d lost updates of %d writes", ctr.LostUpdates, ctr.Writes)
		}
	})
}

// sortFaults sorts faults by start, as a plan does.
func sortFaults(fs []plan.Fault) []plan.Fault {
	for i := 1; i < len(fs); i++ {
		for j := i; j > 0 && fs[j].At < fs[j-1].At; j-- {
			fs[j], fs[j-1] = fs[j-1], fs[j]
		}
	}
	return fs
}

// checkRedis checks the store's invariants at t: no live replica ahead
// of the primary, every queue in apply order and its counts right.
func checkRedis(t *testing.T, s *Redis, at time.Duration) {
	t.Helper()
	if s.primary < 0 {
		return
	}
	top := s.nodes[s.primary].seq
	for i, nd := range s.nodes {
		if nd.isPrimary || nd.dead {
			continue
		}
		if nd.seq > top {
			t.Fatalf("at %v replica node %d applied %d writes, the primary (node %d) has %d", at, i, nd.seq, s.primary, top)
		}
		count := map[string]int32{}
		last := int64(-1 << 62)
		for it := nd.head; it != nil; it = it.next {
			if it.applyAt < last {
				t.Fatalf("at %v node %d's queue is out of order: %d after %d", at, i, it.applyAt, last)
			}
			last = it.applyAt
			count[it.key]++
		}
		for k, e := range nd.data {
			if e.npending != count[k] {
				t.Fatalf("at %v node %d key %s counts %d queued, the queue holds %d", at, i, k, e.npending, count[k])
			}
		}
	}
}
