package measure

import (
	"slices"
	"testing"
	"time"
)

// TestRecorderOneKey counts by hand: limit 5, window 10 s; window 0 allows 7
// (2 over), window 1 allows 3, and a legitimate request denied at a true
// count of 3 is a false denial.
func TestRecorderOneKey(t *testing.T) {
	start := time.Unix(0, 0)
	r := NewRecorder(Config{Limit: 5, Window: 10 * time.Second, Start: start,
		Populations: []Population{{Name: "bot"}, {Name: "user", Legitimate: true}}})
	at := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	for i := 0; i < 7; i++ {
		r.Record(Event{Pop: 0, Key: "k", Window: 0, At: at(9 + float64(i)/10), Outcome: Allowed})
	}
	r.Record(Event{Pop: 0, Key: "k", Window: 0, At: at(9.8), Outcome: Denied})
	for i := 0; i < 3; i++ {
		r.Record(Event{Pop: 1, Key: "k", Window: 1, At: at(10 + float64(i)/10), Outcome: Allowed})
	}
	r.Record(Event{Pop: 1, Key: "k", Window: 1, At: at(10.5), Outcome: Denied, FailClosed: true})
	r.Record(Event{Pop: 1, Key: "k", Window: 1, At: at(10.6), Outcome: Errored})
	tr := r.Finish(20 * time.Second)
	s := Summarize(Summary{Mode: "simulate"}, 5, []Trial{tr})

	if got, want := s.Totals, (Totals{Requests: 13, Allowed: 10, Denied: 2, Errors: 1, FailClosed: 1, SimulatedSeconds: 20}); got != want {
		t.Errorf("totals = %+v, want %+v", got, want)
	}
	o := s.Overshoot
	if o.KeyWindows != 2 || o.OverLimit != 1 || o.Excess != 2 || o.MaxAllowed != 7 {
		t.Errorf("overshoot = %+v, want 2 key-windows, 1 over, excess 2, max 7", o)
	}
	if o.Ratio.Max != 1.4 || o.Ratio.P50 != 0.6 || o.Ratio.Mean != 1.0 {
		t.Errorf("ratio = %+v, want max 1.4, p50 0.6, mean 1.0", o.Ratio)
	}
	// All 10 allowed fall within 9.0..10.2 s: one window-long interval.
	if o.MaxInInterval != 10 {
		t.Errorf("max in interval = %d, want 10", o.MaxInInterval)
	}
	if s.Populations[1].FalseDenials != 1 || s.Populations[0].FalseDenials != 0 {
		t.Errorf("false denials = %+v", s.Populations)
	}
	if len(s.WorstKeys) != 2 || s.WorstKeys[0].Allowed != 7 || s.WorstKeys[0].WindowStartSecs != 0 || s.WorstKeys[1].WindowStartSecs != 10 {
		t.Errorf("worst keys = %+v", s.WorstKeys)
	}
}

// TestRecorderForgetsQuietKeys shows memory follows live keys: 200,000
// one-request keys over 200 windows leave only the keys of the last windows
// and of twice the 30 s grace period (it is also the sweep period) open.
func TestRecorderForgetsQuietKeys(t *testing.T) {
	r := NewRecorder(Config{Limit: 1, Window: time.Second, Populations: []Population{{Name: "p"}}})
	for i := 0; i < 200000; i++ {
		at := time.Duration(i) * time.Millisecond
		r.Record(Event{Key: string(rune('a'+i%26)) + time.Duration(i).String(), Window: int64(at / time.Second), At: at, Outcome: Allowed})
	}
	if n := len(r.keys); n > 62000 {
		t.Errorf("recorder holds %d keys after 200 windows of 1000 keys each; want at most 62 windows' worth (grace and sweep period, 30 s each, plus one)", n)
	}
	tr := r.Finish(200 * time.Second)
	if tr.Hist[1] != 200000 {
		t.Errorf("hist = %v, want 200000 key-windows of 1", tr.Hist)
	}
}

// TestRecorderLateDecision: a decision that arrives two windows after its
// request was planned (a slow read) still counts in its own window, and
// no key-window is left with nothing allowed.
func TestRecorderLateDecision(t *testing.T) {
	r := NewRecorder(Config{Limit: 1, Window: time.Second, Populations: []Population{{Name: "p"}}})
	r.Record(Event{Key: "k", Window: 0, At: 500 * time.Millisecond, Outcome: Allowed})
	r.Record(Event{Key: "k", Window: 3, At: 3200 * time.Millisecond, Outcome: Allowed})
	r.Record(Event{Key: "k", Window: 1, At: 3300 * time.Millisecond, Outcome: Allowed}) // planned at 1.9 s
	r.Record(Event{Key: "k", Window: 1, At: 3400 * time.Millisecond, Outcome: Allowed})
	tr := r.Finish(4 * time.Second)
	if want := map[int64]int64{1: 2, 2: 1}; len(tr.Hist) != 2 || tr.Hist[1] != 2 || tr.Hist[2] != 1 {
		t.Errorf("hist = %v, want %v (windows 0 and 3 allowed 1, window 1 allowed 2)", tr.Hist, want)
	}
}

// TestFalseDenialsPerClient: two legitimate users behind one key (a NAT
// with a shared token) share a limit of 2. Once the first user spent the
// key's limit, the second user's denial is a correct one: an exact limiter
// on the same requests denies it too. A denial the exact limiter would not
// make (here fail-closed, the store failed with the key under its limit)
// is false, for a user's request; a bot's is counted as wrongly denied
// but is no false denial.
func TestFalseDenialsPerClient(t *testing.T) {
	r := NewRecorder(Config{Limit: 2, Window: time.Minute,
		Populations: []Population{{Name: "users", Legitimate: true}, {Name: "bot"}}})
	ev := func(pop, client int, key string, out Outcome, s int) {
		r.Record(Event{Pop: pop, Client: client, Key: key, Window: 0, At: time.Duration(s) * time.Second, Outcome: out,
			FailClosed: key == "failing"})
	}
	ev(0, 1, "shared", Allowed, 1)
	ev(0, 1, "shared", Allowed, 2)
	ev(0, 1, "shared", Denied, 3) // the key is at its limit: a true denial
	ev(0, 2, "shared", Denied, 4) // so is user 2's, though it had nothing
	ev(0, 3, "failing", Denied, 5)
	ev(0, 3, "failing", Denied, 6)
	ev(0, 3, "failing", Denied, 7) // the exact limiter denies the third
	ev(1, 4, "failing2", Denied, 8)
	tr := r.Finish(time.Minute)
	if got := tr.Populations[0]; got.FalseDenials != 2 || got.FalselyDeniedClients != 1 {
		t.Errorf("users' false denials = %d of %d clients, want 2 of 1", got.FalseDenials, got.FalselyDeniedClients)
	}
	if got := tr.Populations[1].FalseDenials; got != 0 {
		t.Errorf("bot's false denials = %d, want 0", got)
	}
	if got := tr.Reference; got.WronglyDenied != 3 || got.Denied != 3 || got.LetThrough != 0 {
		t.Errorf("reference = %+v, want 3 wrongly denied, 3 denied by it, none let through", got)
	}
}

// TestRecorderFloodBounded: a fail-open flood of 200,000 allowed requests
// on one key in one day-long window keeps at most slideGroups groups, and
// the window-long interval count is the flood's size.
func TestRecorderFloodBounded(t *testing.T) {
	r := NewRecorder(Config{Limit: 5, Window: 24 * time.Hour, Populations: []Population{{Name: "bot"}}})
	for i := 0; i < 200000; i++ {
		r.Record(Event{Key: "k", Window: 0, At: time.Duration(i) * 400 * time.Millisecond, Outcome: Allowed, FailOpen: true})
	}
	if n := len(r.keys["k"].recent); n > slideGroups+1 {
		t.Errorf("key keeps %d groups of allowed times, want at most %d", n, slideGroups+1)
	}
	// 200,000 requests 0.4 s apart span 80,000 s, inside one day.
	if tr := r.Finish(24 * time.Hour); tr.MaxIn != 200000 {
		t.Errorf("max in a window-long interval = %d, want 200000", tr.MaxIn)
	}
}

// TestFalseDenialsLateDecision: a late decision for the previous window
// does not reset a client's count in the current one.
func TestFalseDenialsLateDecision(t *testing.T) {
	r := NewRecorder(Config{Limit: 5, Window: time.Minute, Populations: []Population{{Name: "users", Legitimate: true}}})
	ev := func(w int64, s float64, out Outcome) {
		r.Record(Event{Client: 1, Key: "k", Window: w, At: time.Duration(s * float64(time.Second)), Outcome: out})
	}
	for i := 0; i < 5; i++ {
		ev(1, 61+float64(i), Allowed)
	}
	ev(0, 66, Allowed) // planned in window 0, decided late
	ev(1, 67, Denied)  // the client had 5 in window 1: a true denial
	ev(1, 68, Denied)
	if got := r.Finish(2 * time.Minute).Populations[0].FalseDenials; got != 0 {
		t.Errorf("false denials = %d, want 0", got)
	}
}

// TestReadGroups counts by hand the allowed requests that read each count:
// limit 5; window 0 allows 1 on count 0, 3 on count 1 (a race), 1 on count
// 2, one without a stated remaining (fail-open) and none on 3 or 4; window
// 1 allows 2 on count 0. The largest group is 3, and the worst key-window
// lists its groups by count, count 0 first.
func TestReadGroups(t *testing.T) {
	r := NewRecorder(Config{Limit: 5, Window: 10 * time.Second, Populations: []Population{{Name: "bot"}}})
	at := time.Second
	allow := func(w int64, remaining int64, known bool) {
		at += time.Millisecond
		r.Record(Event{Key: "k", Window: w, At: at + time.Duration(w)*10*time.Second, Outcome: Allowed,
			Remaining: remaining, HasRemaining: known, FailOpen: !known})
	}
	allow(0, 4, true)
	for i := 0; i < 3; i++ {
		allow(0, 3, true)
	}
	allow(0, 2, true)
	allow(0, 0, false)
	allow(0, 99, true) // not a count a limit of 5 reads: left out
	allow(1, 4, true)
	allow(1, 4, true)
	s := Summarize(Summary{Mode: "simulate"}, 5, []Trial{r.Finish(20 * time.Second)})
	if got := s.Overshoot.LargestReadGroup; got != 3 {
		t.Errorf("largest read group = %d, want 3", got)
	}
	if got := s.Overshoot.PerTrial.ReadGroups; len(got) != 1 || got[0] != 3 {
		t.Errorf("per-trial read groups = %v, want [3]", got)
	}
	// Counts 3 and 4, which nothing read, are left out.
	if got, want := s.WorstKeys[0].ReadGroups, []int64{1, 3, 1}; !slices.Equal(got, want) {
		t.Errorf("worst key-window's read groups = %v, want %v", got, want)
	}
}

// TestReadGroupsUnknown leaves the groups out when no event says what
// remained (a target without RateLimit fields).
func TestReadGroupsUnknown(t *testing.T) {
	r := NewRecorder(Config{Limit: 5, Window: 10 * time.Second, Populations: []Population{{Name: "bot"}}})
	for i := 0; i < 7; i++ {
		r.Record(Event{Key: "k", At: time.Duration(i) * time.Millisecond, Outcome: Allowed})
	}
	s := Summarize(Summary{Mode: "attack"}, 5, []Trial{r.Finish(time.Second)})
	if s.Overshoot.LargestReadGroup != 0 || s.Overshoot.PerTrial.ReadGroups != nil || s.WorstKeys[0].ReadGroups != nil {
		t.Errorf("read groups without remaining = %d, %v, %v; want none", s.Overshoot.LargestReadGroup, s.Overshoot.PerTrial.ReadGroups, s.WorstKeys[0].ReadGroups)
	}
}

// TestReadGroupsReused: a closed key-window's tally is handed to a later
// one zeroed. Window 0 lets 3 through on count 0; windows 1-5 one each on
// counts 0 and 1, in tallies taken back from closed windows: the largest
// group stays 3, and the last window lists [1 1 0].
func TestReadGroupsReused(t *testing.T) {
	r := NewRecorder(Config{Limit: 3, Window: time.Minute, Populations: []Population{{Name: "bot"}}})
	allow := func(w, remaining int64, i int) {
		r.Record(Event{Key: "k", Window: w, At: time.Duration(w)*time.Minute + time.Duration(i+1)*time.Second,
			Outcome: Allowed, Remaining: remaining, HasRemaining: true})
	}
	for i := range 3 {
		allow(0, 2, i)
	}
	for w := int64(1); w <= 5; w++ {
		allow(w, 2, 0)
		allow(w, 1, 1)
	}
	// Windows 0 and 1 are open together; from window 2 on, each new
	// window takes the tally of the one that closed as it opened.
	if got := len(r.tallies.buf); got != 2*3 {
		t.Errorf("%d counts in the tallies' buffer, want 6: two tallies, the later windows reusing them", got)
	}
	s := Summarize(Summary{Mode: "simulate"}, 3, []Trial{r.Finish(6 * time.Minute)})
	if s.Overshoot.LargestReadGroup != 3 {
		t.Errorf("largest read group = %d, want 3 (a reused tally not zeroed?)", s.Overshoot.LargestReadGroup)
	}
	for _, k := range s.WorstKeys {
		if k.Window == 5 && !slices.Equal(k.ReadGroups, []int64{1, 1, 0}) {
			t.Errorf("window 5's read groups = %v, want [1 1 0]", k.ReadGroups)
		}
	}
}

// TestRecorderDenied holds Denied to RecordWith: a stream of requests over
// three keys, two populations (one legitimate) and several windows, a
// sweep among them, recorded once with RecordWith alone and once with
// Denied wherever it takes a denied request, gives the same trial.
func TestRecorderDenied(t *testing.T) {
	pops := []Population{{Name: "bot"}, {Name: "user", Legitimate: true}}
	newRec := func() *Recorder {
		return NewRecorder(Config{Limit: 3, Window: 10 * time.Second, Populations: pops})
	}
	slow, fast := newRec(), newRec()
	var slowRefs, fastRefs [3]KeyRef
	keys := [3]string{"a", "b", "c"}
	took := 0
	for i := 0; i < 20000; i++ {
		at := time.Duration(i) * 7 * time.Millisecond
		k := (i * 7 / 3) % 3
		e := Event{Pop: (i / 5) % 2, Client: k, Key: keys[k], Window: int64(at / (10 * time.Second)), At: at, Outcome: Denied,
			Into: at % (10 * time.Second), Planned: true}
		if i%11 == 0 {
			e.Outcome = Allowed
		}
		slow.RecordWith(&slowRefs[k], e)
		if e.Outcome == Denied && fast.Denied(&fastRefs[k], e.Pop, e.Window, e.At, e.Into) {
			took++
			continue
		}
		fast.RecordWith(&fastRefs[k], e)
	}
	if took < 5000 {
		t.Errorf("Denied took %d requests of 20,000: want most of the bots' denied ones", took)
	}
	a, b := slow.Finish(time.Minute), fast.Finish(time.Minute)
	if a.Totals != b.Totals || !slices.Equal(a.Populations, b.Populations) || a.OverLimit != b.OverLimit || a.MaxIn != b.MaxIn || len(a.Hist) != len(b.Hist) ||
		a.Reference != b.Reference {
		t.Errorf("with Denied: %+v %+v, without: %+v %+v", b.Totals, b.Populations, a.Totals, a.Populations)
	}
}

// TestReadGroupsFixedWindowOnly: only a fixed window's remaining is a
// count read; a sliding window's estimate and a bucket's tokens repeat
// without a race, so their requests form no read groups.
func TestReadGroupsFixedWindowOnly(t *testing.T) {
	for _, tc := range []struct {
		alg  string
		want int64
	}{{"fixed-window", 3}, {"", 3}, {"sliding-window", 0}, {"token-bucket", 0}, {"gcra", 0}} {
		r := NewRecorder(Config{Limit: 5, Window: 10 * time.Second, Algorithm: tc.alg, Populations: []Population{{Name: "bot"}}})
		for i := 0; i < 3; i++ {
			r.Record(Event{Key: "k", At: time.Duration(i+1) * time.Millisecond, Outcome: Allowed, Remaining: 3, HasRemaining: true})
		}
		s := Summarize(Summary{Mode: "simulate"}, 5, []Trial{r.Finish(time.Second)})
		if got := s.Overshoot.LargestReadGroup; got != tc.want {
			t.Errorf("%q: largest read group %d, want %d", tc.alg, got, tc.want)
		}
	}
}
