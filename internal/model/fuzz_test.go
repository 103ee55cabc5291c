package model

import (
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// FuzzKV drives the KV state machine with arbitrary sequences of reads,
// writes and commits at non-decreasing times and checks that it never
// panics and that every value read is one that was committed under that key
// with the version reported (or missing with version 0), and that a
// writer's location with read-your-writes and one cache domain reads its
// own write right after the commit.
func FuzzKV(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{2, 2, 2, 0, 0, 1, 255, 3, 3, 7, 130, 2})
	f.Fuzz(func(t *testing.T, ops []byte) {
		p := kvParams(1, 10, 50)
		p.Purge = scenario.Purge{Enabled: ops != nil && len(ops)%2 == 0, Lag: scenario.Lognormal(time.Second, 10*time.Second)}
		p.WriteLimit = scenario.WriteLimit{PerSecond: 1, Scope: "location"}
		s, err := NewKV(KVConfig{Params: kvParamsOf(t, p, "A", "B", "C"), Locations: 3, Start: epoch, Rand: TrialRand(3, 0)})
		if err != nil {
			t.Fatal(err)
		}
		type ver struct {
			key string
			v   uint64
		}
		committed := map[ver]string{}
		var pending []PendingWrite
		var now time.Duration
		val := 0
		for i, op := range ops {
			now += time.Duration(op>>4) * 700 * time.Millisecond
			key := string(rune('a' + op&1))
			loc := int(op>>1&3) % 3
			switch op >> 2 & 3 {
			case 0, 1:
				r := s.Read(now, loc, AnyDomain, key)
				if r.Err != nil {
					t.Fatalf("op %d: read error %v", i, r.Err)
				}
				if r.Found != (r.Version != 0) {
					t.Fatalf("op %d: found %v with version %d", i, r.Found, r.Version)
				}
				if r.Found && committed[ver{key, r.Version}] != r.Value {
					t.Fatalf("op %d: read %q version %d, committed %q", i, r.Value, r.Version, committed[ver{key, r.Version}])
				}
			case 2:
				val++
				w, _, err := s.Write(now, loc, AnyDomain, key, string(rune('0'+val%10)), time.Minute, UnknownVersion)
				if err != nil {
					if kv.KindOf(err) != kv.WriteRateLimited {
						t.Fatalf("op %d: write error %v", i, err)
					}
					continue
				}
				pending = append(pending, w)
			case 3:
				if len(pending) == 0 {
					continue
				}
				w := pending[0]
				pending = pending[1:]
				s.Commit(now, w)
				k := s.keys[w.Key]
				committed[ver{w.Key, k.version}] = w.Value
				if r := s.Read(now, w.Loc, AnyDomain, w.Key); r.Version != k.version {
					t.Fatalf("op %d: writer's location reads version %d right after committing %d", i, r.Version, k.version)
				}
			}
		}
	})
}
