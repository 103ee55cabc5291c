package model

import (
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// defaultScenario is scenarios/default.yaml: the seed's endpoint (5 per day
// per token+IP, fixed window, fail-open) on the KV model at its published
// defaults, one bot loop with no think time, two simulated minutes across
// the daily window boundary.
func defaultScenario(b *testing.B) *scenario.Scenario {
	sc, err := scenario.Default()
	if err != nil {
		b.Fatal(err)
	}
	return sc
}

// cpuTime is the CPU time the process has used (user + system, all
// threads, the garbage collector's included).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkTrialsAcrossCores runs 8 trials of the default shape with 1 and
// with GOMAXPROCS workers: compare the req/s of the two to see how trials
// scale across cores.
func BenchmarkTrialsAcrossCores(b *testing.B) {
	sc := defaultScenario(b)
	sc.Trials = 8
	for _, w := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			var reqs int64
			for b.Loop() {
				s, err := Run(planOf(b, sc), Options{Seed: 1, Workers: w})
				if err != nil {
					b.Fatal(err)
				}
				reqs += s.Totals.Requests
			}
			b.ReportMetric(float64(reqs)/b.Elapsed().Seconds(), "req/s")
		})
	}
}
