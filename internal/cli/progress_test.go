package cli

import (
	"testing"
	"time"
)

func TestTimeLeft(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "about 0 s left"},
		{1400 * time.Millisecond, "about 1 s left"},
		{119 * time.Second, "about 119 s left"},
		{2 * time.Minute, "about 2 min left"},
		{119 * time.Minute, "about 119 min left"},
		{2*time.Hour + 5*time.Minute, "about 2 h 05 min left"},
	} {
		if got := TimeLeft(tc.d); got != tc.want {
			t.Errorf("TimeLeft(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}
