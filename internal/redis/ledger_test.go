package redis_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/redis"
)

// mapStore is a store on a map, with Delete (a test's failover).
type mapStore map[string]string

func (m mapStore) Get(_ context.Context, key string) (string, bool, error) {
	v, ok := m[key]
	return v, ok, nil
}
func (m mapStore) Put(_ context.Context, key, value string, _ time.Duration) error {
	m[key] = value
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

// TestLedger checks what the ledger counts as lost: acknowledged counts
// that a later read finds missing (a failover's, a stale write's), and
// nothing for a count that only grows, a key never written, a failed
// write, or a value that is not a count.
func TestLedger(t *testing.T) {
	type step struct {
		op    string // put (through the ledger), behind (straight to the store, as a failover or a stale writer), get
		key   string
		value string
	}
	tests := []struct {
		name  string
		steps []step
		lost  int64
		acked map[string]int64
	}{
		{"counts that only grow", []step{{"put", "a", "1"}, {"get", "a", ""}, {"put", "a", "2"}, {"get", "a", ""}}, 0, map[string]int64{"a": 2}},
		{"a failover loses three", []step{{"put", "a", "1"}, {"put", "a", "2"}, {"put", "a", "3"}, {"put", "a", "4"}, {"behind", "a", "1"}, {"get", "a", ""}}, 3, map[string]int64{"a": 4}},
		{"counted once, then from what was read", []step{{"put", "a", "5"}, {"behind", "a", "2"}, {"get", "a", ""}, {"get", "a", ""}, {"put", "a", "3"}, {"behind", "a", "1"}, {"get", "a", ""}}, 5, map[string]int64{"a": 2}},
		{"a key gone is a count of zero", []step{{"put", "a", "2"}, {"behind", "a", ""}, {"get", "a", ""}}, 2, map[string]int64{"a": 1}},
		{"a read of a key never written", []step{{"behind", "b", "7"}, {"get", "b", ""}}, 0, map[string]int64{}},
		{"not a count", []step{{"put", "g", "1700000000.5"}, {"behind", "g", "1"}, {"get", "g", ""}}, 0, map[string]int64{}},
		{"keys apart", []step{{"put", "a", "3"}, {"put", "b", "1"}, {"behind", "b", "0"}, {"get", "a", ""}, {"get", "b", ""}}, 1, map[string]int64{"a": 1, "b": 1}},
	}
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := mapStore{}
			l := redis.NewLedger(mem)
			for _, s := range tc.steps {
				var err error
				switch {
				case s.op == "put":
					err = l.Put(ctx, s.key, s.value, time.Minute)
				case s.op == "behind" && s.value == "":
					delete(mem, s.key)
				case s.op == "behind":
					err = mem.Put(ctx, s.key, s.value, time.Minute)
				default:
					_, _, err = l.Get(ctx, s.key)
				}
				if err != nil {
					t.Fatalf("%+v: %v", s, err)
				}
			}
			if got := l.Lost(); got != tc.lost {
				t.Errorf("lost %d, want %d", got, tc.lost)
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
		if l.Lost() != 0 || len(l.Acked()) != 0 {
			t.Errorf("lost %d, acked %v after failures: want nothing", l.Lost(), l.Acked())
		}
	})
}
