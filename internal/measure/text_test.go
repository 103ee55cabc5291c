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
