package simulatecmd

import (
	"testing"
	"time"
)

func TestProgressLine(t *testing.T) {
	for _, tc := range []struct {
		i, points, done, total int
		el                     time.Duration
		want                   string
	}{
		{0, 1, 25, 100, 3 * time.Second, "trial 25/100, about 9 s left"},
		{0, 1, 0, 100, 3 * time.Second, "trial 0/100"},
		{0, 1, 100, 100, 3 * time.Second, "trial 100/100"},
		{1, 4, 50, 100, 30 * time.Second, "point 2/4: trial 50/100, about 50 s left"},
		{0, 2, 10, 100, time.Minute, "point 1/2: trial 10/100, about 19 min left"},
		{0, 1, 1, 100, time.Hour, "trial 1/100, about 99 h 00 min left"},
		{0, 1, 5, 0, time.Second, "trial 5/0"},
	} {
		if got := progressLine(tc.i, tc.points, tc.done, tc.total, tc.el); got != tc.want {
			t.Errorf("progressLine(%d, %d, %d, %d, %v) = %q, want %q", tc.i, tc.points, tc.done, tc.total, tc.el, got, tc.want)
		}
	}
}
