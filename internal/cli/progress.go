package cli

import (
	"fmt"
	"time"
)

// ProgressAfter is how long a run goes quietly before the commands show
// progress (on a terminal only): a short run's output stays as it is.
const ProgressAfter = 2 * time.Second

// TimeLeft says roughly how long is left, for a progress line: seconds
// under two minutes, then minutes, then hours and minutes.
func TimeLeft(d time.Duration) string {
	d = max(d, 0)
	switch {
	case d < 2*time.Minute:
		return fmt.Sprintf("about %d s left", int(d.Round(time.Second)/time.Second))
	case d < 2*time.Hour:
		return fmt.Sprintf("about %d min left", int(d.Round(time.Minute)/time.Minute))
	}
	d = d.Round(time.Minute)
	return fmt.Sprintf("about %d h %02d min left", int(d/time.Hour), int(d%time.Hour/time.Minute))
}
