package redis_test

import (
	"context"
	"errors"
	"maps"
	"strconv"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/redis"
)

// mapStore is a store on a map; during, when set, runs in the middle of
// the next Get, after it has read (a write that lands while the read is on
// its way back).
type mapStore struct {
	m      map[string]string
	during func()
}

func (m *mapStore) Get(_ context.Context, key string) (string, bool, error) {
	v, ok := m.m[key]
	if f := m.during; f != nil {
		m.during = nil
		f()
	}
	return v, ok, nil
}
func (m *mapStore) Put(_ context.Context, key, value string, _ time.Duration) error {
	m.m[key] = value
	return nil
}

// failing is a store whose operations all fail.
type failing struct{ kv.Store }

func (failing) Get(context.Context, string) (string, bool, error) {
	return "", false, kv.NewUnavailable("get", "k", "down")
}
func (failing) Put(context.Context, string, string, time.Duration) error {
	return kv.NewUnavailable("put", "k", "down")
}

// TestLedger checks what the ledger counts as lost: per key, the writes
// acknowledged less the count the primary holds when the run is settled,
// whatever took the increments (a failover, a race, a stale write taking
// the count back), and nothing for a key never written through it, a
// failed write, or a value that is not a count. A key whose life ends
// during the run (its TTL) is settled from the count read shortly before
// it expired; without that read it is unsettled, not counted.
func TestLedger(t *testing.T) {
	type step struct {
		op    string // put (through the ledger), behind (straight to the store, as a failover or another writer), get, race (a get during which value is put), wait (value seconds pass), drain (the reads near expiry land)
		key   string
		value string
	}
	tests := []struct {
		name            string
		steps           []step
		lost, unsettled int64
		acked           map[string]int64
	}{
		{"counts that only grow", []step{{"put", "a", "1"}, {"get", "a", ""}, {"put", "a", "2"}, {"get", "a", ""}}, 0, 0, map[string]int64{"a": 2}},
		{"a failover loses three", []step{{"put", "a", "1"}, {"put", "a", "2"}, {"put", "a", "3"}, {"put", "a", "4"}, {"behind", "a", "1"}, {"get", "a", ""}}, 3, 0, map[string]int64{"a": 4}},
		{"a failover's loss, written over", []step{{"put", "a", "1"}, {"put", "a", "2"}, {"put", "a", "3"}, {"behind", "a", "1"}, {"get", "a", ""}, {"put", "a", "2"}}, 2, 0, map[string]int64{"a": 4}},
		{"a failover's loss, restored by a stale writer", []step{{"put", "a", "1"}, {"put", "a", "2"}, {"behind", "a", ""}, {"put", "a", "3"}}, 0, 0, map[string]int64{"a": 3}},
		{"a key gone is a count of zero", []step{{"put", "a", "1"}, {"put", "a", "2"}, {"behind", "a", ""}, {"get", "a", ""}}, 2, 0, map[string]int64{"a": 2}},
		{"a key never written through the ledger", []step{{"behind", "b", "7"}, {"get", "b", ""}}, 0, 0, map[string]int64{}},
		{"not a count", []step{{"put", "g", "1700000000.5"}, {"behind", "g", "1"}, {"get", "g", ""}}, 0, 0, map[string]int64{}},
		{"keys apart", []step{{"put", "a", "1"}, {"put", "b", "1"}, {"behind", "b", "0"}, {"get", "a", ""}, {"get", "b", ""}}, 1, 0, map[string]int64{"a": 1, "b": 1}},
		{"two writers read the same count", []step{{"put", "a", "1"}, {"get", "a", ""}, {"get", "a", ""}, {"put", "a", "2"}, {"put", "a", "2"}}, 1, 0, map[string]int64{"a": 3}},
		{"a stale write takes the count back", []step{{"put", "a", "1"}, {"put", "a", "2"}, {"put", "a", "1"}, {"get", "a", ""}, {"put", "a", "2"}}, 2, 0, map[string]int64{"a": 4}},
		{"more held than acknowledged", []step{{"put", "a", "1"}, {"behind", "a", "5"}}, 0, 0, map[string]int64{"a": 1}},
		// The first life: two increments, a count of 1, read 2 s before it
		// expired; the second: two increments, a count of 2.
		{"a life read before it expires", []step{{"put", "a", "1"}, {"put", "a", "1"}, {"wait", "", "9"}, {"get", "a", ""}, {"drain", "", ""}, {"wait", "", "2"},
			{"behind", "a", ""}, {"put", "a", "1"}, {"put", "a", "2"}}, 1, 0, map[string]int64{"a": 4}},
		{"a life not read before it expires", []step{{"put", "a", "1"}, {"put", "a", "1"}, {"wait", "", "11"},
			{"behind", "a", ""}, {"put", "a", "1"}, {"put", "a", "2"}}, 0, 1, map[string]int64{"a": 4}},
	}
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := &mapStore{m: map[string]string{}}
			l := redis.NewLedger(mem)
			now := time.Unix(1000, 0)
			redis.SetClock(l, func() time.Time { return now })
			for _, s := range tc.steps {
				var err error
				switch {
				case s.op == "put":
					err = l.Put(ctx, s.key, s.value, 10*time.Second)
				case s.op == "behind" && s.value == "":
					delete(mem.m, s.key)
				case s.op == "behind":
					err = mem.Put(ctx, s.key, s.value, time.Minute)
				case s.op == "race":
					mem.during = func() { err = l.Put(ctx, s.key, s.value, time.Minute) }
					_, _, _ = l.Get(ctx, s.key)
				case s.op == "wait":
					n, _ := strconv.Atoi(s.value)
					now = now.Add(time.Duration(n) * time.Second)
				case s.op == "drain":
					redis.WaitReads(l)
				default:
					_, _, err = l.Get(ctx, s.key)
				}
				if err != nil {
					t.Fatalf("%+v: %v", s, err)
				}
			}
			if err := l.Settle(ctx); err != nil {
				t.Fatal(err)
			}
			if got := l.Lost(); got != tc.lost {
				t.Errorf("lost %d, want %d", got, tc.lost)
			}
			if got := l.Unsettled(); got != tc.unsettled {
				t.Errorf("unsettled %d, want %d", got, tc.unsettled)
			}
			got := l.Acked()
			if len(got) != len(tc.acked) {
				t.Errorf("acked %v, want %v", got, tc.acked)
			}
			for k, n := range tc.acked {
				if got[k] != n {
					t.Errorf("acked %v, want %v", got, tc.acked)
				}
			}
		})
	}
	t.Run("failed operations", func(t *testing.T) {
		l := redis.NewLedger(failing{})
		if err := l.Put(ctx, "a", "3", time.Minute); !errors.Is(err, kv.ErrUnavailable) {
			t.Errorf("put: %v, want the store's error", err)
		}
		if _, _, err := l.Get(ctx, "a"); !errors.Is(err, kv.ErrUnavailable) {
			t.Errorf("get: %v, want the store's error", err)
		}
		if err := l.Settle(ctx); err != nil || l.Lost() != 0 || len(l.Acked()) != 0 {
			t.Errorf("settled (%v), lost %d, acked %v after failures: want nothing", err, l.Lost(), l.Acked())
		}
	})
}

// incr is an atomic increment of key w.
var incr = &kv.Update{Keys: [2]string{"w"}, NKeys: 1, Apply: func(cur [2]kv.Value) (kv.Put, bool) {
	n, _ := strconv.Atoi(cur[0].Value)
	return kv.Put{Key: "w", Value: strconv.Itoa(n + 1), TTL: time.Minute, KeepTTL: true}, true
}}

// TestLedgerUpdate checks that the ledger counts an atomic update as a
// read of what the key held and a write of the count it made: increments
// acknowledged by updates and missing from the count at the end (a
// failover left 2 of 5, one more made 3 of 6) are lost, and no read is
// stale, with -redis-read replica too (a script
// runs on the primary); a ledger over a store that cannot update refuses,
// and says so through CanUpdate.
func TestLedgerUpdate(t *testing.T) {
	ctx := context.Background()
	for name, mk := range map[string]func(kv.Store) *redis.Ledger{"primary reads": redis.NewLedger, "replica reads": redis.NewReplicaLedger} {
		m := kv.NewMemory(kv.MemoryOptions{})
		l := mk(m)
		if !kv.CanUpdate(l) {
			t.Fatalf("%s: a ledger over the memory store cannot update", name)
		}
		for range 5 {
			if _, err := l.Update(ctx, incr); err != nil {
				t.Fatal(err)
			}
		}
		if err := m.Put(ctx, "w", "2", time.Minute); err != nil { // the promoted replica had 2 of the 5
			t.Fatal(err)
		}
		if _, err := l.Update(ctx, incr); err != nil {
			t.Fatal(err)
		}
		if err := l.Settle(ctx); err != nil {
			t.Fatal(err)
		}
		if got := l.Lost(); got != 3 {
			t.Errorf("%s: lost %d after 5 acknowledged and a store left at 2, want 3", name, got)
		}
		if got := l.Acked()["w"]; got != 6 {
			t.Errorf("%s: acknowledged %d updates of w, want 6", name, got)
		}
		if got := l.Stale(); got != 0 {
			t.Errorf("%s: %d stale reads by updates on the primary, want none", name, got)
		}
	}
	nl := redis.NewLedger(&mapStore{m: map[string]string{}})
	if kv.CanUpdate(nl) {
		t.Error("a ledger over a store without updates says it can update")
	}
	if _, err := nl.Update(ctx, incr); !errors.Is(err, kv.ErrNoUpdate) {
		t.Errorf("update through a ledger over a store without: %v, want ErrNoUpdate", err)
	}
}

// replicaStore writes to a primary and reads from a replica, which has
// the primary's keys only once sync copies them; during, when set, runs
// at the start of the next Get, before it reads (a write acknowledged and
// replicated while the read is on its way).
type replicaStore struct {
	primary, replica map[string]string
	during           func()
}

func (r *replicaStore) Get(_ context.Context, key string) (string, bool, error) {
	if f := r.during; f != nil {
		r.during = nil
		f()
	}
	v, ok := r.replica[key]
	return v, ok, nil
}
func (r *replicaStore) GetPrimary(_ context.Context, key string) (string, bool, error) {
	v, ok := r.primary[key]
	return v, ok, nil
}
func (r *replicaStore) Put(_ context.Context, key, value string, _ time.Duration) error {
	r.primary[key] = value
	return nil
}
func (r *replicaStore) sync() { maps.Copy(r.replica, r.primary) }

// TestReplicaLedger checks what a ledger over replica reads counts: a read
// that returns another count than the last acknowledged before it was
// sent, and not one acknowledged since, is stale, outdated since the
// write after that count's last; a read that returns a count acknowledged
// after it was sent is fresh; a read of a key never written is not a read
// of a written key; lost updates are the increments the primary's count
// lacks at the end, as with primary reads (a writer that read a stale
// count, a stale write's take-back).
func TestReplicaLedger(t *testing.T) {
	type step struct {
		op    string // put, get, sync (the replica catches up), wait (ms pass), race (a get during which value is put and replicated)
		key   string
		value string
		ms    int
	}
	tests := []struct {
		name               string
		steps              []step
		reads, stale, lost int64
		staleMax           float64 // ms
	}{
		{"caught up: fresh", []step{{op: "put", key: "a", value: "1"}, {op: "sync"}, {op: "wait", ms: 5}, {op: "get", key: "a"}}, 1, 0, 0, 0},
		{"behind: stale since the first count above", []step{{op: "put", key: "a", value: "1"}, {op: "sync"}, {op: "wait", ms: 10},
			{op: "put", key: "a", value: "2"}, {op: "wait", ms: 20}, {op: "put", key: "a", value: "3"}, {op: "wait", ms: 30}, {op: "get", key: "a"}}, 1, 1, 0, 50},
		{"never replicated: stale, a count of zero", []step{{op: "put", key: "a", value: "1"}, {op: "wait", ms: 40}, {op: "get", key: "a"}}, 1, 1, 0, 40},
		{"a key never written", []step{{op: "get", key: "b"}}, 0, 0, 0, 0},
		{"a writer that read a stale count", []step{{op: "put", key: "a", value: "1"}, {op: "sync"}, {op: "put", key: "a", value: "2"},
			{op: "get", key: "a"}, {op: "put", key: "a", value: "2"}, {op: "sync"}, {op: "get", key: "a"}, {op: "put", key: "a", value: "3"}}, 2, 1, 1, 0},
		{"a take-back no write repeats", []step{{op: "put", key: "a", value: "1"}, {op: "put", key: "a", value: "2"}, {op: "put", key: "a", value: "3"},
			{op: "put", key: "a", value: "2"}, {op: "sync"}, {op: "get", key: "a"}}, 1, 0, 2, 0},
		{"a take-back not yet replicated", []step{{op: "put", key: "a", value: "1"}, {op: "put", key: "a", value: "2"}, {op: "put", key: "a", value: "3"}, {op: "sync"}, {op: "wait", ms: 10},
			{op: "put", key: "a", value: "2"}, {op: "wait", ms: 20}, {op: "get", key: "a"}}, 1, 1, 2, 20},
		{"a write acknowledged and replicated while the read is on its way", []step{{op: "put", key: "a", value: "1"}, {op: "sync"},
			{op: "race", key: "a", value: "2"}}, 1, 0, 0, 0},
	}
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := &replicaStore{primary: map[string]string{}, replica: map[string]string{}}
			l := redis.NewReplicaLedger(st)
			now := time.Unix(1000, 0)
			redis.SetClock(l, func() time.Time { return now })
			for _, s := range tc.steps {
				var err error
				switch s.op {
				case "put":
					err = l.Put(ctx, s.key, s.value, time.Minute)
				case "get":
					_, _, err = l.Get(ctx, s.key)
				case "sync":
					st.sync()
				case "wait":
					now = now.Add(time.Duration(s.ms) * time.Millisecond)
				case "race":
					st.during = func() {
						err = l.Put(ctx, s.key, s.value, time.Minute)
						st.sync()
					}
					if _, _, gerr := l.Get(ctx, s.key); err == nil {
						err = gerr
					}
				}
				if err != nil {
					t.Fatalf("%+v: %v", s, err)
				}
			}
			if err := l.Settle(ctx); err != nil {
				t.Fatal(err)
			}
			k := measure.NewKVCounters()
			l.AddTo(k)
			var reads int64
			for _, n := range k.VisReads {
				reads += n
			}
			if reads != tc.reads || k.StaleReads != tc.stale || k.LostUpdates != tc.lost || l.Stale() != tc.stale {
				t.Errorf("reads of written %d, stale %d (Stale %d), lost %d; want %d, %d, %d", reads, k.StaleReads, l.Stale(), k.LostUpdates, tc.reads, tc.stale, tc.lost)
			}
			if got := k.Staleness.Stats().Max; tc.staleMax > 0 && (got < tc.staleMax*0.9 || got > tc.staleMax*1.1) {
				t.Errorf("staleness max %v ms, want %v", got, tc.staleMax)
			}
		})
	}
}
