package model

import (
	"errors"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

const sec = time.Second

// newTestKV is a KV over locations A and B with constant latencies (hot
// 1 ms, cold 10 ms, write 50 ms) and p's other settings.
func newTestKV(t *testing.T, edit func(p *scenario.KV)) (*KV, *measure.KVCounters) {
	t.Helper()
	p := kvParams(1, 10, 50)
	if edit != nil {
		edit(&p)
	}
	// KVCounters needs its visibility bins, which only NewRecorder prepares.
	ctr := &measure.NewRecorder(measure.Config{Limit: 1, Window: time.Minute, Populations: []measure.Population{{}}}).KV
	s, err := NewKV(KVConfig{Params: kvParamsOf(t, p, "A", "B"), Locations: 2, Start: epoch, Rand: TrialRand(1, 0), Counters: ctr})
	if err != nil {
		t.Fatal(err)
	}
	return s, ctr
}

// put writes and commits at once after the write latency; it returns the
// commit time.
func put(t *testing.T, s *KV, now time.Duration, loc int, key, value string, readVersion uint64) time.Duration {
	t.Helper()
	w, lat, err := s.Write(now, loc, AnyDomain, key, value, 60*sec, readVersion)
	if err != nil {
		t.Fatalf("put %s=%s at %v: %v", key, value, now, err)
	}
	s.Commit(now+lat, w)
	return now + lat
}

func TestKVNegativeCachingAndTTL(t *testing.T) {
	s, _ := newTestKV(t, nil)
	// B caches "missing" at t=0 (cold read), then A writes.
	if r := s.Read(0, 1, AnyDomain, "k"); r.Found || r.Latency != 10*time.Millisecond {
		t.Fatalf("first read at B = %+v, want missing after a cold 10ms", r)
	}
	at := put(t, s, sec, 0, "k", "1", 0)
	if at != sec+50*time.Millisecond {
		t.Fatalf("commit at %v, want 1.05s", at)
	}
	// A sees its own write at once (read-your-writes holds: p = 0).
	if r := s.Read(at, 0, AnyDomain, "k"); !r.Found || r.Value != "1" || r.Latency != time.Millisecond {
		t.Errorf("A after its write = %+v, want hot \"1\"", r)
	}
	// B keeps "missing" until its entry expires at 60 s ...
	if r := s.Read(59*sec, 1, AnyDomain, "k"); r.Found {
		t.Errorf("B at 59s = %+v, want cached missing", r)
	}
	// ... and then fetches "1".
	if r := s.Read(60*sec, 1, AnyDomain, "k"); !r.Found || r.Value != "1" || r.Latency != 10*time.Millisecond {
		t.Errorf("B at 60s = %+v, want a cold read of \"1\"", r)
	}
	// The key expires 60 s after its put (1.05 s + 60 s); B's cached copy
	// expires with it, though fetched at 60 s.
	if r := s.Read(at+60*sec, 1, AnyDomain, "k"); r.Found {
		t.Errorf("B after expiry = %+v, want missing", r)
	}
	if r := s.Read(at+60*sec, 0, AnyDomain, "k"); r.Found {
		t.Errorf("A after expiry = %+v, want missing", r)
	}
}

func TestKVReadYourWritesFailure(t *testing.T) {
	s, _ := newTestKV(t, func(p *scenario.KV) { p.ReadYourWritesP = 1 })
	s.Read(0, 0, AnyDomain, "k") // A caches missing
	at := put(t, s, sec, 0, "k", "1", 0)
	if r := s.Read(at, 0, AnyDomain, "k"); r.Found {
		t.Errorf("A after its write with p = 1: %+v, want its stale missing", r)
	}
}

func TestKVPurge(t *testing.T) {
	s, _ := newTestKV(t, func(p *scenario.KV) { p.Purge = scenario.Purge{Enabled: true, Lag: ms(2000)} })
	s.Read(0, 1, AnyDomain, "k")         // B caches missing
	at := put(t, s, sec, 0, "k", "1", 0) // commits at 1.05 s; purge reaches B at 3.05 s
	if r := s.Read(at+1999*time.Millisecond, 1, AnyDomain, "k"); r.Found {
		t.Errorf("B before the purge arrives: %+v, want missing", r)
	}
	if r := s.Read(at+2*sec, 1, AnyDomain, "k"); !r.Found || r.Value != "1" {
		t.Errorf("B once the purge arrived: %+v, want \"1\"", r)
	}
}

func TestKVCacheDomains(t *testing.T) {
	// With 4 domains at A, a write from A is seen at once only in the
	// domain it used; the others keep their cached "missing". Reading many
	// times must show both answers.
	s, _ := newTestKV(t, func(p *scenario.KV) { p.CacheDomains = 4 })
	for i := 0; i < 50; i++ {
		s.Read(0, 0, AnyDomain, "k")
	}
	at := put(t, s, sec, 0, "k", "1", 0)
	seen := map[bool]int{}
	for i := 0; i < 200; i++ {
		seen[s.Read(at, 0, AnyDomain, "k").Found]++
	}
	if seen[true] == 0 || seen[false] == 0 {
		t.Errorf("reads at A across 4 domains after a write: %v, want some fresh and some stale", seen)
	}
}

func TestKVWriteLimit(t *testing.T) {
	for _, scope := range []string{"global", "location"} {
		s, ctr := newTestKV(t, func(p *scenario.KV) { p.WriteLimit = scenario.WriteLimit{PerSecond: 1, Scope: scope} })
		put(t, s, 0, 0, "k", "1", 0)
		// A again 0.5 s later: 429 in either scope.
		if _, lat, err := s.Write(500*time.Millisecond, 0, AnyDomain, "k", "2", 60*sec, 0); !errors.Is(err, kv.ErrWriteRateLimited) || lat != 50*time.Millisecond {
			t.Errorf("%s: second write from A after 0.5s: %v after %v, want 429 after 50ms", scope, err, lat)
		} else if err.Error() != "KV PUT failed: 429 Too Many Requests" {
			t.Errorf("message %q", err)
		}
		// B 0.5 s later: 429 only when the limit is global.
		_, _, err := s.Write(500*time.Millisecond, 1, AnyDomain, "k", "2", 60*sec, 0)
		if scope == "global" && err == nil || scope == "location" && err != nil {
			t.Errorf("%s: write from B after 0.5s: %v", scope, err)
		}
		// A exactly 1 s after its accepted write: accepted.
		if _, _, err := s.Write(sec, 0, AnyDomain, "k", "3", 60*sec, 0); scope == "location" && err != nil {
			t.Errorf("%s: write from A after 1s: %v", scope, err)
		}
		// Another key is not limited.
		if _, _, err := s.Write(600*time.Millisecond, 0, AnyDomain, "other", "1", 60*sec, 0); err != nil {
			t.Errorf("%s: another key: %v", scope, err)
		}
		if ctr.WriteRateLimited < 1 {
			t.Errorf("%s: 429s not counted: %+v", scope, ctr)
		}
	}
}

func TestKVInvalidTTLAndQuota(t *testing.T) {
	s, ctr := newTestKV(t, func(p *scenario.KV) { p.DailyWriteQuota = 2; p.DailyReadQuota = 3 })
	if _, lat, err := s.Write(0, 0, AnyDomain, "k", "1", 59*sec, 0); !errors.Is(err, kv.ErrInvalidTTL) || lat <= 0 ||
		err.Error() != "Invalid expiration_ttl of 59. Expiration TTL must be at least 60." {
		t.Errorf("ttl 59s: %v after %v", err, lat)
	}
	put(t, s, 0, 0, "a", "1", 0)
	put(t, s, 0, 0, "b", "1", 0)
	if _, _, err := s.Write(sec, 0, AnyDomain, "c", "1", 60*sec, 0); !errors.Is(err, kv.ErrDailyQuota) || err.Error() != "KV put() limit exceeded for the day." {
		t.Errorf("third write of the day: %v, want the daily quota error", err)
	}
	for i := 0; i < 3; i++ {
		if r := s.Read(sec, 0, AnyDomain, "a"); r.Err != nil {
			t.Fatalf("read %d: %v", i, r.Err)
		}
	}
	if r := s.Read(sec, 0, AnyDomain, "a"); !errors.Is(r.Err, kv.ErrDailyQuota) {
		t.Errorf("fourth read of the day: %v, want the daily quota error", r.Err)
	}
	// The trial starts at 00:00 UTC: the quota resets 24 h later.
	if _, _, err := s.Write(24*time.Hour, 0, AnyDomain, "c", "1", 60*sec, 0); err != nil {
		t.Errorf("write after midnight: %v", err)
	}
	if ctr.QuotaErrors != 2 || ctr.WriteErrors != 2 {
		t.Errorf("quota errors %d, write errors %d; want 2 and 2 (one quota, one ttl)", ctr.QuotaErrors, ctr.WriteErrors)
	}
}

func TestKVOutagesAndErrorRate(t *testing.T) {
	s, _ := newTestKV(t, func(p *scenario.KV) {
		p.Outages = []scenario.Outage{
			{Start: dur(10 * sec), Duration: dur(10 * sec), Location: "B", Ops: "write"},
			{Start: dur(30 * sec), Duration: dur(sec)},
		}
	})
	cases := []struct {
		at    time.Duration
		loc   int
		write bool
		fail  bool
	}{
		{9 * sec, 1, true, false},
		{10 * sec, 1, true, true},
		{10 * sec, 1, false, false},
		{10 * sec, 0, true, false},
		{20 * sec, 1, true, false},
		{30 * sec, 0, false, true},
		{30 * sec, 1, true, true},
		{31 * sec, 0, false, false},
	}
	for i, c := range cases {
		var err error
		if c.write {
			_, _, err = s.Write(c.at, c.loc, AnyDomain, "k"+string(rune('a'+i)), "1", 60*sec, 0)
		} else {
			err = s.Read(c.at, c.loc, AnyDomain, "k").Err
		}
		if (err != nil) != c.fail || err != nil && !errors.Is(err, kv.ErrUnavailable) {
			t.Errorf("case %d (%v, loc %d, write %v): err %v, want failure %v", i, c.at, c.loc, c.write, err, c.fail)
		}
	}
	s, _ = newTestKV(t, func(p *scenario.KV) { p.ErrorRate = scenario.ErrorRate{Read: 1} })
	if r := s.Read(0, 0, AnyDomain, "k"); !errors.Is(r.Err, kv.ErrUnavailable) {
		t.Errorf("read with error rate 1: %v", r.Err)
	}
}

// TestKVLostUpdatesAndVisibility: two writers read "missing", both write
// "1"; a third writes "2". Reads after the first two count towards
// t-visibility: fresh at the writer, stale elsewhere. Three increments
// acknowledged, a count of 2 when the key's life ends: one lost update,
// counted when the sweep drops the key, and none before the store settles
// (a life still running, or a store not told its values are counts).
func TestKVLostUpdatesAndVisibility(t *testing.T) {
	s, ctr := newTestKV(t, nil)
	s.CountIncrements()
	ra := s.Read(0, 0, AnyDomain, "k")
	rb := s.Read(0, 1, AnyDomain, "k")
	wa, _, _ := s.Write(sec, 0, AnyDomain, "k", "1", 60*sec, ra.Version)
	wb, _, _ := s.Write(sec, 1, AnyDomain, "k", "1", 60*sec, rb.Version)
	s.Commit(2*sec, wa)
	s.Commit(3*sec, wb)
	// A holds its own write (version 1), central holds B's (version 2):
	// A's read at 4 s is stale, 1 s after the latest commit; B's is fresh.
	s.Read(4*sec, 0, AnyDomain, "k")
	s.Read(4*sec, 1, AnyDomain, "k")
	if ctr.StaleReads != 1 {
		t.Errorf("stale reads %d, want 1", ctr.StaleReads)
	}
	var reads, fresh int64
	for i := range ctr.VisReads {
		reads += ctr.VisReads[i]
		fresh += ctr.VisFresh[i]
	}
	if reads != 2 || fresh != 1 {
		t.Errorf("visibility: %d reads, %d fresh; want 2 and 1", reads, fresh)
	}
	w, _, _ := s.Write(5*sec, 0, AnyDomain, "k", "2", 60*sec, UnknownVersion)
	s.Commit(6*sec, w)
	if ctr.LostUpdates != 0 {
		t.Errorf("lost updates %d while the key lives, want none yet", ctr.LostUpdates)
	}
	s.Read(2*time.Minute, 0, AnyDomain, "other") // the sweep at 2 min drops k, expired at 66 s
	if ctr.LostUpdates != 1 {
		t.Errorf("lost updates %d after the key's life, want 1", ctr.LostUpdates)
	}
	s2, ctr2 := newTestKV(t, nil)
	for i := range 2 {
		w, _, _ := s2.Write(sec, 0, AnyDomain, "k", "1", 60*sec, 0)
		s2.Commit(time.Duration(2+i)*sec, w)
	}
	s2.Settle(5 * sec)
	if ctr2.LostUpdates != 0 {
		t.Errorf("a store not told its values are counts counted %d lost updates", ctr2.LostUpdates)
	}
	s2.CountIncrements()
	for i := range 2 {
		w, _, _ := s2.Write(6*sec, 0, AnyDomain, "k", "2", 60*sec, 0)
		s2.Commit(time.Duration(7+i)*sec, w)
	}
	s2.Settle(10 * sec)
	if ctr2.LostUpdates != 0 {
		t.Errorf("two increments and a count of 2: %d lost updates, want none", ctr2.LostUpdates)
	}
}

// TestKVSweep checks that expired keys and cache entries are dropped.
func TestKVSweep(t *testing.T) {
	s, _ := newTestKV(t, nil)
	for i := 0; i < 1000; i++ {
		k := "k" + string(rune(i))
		s.Read(0, 1, AnyDomain, k)
		put(t, s, 0, 0, k, "1", 0)
	}
	if n := s.Len(); n != 1000 {
		t.Fatalf("holds %d keys, want 1000", n)
	}
	s.Read(2*time.Minute, 0, AnyDomain, "x") // triggers a sweep; everything has expired
	if n := s.Len(); n != 1 {
		t.Errorf("after expiry holds %d keys, want 1 (the key just read)", n)
	}
}

func TestKVBadConfig(t *testing.T) {
	bad := []func(p *scenario.KV){
		func(p *scenario.KV) { p.CacheTTL = dur(time.Second) },
		func(p *scenario.KV) { p.ReadYourWritesP = 1.5 },
		func(p *scenario.KV) { p.WriteLimit = scenario.WriteLimit{PerSecond: 1, Scope: "planet"} },
		func(p *scenario.KV) { p.Outages = []scenario.Outage{{Location: "Mars", Duration: dur(time.Minute)}} },
		func(p *scenario.KV) { p.Outages = []scenario.Outage{{Ops: "delete", Duration: dur(time.Minute)}} },
		func(p *scenario.KV) { p.HotRead = scenario.Latency{Dist: "weird"} },
	}
	for i, edit := range bad {
		p := kvParams(1, 1, 1)
		edit(&p)
		if _, err := compileTest(kvScenario(1, time.Minute, p, []string{"A"}, time.Minute, closedLoop(bot("b"), 1, ms(1)))); err == nil {
			t.Errorf("bad config %d accepted", i)
		}
	}
	if _, err := NewKV(KVConfig{Params: kvParamsOf(t, kvParams(1, 1, 1), "A"), Locations: 1}); err == nil {
		t.Error("a KV without a random source was accepted")
	}
}

// TestKVCacheDomainPer: with caches picked per request, a request's write
// lands in the cache its read used; picked per operation, a write lands in
// each of 8 caches about equally often, whatever the read used.
func TestKVCacheDomainPer(t *testing.T) {
	for _, per := range []string{"request", "operation"} {
		s, _ := newTestKV(t, func(p *scenario.KV) { p.CacheDomains = 8; p.CacheDomainPer = per; p.WriteLimit.PerSecond = 0 })
		same := 0
		for i := 0; i < 400; i++ {
			r := s.Read(time.Duration(i)*time.Millisecond, 0, AnyDomain, "k")
			w, _, err := s.Write(time.Duration(i)*time.Millisecond, 0, r.Domain, "k", "1", 60*sec, r.Version)
			if err != nil {
				t.Fatal(err)
			}
			s.Commit(time.Duration(i)*time.Millisecond, w)
			if w.Domain == r.Domain {
				same++
			}
		}
		switch {
		case per == "request" && same != 400:
			t.Errorf("per request: %d of 400 writes in their read's cache, want all", same)
		case per == "operation" && (same < 20 || same > 90): // expect 400/8 = 50
			t.Errorf("per operation: %d of 400 writes in their read's cache, want about 50", same)
		}
	}
}

// TestKVStalenessFromTheReplacingWrite: B caches "1"; A then writes "2"
// (committed at 10.05 s) and "3" (at 20.05 s); B's read at 30 s still gets
// "1" from its cache. That value has been outdated since "2" committed:
// staleness 19.95 s, not the 9.95 s since the latest write.
func TestKVStalenessFromTheReplacingWrite(t *testing.T) {
	s, ctr := newTestKV(t, func(p *scenario.KV) { p.WriteLimit.PerSecond = 0 })
	put(t, s, 0, 0, "k", "1", UnknownVersion)
	if r := s.Read(sec, 1, AnyDomain, "k"); r.Value != "1" {
		t.Fatalf("B's first read = %q, want 1", r.Value)
	}
	put(t, s, 10*sec, 0, "k", "2", UnknownVersion)
	put(t, s, 20*sec, 0, "k", "3", UnknownVersion)
	if r := s.Read(30*sec, 1, AnyDomain, "k"); r.Value != "1" {
		t.Fatalf("B's cached read = %q, want the stale 1", r.Value)
	}
	st := ctr.Staleness.Stats()
	if ctr.StaleReads != 1 || st.Max < 19_900 || st.Max > 20_000 {
		t.Errorf("stale reads %d, staleness %+v ms; want one read stale for 19950 ms", ctr.StaleReads, st)
	}
}
