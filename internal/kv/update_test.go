package kv

import (
	"context"
	"errors"
	"testing"
	"time"
)

// incr is an atomic update of one counter: it adds one, keeping the
// expiry of a live key (INCR, then EXPIRE on the first increment).
func incr(key string) *Update {
	return &Update{Keys: [2]string{key}, NKeys: 1, Apply: func(cur [2]Value) (Put, bool) {
		n := len(cur[0].Value) + 1 // a count in unary: "", "x", "xx"...
		v := ""
		for range n {
			v += "x"
		}
		return Put{Key: key, Value: v, TTL: 60 * time.Second, KeepTTL: true}, true
	}}
}

// TestMemoryUpdate checks the memory store's atomic update: the values
// returned are those before it, the write lands, a live key keeps its
// expiry with KeepTTL and an expired one gets a new one.
func TestMemoryUpdate(t *testing.T) {
	now := time.Unix(1000, 0)
	m := NewMemory(MemoryOptions{Now: func() time.Time { return now }})
	ctx := context.Background()
	for i, want := range []string{"", "x", "xx"} {
		cur, err := m.Update(ctx, incr("k"))
		if err != nil || cur[0].Value != want || cur[0].Found != (want != "") {
			t.Fatalf("update %d: %+v, %v; want the value before it, %q", i, cur, err, want)
		}
		now = now.Add(20 * time.Second)
	}
	// First write at 1000, kept: expires at 1060, which is now.
	if _, found, _ := m.Get(ctx, "k"); found {
		t.Errorf("a key updated with KeepTTL lived past its first write's TTL")
	}
	cur, _ := m.Update(ctx, incr("k"))
	if cur[0].Found {
		t.Errorf("an expired key read as %+v", cur[0])
	}
	if v, found, _ := m.Get(ctx, "k"); !found || v != "x" {
		t.Errorf("after expiry: %q %v, want a new counter", v, found)
	}
	bad := &Update{Keys: [2]string{"k"}, NKeys: 1, Apply: func([2]Value) (Put, bool) { return Put{Key: "k", Value: "1", TTL: time.Second}, true }}
	if _, err := m.Update(ctx, bad); !errors.Is(err, ErrInvalidTTL) {
		t.Errorf("a TTL under 60s: %v, want the invalid-TTL error", err)
	}
}

// onlyStore hides a store's Update.
type onlyStore struct{ Store }

// TestCanUpdate checks which stores say they apply atomic updates,
// through wrappers too.
func TestCanUpdate(t *testing.T) {
	m := NewMemory(MemoryOptions{})
	zero := func() time.Duration { return 0 }
	for _, tc := range []struct {
		name string
		s    Store
		want bool
	}{
		{"memory", m, true},
		{"hidden", onlyStore{m}, false},
		{"delayed memory", &Delayed{Store: m, Delay: zero}, true},
		{"delayed hidden", &Delayed{Store: onlyStore{m}, Delay: zero}, false},
	} {
		if got := CanUpdate(tc.s); got != tc.want {
			t.Errorf("%s: CanUpdate %v, want %v", tc.name, got, tc.want)
		}
	}
	if _, err := (&Delayed{Store: onlyStore{m}, Delay: zero}).Update(context.Background(), incr("k")); !errors.Is(err, ErrNoUpdate) {
		t.Errorf("update through a delay over a store without: %v, want ErrNoUpdate", err)
	}
}
