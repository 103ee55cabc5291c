package attack

import (
	"fmt"
	"testing"
	"time"
)

func TestParsePolicy(t *testing.T) {
	tests := []struct {
		in     string
		limit  int64
		window time.Duration
	}{
		{`"default";q=5;w=10`, 5, 10 * time.Second},
		{`"roast";q=100;w=86400, "burst";q=10;w=1`, 100, 24 * time.Hour},
		{`"x"; w=0.5; q=3`, 3, 500 * time.Millisecond},
		{`"x";q=5`, 0, 0},
		{`"x";w=60`, 0, 0},
		{`"x";q=-5;w=60`, 0, 0},
		{`"x";q=abc;w=60`, 0, 0},
		{``, 0, 0},
		{`q=5;w=10`, 0, 0},
	}
	for _, tc := range tests {
		l, w := ParsePolicy(tc.in)
		if l != tc.limit || w != tc.window {
			t.Errorf("ParsePolicy(%q) = %d, %v; want %d, %v", tc.in, l, w, tc.limit, tc.window)
		}
	}
}

func TestRemainingZero(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{`"default";r=0;t=10`, true},
		{`"default";r=3;t=10`, false},
		{`"a";t=1;r=0, "b";r=5`, true},
		{`"a";r=5, "b";r=0`, false},
		{`"a";r=x`, false},
		{``, false},
	}
	for _, tc := range tests {
		if got := remainingZero(tc.in); got != tc.want {
			t.Errorf("remainingZero(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestRemaining(t *testing.T) {
	tests := []struct {
		in   string
		n    int64
		says bool
	}{
		{`"default";r=4;t=10`, 4, true},
		{`"default";t=10; r=0`, 0, true},
		{`"a";r=99999999999999999999`, 0, false},
		{`"a";r=7, "b";r=1`, 7, true},
		{`"a";t=3, "b";r=1`, 0, false},
		{`"a";r=`, 0, false},
		{``, 0, false},
	}
	for _, tc := range tests {
		if n, says := remaining(tc.in); n != tc.n || says != tc.says {
			t.Errorf("remaining(%q) = %d, %v; want %d, %v", tc.in, n, says, tc.n, tc.says)
		}
	}
}

func FuzzRemaining(f *testing.F) {
	for _, s := range []string{`"default";r=4;t=10`, `"a";r=-1`, `;;r=;=`, `"x";r=9223372036854775807`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, says := remaining(s)
		if !says && n != 0 {
			t.Errorf("remaining(%q) = %d, false: a field that says nothing must give 0", s, n)
		}
		if remainingZero(s) != (says && n <= 0) {
			t.Errorf("remainingZero(%q) disagrees with remaining: %d, %v", s, n, says)
		}
	})
}

func FuzzParsePolicy(f *testing.F) {
	for _, s := range []string{`"default";q=5;w=10`, `"a";q=1;w=0.001, "b"`, `;;;=`, `"x";w=1e300;q=9223372036854775807`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, w := ParsePolicy(s)
		if (l == 0) != (w == 0) || l < 0 || w < 0 {
			t.Errorf("ParsePolicy(%q) = %d, %v: both or neither must be set, never negative", s, l, w)
		}
	})
}

func ExampleParsePolicy() {
	limit, window := ParsePolicy(`"default";q=5;w=10`)
	fmt.Println(limit, window)
	// Output: 5 10s
}
