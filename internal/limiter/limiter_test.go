package limiter

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"
	"time"
)

// mustNew builds a limiter or stops the test.
func mustNew(t testing.TB, cfg Config) *Limiter {
	t.Helper()
	l, err := New(cfg)
	if err != nil {
		t.Fatalf("New(%+v): %v", cfg, err)
	}
	return l
}

// step is one request against a map standing in for a linearizable store:
// read the plan's keys, decide, apply the write.
func step(l *Limiter, store map[string]string, now time.Time, caller string) Decision {
	p := l.Plan(now, caller)
	var got [2]Read
	for i := 0; i < p.NKeys; i++ {
		v, ok := store[p.Keys[i]]
		got[i] = Read{Value: v, Found: ok}
	}
	d := l.Decide(p, got)
	if d.Write.Key != "" {
		store[d.Write.Key] = d.Write.Value
	}
	return d
}

// day293120 is a time inside fixed window 293120 of a one-day window.
var day293120 = time.Unix(293120*86400+3600, 0)

func TestSeedLimitFive(t *testing.T) {
	l := mustNew(t, Config{Name: "roast", Limit: 5, Window: 24 * time.Hour})
	store := map[string]string{}
	const caller = "anon_abc:1.2.3.4"
	const key = "rl:roast:anon_abc:1.2.3.4:293120"
	for i, want := range []struct {
		allowed   bool
		remaining int64
		count     int64
		stored    string
	}{
		{true, 4, 0, "1"},
		{true, 3, 1, "2"},
		{true, 2, 2, "3"},
		{true, 1, 3, "4"},
		{true, 0, 4, "5"},
		{false, 0, 5, "5"},
		{false, 0, 5, "5"},
	} {
		now := day293120.Add(time.Duration(i) * time.Minute)
		d := step(l, store, now, caller)
		if d.Allowed != want.allowed || d.Remaining != want.remaining || d.Count != want.count || d.Limit != 5 {
			t.Errorf("request %d: allowed %v remaining %d count %d limit %d, want %v %d %d 5",
				i+1, d.Allowed, d.Remaining, d.Count, d.Limit, want.allowed, want.remaining, want.count)
		}
		if store[key] != want.stored {
			t.Errorf("request %d: stored %q under %s, want %q (store %v)", i+1, store[key], key, want.stored, store)
		}
		if d.Window != 293120 || !d.Reset().Equal(time.Unix(293121*86400, 0)) {
			t.Errorf("request %d: window %d reset %v, want 293120 and %v", i+1, d.Window, d.Reset(), time.Unix(293121*86400, 0))
		}
		if d.Allowed != (d.Write.Key != "") {
			t.Errorf("request %d: allowed %v but write %+v", i+1, d.Allowed, d.Write)
		}
	}
}

func TestKeyFormat(t *testing.T) {
	cases := []struct {
		name, caller string
		window       time.Duration
		now          time.Time
		want         string
	}{
		{"roast", "anon_abc:1.2.3.4", 24 * time.Hour, day293120, "rl:roast:anon_abc:1.2.3.4:293120"},
		{"api", "tok:unknown", time.Minute, time.Unix(119, 999e6), "rl:api:tok:unknown:1"},
		{"api", "tok:unknown", time.Minute, time.Unix(120, 0), "rl:api:tok:unknown:2"},
		{"api", ":", time.Second, time.Unix(0, 0), "rl:api:::0"},
		{"api", "t:ip", time.Minute, time.Unix(-1, 0), "rl:api:t:ip:-1"}, // Math.floor, not truncation
		{"api", "t:ip", 1500 * time.Millisecond, time.Unix(3, 0), "rl:api:t:ip:2"},
	}
	for _, c := range cases {
		l := mustNew(t, Config{Name: c.name, Limit: 5, Window: c.window})
		p := l.Plan(c.now, c.caller)
		if p.NKeys != 1 || p.Keys[0] != c.want {
			t.Errorf("Plan(%v, %q) with window %v = %d keys %q, want 1 key %q", c.now, c.caller, c.window, p.NKeys, p.Keys[0], c.want)
		}
		if w := l.WindowID(c.now); p.Window != w {
			t.Errorf("Plan window %d, WindowID %d", p.Window, w)
		}
	}
}

func TestWindowRollover(t *testing.T) {
	l := mustNew(t, Config{Name: "api", Limit: 2, Window: time.Minute})
	store := map[string]string{}
	last := time.Unix(60*1000+59, 999e6) // last millisecond of window 1000
	for range 3 {
		step(l, store, last, "c")
	}
	if d := step(l, store, last, "c"); d.Allowed {
		t.Fatalf("window 1000 is full but the request was allowed: %+v", d)
	}
	d := step(l, store, last.Add(time.Millisecond), "c")
	if !d.Allowed || d.Remaining != 1 || d.Count != 0 || d.Window != 1001 || d.Write.Key != "rl:api:c:1001" {
		t.Errorf("first request of the next window: %+v, want allowed, remaining 1, a fresh key rl:api:c:1001", d)
	}
	if store["rl:api:c:1000"] != "2" || store["rl:api:c:1001"] != "1" {
		t.Errorf("store %v: want the old key at 2 and the new one at 1", store)
	}
}

func TestTTL(t *testing.T) {
	for _, c := range []struct{ window, want time.Duration }{
		{time.Second, 60 * time.Second},
		{59 * time.Second, 60 * time.Second},
		{60 * time.Second, 60 * time.Second},
		{61 * time.Second, 61 * time.Second},
		{3600 * time.Second, 3600 * time.Second},
		{86400 * time.Second, 86400 * time.Second},
	} {
		l := mustNew(t, Config{Name: "x", Limit: 5, Window: c.window})
		d := step(l, map[string]string{}, day293120, "c")
		if d.Write.TTL != c.want || l.TTL() != c.want {
			t.Errorf("window %v: write TTL %v, TTL() %v, want max(60s, window) = %v", c.window, d.Write.TTL, l.TTL(), c.want)
		}
	}
}

// TestRemaining covers the seed's arithmetic on whatever is stored,
// including values it never writes itself.
func TestRemaining(t *testing.T) {
	l := mustNew(t, Config{Name: "x", Limit: 5, Window: time.Hour})
	for _, c := range []struct {
		read      Read
		allowed   bool
		remaining int64
		write     string
	}{
		{Read{}, true, 4, "1"},
		{Read{Value: "", Found: true}, true, 4, "1"},
		{Read{Value: "0", Found: true}, true, 4, "1"},
		{Read{Value: "3", Found: true}, true, 1, "4"},
		{Read{Value: "4", Found: true}, true, 0, "5"},
		{Read{Value: "5", Found: true}, false, 0, ""},
		{Read{Value: "6", Found: true}, false, 0, ""},
		{Read{Value: "-3", Found: true}, true, 7, "-2"}, // limit + 2, as the seed computes
		{Read{Value: "abc", Found: true}, true, 4, "1"},
		{Read{Value: "4.9", Found: true}, true, 0, "5"},
		{Read{Value: "99999999999999999999", Found: true}, false, 0, ""},
		{Read{Value: "-1000000000000000000000", Found: true}, true, 5 + 1<<62 - 1, "-1e+21"},
	} {
		d := l.Decide(l.Plan(day293120, "c"), [2]Read{c.read})
		if d.Allowed != c.allowed || d.Remaining != c.remaining || d.Write.Value != c.write {
			t.Errorf("read %+v: allowed %v remaining %d write %q, want %v %d %q",
				c.read, d.Allowed, d.Remaining, d.Write.Value, c.allowed, c.remaining, c.write)
		}
	}
}

// TestHugeNegativeLikeJS follows a stored "-1000000000000000000000" through
// the seed: JavaScript writes "-1e+21", reads it back as -1, and goes on
// from there, so the caller gets limit + 2 requests in all.
func TestHugeNegativeLikeJS(t *testing.T) {
	l := mustNew(t, Config{Name: "x", Limit: 5, Window: time.Hour})
	p := l.Plan(day293120, "c")
	store := map[string]string{p.Keys[0]: "-1000000000000000000000"}
	allowed := 0
	for range 20 {
		if step(l, store, day293120, "c").Allowed {
			allowed++
		}
	}
	if allowed != 7 || store[p.Keys[0]] != "5" {
		t.Errorf("allowed %d, stored %q; want 7 and \"5\"", allowed, store[p.Keys[0]])
	}
}

func TestNewErrors(t *testing.T) {
	ok := Config{Name: "roast", Limit: 5, Window: time.Hour}
	cases := []struct {
		name string
		edit func(*Config)
		want []string
	}{
		{"limit zero", func(c *Config) { c.Limit = 0 }, []string{"limiter limit: 0 is out of range", "between 1 and 9007199254740991"}},
		{"limit negative", func(c *Config) { c.Limit = -5 }, []string{"limit: -5 is out of range", "between 1 and"}},
		{"limit too big", func(c *Config) { c.Limit = MaxLimit + 1 }, []string{"limit: 9007199254740992 is out of range", "between 1 and"}},
		{"window zero", func(c *Config) { c.Window = 0 }, []string{"limiter window: must be above 0"}},
		{"window negative", func(c *Config) { c.Window = -time.Second }, []string{"limiter window: must be above 0"}},
		{"window sub-millisecond", func(c *Config) { c.Window = 1500 * time.Microsecond }, []string{"window: 1.5ms is not", "whole number of milliseconds"}},
		{"empty name", func(c *Config) { c.Name = "" }, []string{"limiter name: is empty", "e.g. roast"}},
		{"unknown algorithm", func(c *Config) { c.Algorithm = "leaky-bucket" }, []string{`"leaky-bucket"`, "fixed-window", "sliding-window", "token-bucket"}},
		{"unknown policy", func(c *Config) { c.Policy = "fail-maybe" }, []string{`"fail-maybe"`, "fail-open", "fail-closed"}},
	}
	for _, c := range cases {
		cfg := ok
		c.edit(&cfg)
		l, err := New(cfg)
		if err == nil || l != nil {
			t.Errorf("%s: New(%+v) = %v, %v; want an error", c.name, cfg, l, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", c.name, err, w)
			}
		}
	}
	l := mustNew(t, ok)
	if got := l.Config(); got.Algorithm != FixedWindow || got.Policy != FailOpen {
		t.Errorf("defaults: algorithm %q policy %q, want fixed-window and fail-open", got.Algorithm, got.Policy)
	}
}

func TestSlidingWindow(t *testing.T) {
	l := mustNew(t, Config{Name: "s", Algorithm: SlidingWindow, Limit: 10, Window: time.Minute})
	start := time.Unix(60*1000, 0) // window 1000 begins
	cases := []struct {
		at        time.Duration // into window 1000
		prev, cur string
		allowed   bool
		remaining int64
		count     int64 // the estimate, rounded down
		write     string
	}{
		{15 * time.Second, "10", "", true, 1, 7, "1"},   // 10 x 0.75 = 7.5
		{15 * time.Second, "10", "2", true, 0, 9, "3"},  // 9.5: allowed, nothing left after it
		{15 * time.Second, "10", "3", false, 0, 10, ""}, // 10.5
		{30 * time.Second, "10", "2", true, 2, 7, "3"},  // 5 + 2 = 7
		{0, "10", "", false, 0, 10, ""},                 // the whole previous window still counts
		{59 * time.Second, "10", "", true, 8, 0, "1"},   // 10/60 = 0.17
		{30 * time.Second, "", "9", true, 0, 9, "10"},
		{30 * time.Second, "", "10", false, 0, 10, ""},
		{30 * time.Second, "-20", "", true, 19, -10, "1"}, // -10: as much room as the arithmetic gives
	}
	for _, c := range cases {
		now := start.Add(c.at)
		p := l.Plan(now, "c")
		if p.NKeys != 2 || p.Keys[0] != "rl:s:c:1000" || p.Keys[1] != "rl:s:c:999" {
			t.Fatalf("sliding plan keys %d %q: want the current then the previous window", p.NKeys, p.Keys)
		}
		got := [2]Read{{Value: c.cur, Found: c.cur != ""}, {Value: c.prev, Found: c.prev != ""}}
		d := l.Decide(p, got)
		if d.Allowed != c.allowed || d.Count != c.count || d.Write.Value != c.write {
			t.Errorf("prev %s cur %s at %v: allowed %v count %d write %q, want %v %d %q",
				c.prev, c.cur, c.at, d.Allowed, d.Count, d.Write.Value, c.allowed, c.count, c.write)
		}
		if c.allowed && (d.Remaining != c.remaining || d.Write.Key != p.Keys[0] || d.Write.TTL != 2*time.Minute) {
			t.Errorf("prev %s cur %s at %v: remaining %d write %+v, want %d to %s with TTL 2m",
				c.prev, c.cur, c.at, d.Remaining, d.Write, c.remaining, p.Keys[0])
		}
	}
}

func TestSlidingWindowSequence(t *testing.T) {
	l := mustNew(t, Config{Name: "s", Algorithm: SlidingWindow, Limit: 10, Window: time.Minute})
	store := map[string]string{}
	start := time.Unix(60*1000, 0)
	count := func(from time.Time, n int) (allowed int) {
		for range n { // all at one instant: the estimate decays continuously
			if step(l, store, from, "c").Allowed {
				allowed++
			}
		}
		return allowed
	}
	if got := count(start.Add(50*time.Second), 15); got != 10 {
		t.Errorf("first window: %d allowed, want 10", got)
	}
	// Halfway through the next window the previous 10 weigh 5: five more.
	if got := count(start.Add(90*time.Second), 15); got != 5 {
		t.Errorf("halfway through the next window: %d allowed, want 5", got)
	}
	// Two windows on, the 5 of window 1001 weigh 2.5: the estimate goes
	// 2.5, 3.5, ... 9.5 (8 allowed), then 10.5.
	if got := count(start.Add(150*time.Second), 15); got != 8 {
		t.Errorf("two windows on: %d allowed, want 8", got)
	}
	for _, w := range []struct{ window, ttl time.Duration }{{time.Second, time.Minute}, {time.Hour, 2 * time.Hour}} {
		l := mustNew(t, Config{Name: "s", Algorithm: SlidingWindow, Limit: 1, Window: w.window})
		if d := step(l, map[string]string{}, start, "c"); d.Write.TTL != w.ttl {
			t.Errorf("window %v: TTL %v, want %v", w.window, d.Write.TTL, w.ttl)
		}
	}
}

func TestTokenBucket(t *testing.T) {
	l := mustNew(t, Config{Name: "b", Algorithm: TokenBucket, Limit: 5, Window: time.Minute})
	store := map[string]string{}
	t0 := time.Unix(1_700_000_000, 0)
	p := l.Plan(t0, "c")
	if p.NKeys != 1 || p.Keys[0] != "rl:b:c" {
		t.Fatalf("bucket plan %d %q, want one key rl:b:c", p.NKeys, p.Keys)
	}
	for i := range 5 {
		d := step(l, store, t0, "c")
		if !d.Allowed || d.Remaining != int64(4-i) || d.Count != int64(i) {
			t.Fatalf("burst request %d: %+v, want allowed with remaining %d", i+1, d, 4-i)
		}
		wantTAT := t0.Add(time.Duration(i+1) * 12 * time.Second)
		if d.Write.Value != strconv.FormatInt(wantTAT.UnixMicro(), 10) || !d.Reset().Equal(wantTAT) || d.Write.TTL != time.Minute {
			t.Errorf("burst request %d: wrote %q reset %v TTL %v, want TAT %d, TTL 1m", i+1, d.Write.Value, d.Reset(), d.Write.TTL, wantTAT.UnixMicro())
		}
	}
	d := step(l, store, t0, "c")
	if d.Allowed || d.Remaining != 0 || d.Count != 5 || !d.Reset().Equal(t0.Add(12*time.Second)) || d.Write.Key != "" {
		t.Errorf("6th request: %+v, want denied, count 5, next allowed at t0+12s", d)
	}
	if d := step(l, store, t0.Add(12*time.Second-time.Microsecond), "c"); d.Allowed {
		t.Errorf("a microsecond before the refill: allowed")
	}
	if d := step(l, store, t0.Add(12*time.Second), "c"); !d.Allowed || d.Remaining != 0 {
		t.Errorf("after 12 s: %+v, want one more allowed, remaining 0", d)
	}
	if d := step(l, store, t0.Add(12*time.Second), "c"); d.Allowed {
		t.Errorf("second request after 12 s: allowed")
	}
	if d := step(l, store, t0.Add(10*time.Minute), "c"); !d.Allowed || d.Remaining != 4 {
		t.Errorf("after a long pause: %+v, want a full bucket (remaining 4)", d)
	}
}

// TestTokenBucketBurst checks that the burst is exactly the limit when the
// window does not divide by it (60 s / 7 is 8.571428... s).
func TestTokenBucketBurst(t *testing.T) {
	for _, c := range []struct {
		limit  int64
		window time.Duration
		next   time.Duration // when the request after the burst is allowed
	}{
		{7, time.Minute, 8571429 * time.Microsecond},
		{3, time.Second, 333334 * time.Microsecond},
		{1, time.Hour, time.Hour},
		{1000, time.Second, time.Millisecond},
	} {
		l := mustNew(t, Config{Name: "b", Algorithm: TokenBucket, Limit: c.limit, Window: c.window})
		store := map[string]string{}
		t0 := time.Unix(1_700_000_000, 0)
		var last Decision
		for i := int64(0); i < c.limit; i++ {
			if last = step(l, store, t0, "c"); !last.Allowed {
				t.Fatalf("limit %d/%v: request %d of the burst denied", c.limit, c.window, i+1)
			}
		}
		if c.limit == 1 && last.Write.TTL != time.Hour {
			t.Errorf("limit 1/h: TTL %v, want the hour the TAT lies ahead", last.Write.TTL)
		}
		d := step(l, store, t0, "c")
		if d.Allowed || !d.Reset().Equal(t0.Add(c.next)) {
			t.Errorf("limit %d/%v: after the burst %+v, want denied until t0+%v", c.limit, c.window, d, c.next)
		}
		if d := step(l, store, t0.Add(c.next), "c"); !d.Allowed {
			t.Errorf("limit %d/%v: denied at the reset it announced", c.limit, c.window)
		}
	}
}

func TestFailed(t *testing.T) {
	errKV := errors.New("KV GET failed: 503")
	for _, c := range []struct {
		policy    Policy
		allowed   bool
		remaining int64
	}{
		{FailOpen, true, 5},
		{FailClosed, false, 0},
	} {
		for _, alg := range Algorithms {
			l := mustNew(t, Config{Name: "x", Algorithm: alg, Limit: 5, Window: time.Minute, Policy: c.policy})
			d := l.Failed(l.Plan(day293120, "c"), errKV)
			if d.Allowed != c.allowed || d.Remaining != c.remaining || d.Limit != 5 || d.Err != errKV ||
				d.FailOpen != (c.policy == FailOpen) || d.FailClosed != (c.policy == FailClosed) || d.Write.Key != "" {
				t.Errorf("%s %s: %+v, want allowed %v remaining %d and the error kept", alg, c.policy, d, c.allowed, c.remaining)
			}
		}
	}
}

// FuzzDecide holds the fixed-window decision to the seed's arithmetic for
// any stored value, limit and time, and the other algorithms to not
// panicking and to writes a store will accept.
func FuzzDecide(f *testing.F) {
	f.Add("3", true, int64(5), int64(1_700_000_000_000), int64(86400_000))
	f.Add("-3", true, int64(5), int64(0), int64(1000))
	f.Add("", false, int64(1), int64(-1), int64(1))
	f.Add("99999999999999999999", true, int64(MaxLimit), int64(math.MaxInt64), int64(math.MaxInt64))
	f.Add("-1000000000000000000000", true, int64(7), int64(math.MinInt64), int64(60_000))
	f.Add(" +12abc", true, int64(13), int64(42), int64(59_000))
	f.Fuzz(func(t *testing.T, raw string, found bool, limitSeed, nowMilli, windowSeed int64) {
		limit := int64(uint64(limitSeed)%MaxLimit) + 1
		window := time.Duration(uint64(windowSeed)%(400*24*3600*1000)+1) * time.Millisecond
		now := time.UnixMilli(nowMilli)
		read := [2]Read{{Value: raw, Found: found}, {Value: raw, Found: found}}
		for _, alg := range Algorithms {
			l := mustNew(t, Config{Name: "f", Algorithm: alg, Limit: limit, Window: window})
			p := l.Plan(now, "c")
			d := l.Decide(p, read)
			if d.Limit != limit || d.Allowed != (d.Write.Key != "") || (d.Allowed && d.Write.TTL < 60*time.Second) {
				t.Fatalf("%s: %+v: limit, write and allowed disagree", alg, d)
			}
			// DeniesByCount answers for the fixed window only, and there
			// exactly when Decide denies by the count, in the plan's window.
			if got, want := l.DeniesByCount(&p, &read), alg == FixedWindow && !d.Allowed && !d.FailClosed; got != want {
				t.Fatalf("%s: stored %q (found %v) limit %d: DeniesByCount %v, want %v (%+v)", alg, raw, found, limit, got, want, d)
			}
			if alg == FixedWindow && !d.Allowed && d.Window != p.Window {
				t.Fatalf("denied in window %d, planned for %d", d.Window, p.Window)
			}
			if alg != FixedWindow {
				continue
			}
			count := int64(0)
			if found {
				count = refCount(raw)
			}
			if d.Count != count || d.Allowed != (count < limit) {
				t.Fatalf("stored %q (found %v) limit %d: count %d allowed %v, want count %d", raw, found, limit, d.Count, d.Allowed, count)
			}
			if !d.Allowed {
				if d.Remaining != 0 {
					t.Fatalf("denied with remaining %d", d.Remaining)
				}
				continue
			}
			if d.Remaining != limit-count-1 {
				t.Fatalf("stored %q limit %d: remaining %d, want %d", raw, limit, d.Remaining, limit-count-1)
			}
			want := strconv.FormatInt(count+1, 10)
			if count <= -maxExact {
				_, f := refParse(raw)
				want = jsNumberString(f + 1)
			}
			if d.Write.Key != p.Keys[0] || d.Write.Value != want || d.Write.TTL != max(60*time.Second, window) {
				t.Fatalf("stored %q: write %+v, want %q to %s with TTL max(60s, %v)", raw, d.Write, want, p.Keys[0], window)
			}
		}
	})
}

// FuzzPlanWith holds PlanWith to Plan: for any sequence of callers and
// times planned through one Keys, every plan is the one Plan makes. For the
// times Unix nanoseconds hold, PlanIntoUnixNano too, through a fresh Keys
// (as the simulator plans a new window) and through one kept across calls,
// and the window's bounds in nanoseconds each leaves in its Keys
// (checkWindowUnixNano).
func FuzzPlanWith(f *testing.F) {
	f.Add(int64(1_700_000_000_000), int64(86400_000), []byte{0, 1, 1, 0, 200, 3})
	f.Add(int64(0), int64(1000), []byte{7, 7, 7, 255})
	f.Add(int64(-5), int64(1), []byte{})
	f.Add(int64(9_223_372_036_853), int64(0), []byte{4, 4, 4, 4})
	f.Add(int64(-9_223_372_036_854), int64(0), []byte{4, 4, 4, 4})
	f.Fuzz(func(t *testing.T, startMilli, windowSeed int64, steps []byte) {
		window := time.Duration(uint64(windowSeed)%(400*24*3600*1000)+1) * time.Millisecond
		callers := []string{"a:1.2.3.4", "b:unknown", "a:1.2.3.4"[:1]}
		for _, alg := range Algorithms {
			l := mustNew(t, Config{Name: "f", Algorithm: alg, Limit: 5, Window: window})
			var k, kn Keys
			now := time.UnixMilli(startMilli)
			for _, s := range steps {
				// The low bits pick the caller, the rest how far time moves.
				caller := callers[int(s&3)%len(callers)]
				now = now.Add(time.Duration(s>>2) * window / 16)
				if got, want := l.PlanWith(&k, now, caller), l.Plan(now, caller); got != want {
					t.Fatalf("%s: PlanWith(%v, %q) = %+v, want %+v", alg, now, caller, got, want)
				}
				ns := now.UnixNano()
				if !time.Unix(0, ns).Equal(now) {
					continue
				}
				want := l.Plan(now, caller)
				for _, keys := range []*Keys{&kn, {}} {
					var got Plan
					l.PlanIntoUnixNano(&got, keys, ns, caller)
					if got != want {
						t.Fatalf("%s: PlanIntoUnixNano(%d, %q) = %+v, want %+v", alg, ns, caller, got, want)
					}
					checkWindowUnixNano(t, l, keys, caller, ns, got)
				}
			}
		}
	})
}

// TestWindowUnixNanoAtTheEnds holds Keys.WindowUnixNano to Plan where a
// window's bounds in nanoseconds are at or beyond int64's ends (the last
// and first windows Unix nanoseconds reach): the range is empty there, so
// that a driver plans every request of that window again, and exact
// (checkWindowUnixNano) a millisecond further in. Each instant is planned
// by PlanIntoUnixNano into a fresh Keys, and again into the same one.
func TestWindowUnixNanoAtTheEnds(t *testing.T) {
	const ms = int64(time.Millisecond)
	tests := []struct {
		name   string
		window time.Duration
		ns     int64
		empty  bool
	}{
		{"the epoch", 24 * time.Hour, 0, false},
		{"just before the epoch", 24 * time.Hour, -1, false},
		{"the last instant, a day's window", 24 * time.Hour, math.MaxInt64, true},
		{"an hour before the last instant, a day's window", 24 * time.Hour, math.MaxInt64 - int64(time.Hour), true},
		{"the first instant, a day's window", 24 * time.Hour, math.MinInt64, true},
		{"an hour after the first instant, a day's window", 24 * time.Hour, math.MinInt64 + int64(time.Hour), true},
		{"a day after the first instant, a day's window", 24 * time.Hour, math.MinInt64 + int64(24*time.Hour), false},
		{"the last instant, a millisecond's window", time.Millisecond, math.MaxInt64, true},
		{"a window ending within a millisecond of the end", time.Millisecond, math.MaxInt64 - ms, true},
		{"the last window whose end is a millisecond from the end", time.Millisecond, math.MaxInt64 - 2*ms, false},
		{"the first instant, a millisecond's window", time.Millisecond, math.MinInt64, true},
		{"a window starting within a millisecond of the start", time.Millisecond, math.MinInt64 + ms, true},
		{"the first window starting a millisecond from the start", time.Millisecond, math.MinInt64 + 2*ms, false},
	}
	for _, tc := range tests {
		for _, alg := range Algorithms {
			t.Run(tc.name+"/"+string(alg), func(t *testing.T) {
				l := mustNew(t, Config{Name: "e", Algorithm: alg, Limit: 5, Window: tc.window})
				want := l.Plan(time.Unix(0, tc.ns), "c:1")
				var k Keys
				for range 2 { // a fresh Keys, then the same one again
					var got Plan
					l.PlanIntoUnixNano(&got, &k, tc.ns, "c:1")
					if got != want {
						t.Fatalf("PlanIntoUnixNano(%d) = %+v, want %+v", tc.ns, got, want)
					}
					if from, to := k.WindowUnixNano(); (from >= to) != tc.empty {
						t.Fatalf("WindowUnixNano() = [%d, %d) for window %d, want it empty: %v", from, to, got.Window, tc.empty)
					}
					checkWindowUnixNano(t, l, &k, "c:1", tc.ns, got)
				}
			})
		}
	}
	var zero Keys
	if from, to := zero.WindowUnixNano(); from != 0 || to != 0 {
		t.Errorf("a zero Keys' WindowUnixNano() = [%d, %d), want [0, 0)", from, to)
	}
}

// checkWindowUnixNano holds k.WindowUnixNano() to Plan after k planned p
// for caller at ns: what the simulator relies on to keep a plan without
// asking again. A range that is not empty holds ns; at its first and last
// instant (and at ns) Plan is p with Into counted from its start, and just
// outside it Plan is for the window before or after. An empty range is
// only for a window that starts or ends within a millisecond of int64
// nanoseconds' ends, or beyond them.
func checkWindowUnixNano(t *testing.T, l *Limiter, k *Keys, caller string, ns int64, p Plan) {
	t.Helper()
	from, to := k.WindowUnixNano()
	if from >= to {
		width := big.NewInt(l.cfg.Window.Nanoseconds())
		start := new(big.Int).Mul(big.NewInt(p.Window), width)
		end := new(big.Int).Add(start, width)
		if start.Cmp(big.NewInt(math.MinInt64+int64(time.Millisecond))) >= 0 && end.Cmp(big.NewInt(math.MaxInt64-int64(time.Millisecond))) <= 0 {
			t.Fatalf("WindowUnixNano() = [%d, %d), empty, for window %d, [%v, %v) in nanoseconds, which int64 holds", from, to, p.Window, start, end)
		}
		return
	}
	if ns < from || ns >= to {
		t.Fatalf("WindowUnixNano() = [%d, %d) does not hold %d, the instant planned", from, to, ns)
	}
	for _, at := range []int64{from, ns, to - 1} {
		want := p
		want.Into = time.Duration(at - from)
		if got := l.Plan(time.Unix(0, at), caller); got != want {
			t.Fatalf("WindowUnixNano() = [%d, %d): Plan at %d = %+v, want %+v", from, to, at, got, want)
		}
	}
	if from > math.MinInt64 {
		if got := l.Plan(time.Unix(0, from-1), caller).Window; got != p.Window-1 {
			t.Fatalf("WindowUnixNano() = [%d, %d): Plan at %d is for window %d, want %d", from, to, from-1, got, p.Window-1)
		}
	}
	if got := l.Plan(time.Unix(0, to), caller).Window; got != p.Window+1 {
		t.Fatalf("WindowUnixNano() = [%d, %d): Plan at %d is for window %d, want %d", from, to, to, got, p.Window+1)
	}
}
