package measure

import (
	"strings"
	"testing"
)

// TestThousands: counts are written with a comma every three digits.
func TestThousands(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1,000"}, {8273044, "8,273,044"}, {-1234567, "-1,234,567"}, {100000, "100,000"}} {
		if got := Thousands(tc.n); got != tc.want {
			t.Errorf("Thousands(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestWrap(t *testing.T) {
	q := "How many requests does the seed's endpoint let one bot loop through? The endpoint allows 5 requests per day."
	for _, tc := range []struct {
		width int
		want  string
	}{
		{80, "  question: How many requests does the seed's endpoint let one bot loop through?\n" +
			"            The endpoint allows 5 requests per day."},
		{60, "  question: How many requests does the seed's endpoint let\n" +
			"            one bot loop through? The endpoint allows 5\n" +
			"            requests per day."},
		{10, "  question: How many requests does the\n" + // below 40: 40
			"            seed's endpoint let one bot\n" +
			"            loop through? The endpoint\n" +
			"            allows 5 requests per day."},
	} {
		got := Wrap("  question: ", q, tc.width)
		if got != tc.want {
			t.Errorf("width %d:\n%s\nwant\n%s", tc.width, got, tc.want)
		}
		for _, l := range strings.Split(got, "\n") {
			if len(l) > max(tc.width, 40) {
				t.Errorf("width %d: line %q is %d long", tc.width, l, len(l))
			}
		}
	}
	if got := Wrap("  q: ", "averyveryveryveryveryveryveryveryveryveryverylongword x", 40); got != "  q: averyveryveryveryveryveryveryveryveryveryverylongword\n     x" {
		t.Errorf("a long word: %q", got)
	}
}

// TestLimiterLine: the terminal's limiter line names the algorithm as
// every writer does (LimiterRef.AlgorithmText): "atomic" before it, gcra's
// burst after it.
func TestLimiterLine(t *testing.T) {
	for _, tc := range []struct {
		l    LimiterRef
		want string
	}{
		{LimiterRef{Algorithm: "fixed-window", Limit: 5, Window: "1m0s", Store: "redis", ErrorPolicy: "fail-open"},
			"  limiter:  fixed-window, 5 per 1m0s keyed by token and IP, store redis, fail-open\n"},
		{LimiterRef{Algorithm: "fixed-window", Update: "atomic", Limit: 5, Window: "1m0s", Store: "redis", ErrorPolicy: "fail-closed"},
			"  limiter:  atomic fixed-window, 5 per 1m0s keyed by token and IP, store redis, fail-closed\n"},
		{LimiterRef{Algorithm: "gcra", Update: "atomic", Burst: 3, Limit: 5, Window: "1m0s", Key: "ip", Store: "redis", ErrorPolicy: "fail-open"},
			"  limiter:  atomic gcra (burst 3), 5 per 1m0s keyed by IP, store redis, fail-open\n"},
	} {
		var b strings.Builder
		if err := WriteHeader(&b, &Summary{Mode: "simulate", Limiter: tc.l}, 80); err != nil {
			t.Fatal(err)
		}
		var line string
		for _, l := range strings.SplitAfter(b.String(), "\n") {
			if strings.HasPrefix(l, "  limiter:") {
				line = l
			}
		}
		if line != tc.want {
			t.Errorf("limiter line %q, want %q", line, tc.want)
		}
	}
}

// TestStoreLine: KV's two refusals (429 and quota) are named on a KV
// store's line, and on another store's only when it had some.
func TestStoreLine(t *testing.T) {
	for _, tc := range []struct {
		store    string
		kv       KVWork
		want     string
		wantNone bool
	}{
		{store: "kv", kv: KVWork{Observed: true, Writes: 10}, want: "write errors 0 (429: 0, quota: 0), "},
		{store: "redis", kv: KVWork{Observed: true, Writes: 10, WriteErrors: 4}, want: "write errors 4, lost updates", wantNone: true},
		{store: "memory", kv: KVWork{Observed: true, Writes: 10, WriteErrors: 2, WriteRateLimited: 2}, want: "write errors 2 (429: 2, quota: 0), "},
	} {
		var b strings.Builder
		p := &printer{w: &b}
		p.store(&Summary{Limiter: LimiterRef{Store: tc.store}, KV: tc.kv})
		got := b.String()
		if !strings.Contains(got, tc.want) || tc.wantNone && strings.Contains(got, "429") {
			t.Errorf("store %s: line %q, want it to hold %q", tc.store, got, tc.want)
		}
	}
}
