//go:build !linux

package kv

import "time"

// timerSlack is 0 where sleepRest has no finer sleep than Go's timers.
const timerSlack = 0

// sleepRest sleeps d on a timer.
func sleepRest(d time.Duration) {
	if d > 0 {
		time.Sleep(d)
	}
}
