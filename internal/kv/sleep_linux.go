package kv

import (
	"syscall"
	"time"
)

// timerSlack is how late Go's timers may wake: when the runtime is idle it
// waits for the next timer in whole milliseconds, so a 2.3 ms timer slept
// 3.2 ms at the median on a 2-core Linux machine, and the built-in
// target's latencies ran about 1 ms above the model's. Sleep waits on a
// timer until this much before its deadline and the rest in sleepRest.
const timerSlack = 1500 * time.Microsecond

// sleepRest sleeps d, at most timerSlack, in the kernel (nanosleep keeps
// to about 0.1 ms). It blocks its thread, as a system call does, for that
// short while; the runtime runs other goroutines on other threads.
func sleepRest(d time.Duration) {
	if d <= 0 {
		return
	}
	ts := syscall.NsecToTimespec(int64(d))
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
}
