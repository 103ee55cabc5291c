package attackcmd

import (
	"testing"
	"time"
)

// TestFitStart: a run that fits in the rest of its window starts now; one
// that does not, but fits in a window, waits for the next window's start;
// one longer than a window (less the margin) starts now.
func TestFitStart(t *testing.T) {
	minute := time.Unix(1_800_000_000/60*60, 0) // a window boundary of 1m windows
	tests := []struct {
		name   string
		now    time.Time
		w, d   time.Duration
		wantAt time.Time // zero: now
	}{
		{"fits at the window's start", minute, time.Minute, 10 * time.Second, time.Time{}},
		{"fits with the margin to spare", minute.Add(49 * time.Second), time.Minute, 10 * time.Second, time.Time{}},
		{"too near the end", minute.Add(49*time.Second + time.Millisecond), time.Minute, 10 * time.Second, minute.Add(time.Minute)},
		{"last moment of the window", minute.Add(time.Minute - time.Nanosecond), time.Minute, 10 * time.Second, minute.Add(time.Minute)},
		{"a run as long as the window", minute.Add(30 * time.Second), 10 * time.Second, 10 * time.Second, time.Time{}},
		{"no window", minute.Add(59 * time.Second), 0, 10 * time.Second, time.Time{}},
		{"a day's window", minute.Add(-time.Second), 24 * time.Hour, 10 * time.Second, time.Time{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := fitStart(tc.now, tc.w, tc.d)
			if !got.Equal(tc.wantAt) {
				t.Fatalf("fitStart = %v, want %v", got, tc.wantAt)
			}
			if !got.IsZero() {
				if wait := got.Sub(tc.now); wait <= 0 || wait >= tc.d+fitMargin {
					t.Errorf("waits %v for a run of %v", wait, tc.d)
				}
				if got.UnixNano()%int64(tc.w) != 0 {
					t.Errorf("%v is not a window boundary", got)
				}
			}
		})
	}
}
