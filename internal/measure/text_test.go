package measure

import "testing"

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
