package model

import (
	"context"
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

// botnetLike is 200 clients, 4 loops each, spread over 5 locations, with a
// think time: a larger queue and many keys.
func botnetLike(length time.Duration) *scenario.Scenario {
	p := closedLoop(bot("botnet"), 4, scenario.Latency{Dist: scenario.DistExponential, Mean: dur(100 * time.Millisecond)})
	p.Clients, p.Arrive.Mode = 200, "spread"
	return kvScenario(100, time.Minute, scenario.DefaultKV(), []string{"a", "b", "c", "d", "e"}, length, p)
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

// benchTrials runs one trial per iteration on one goroutine and reports
// simulated requests per second of wall time (req/s) and per second of CPU
// time used by the whole process, garbage collection included (req/cpu-s):
// the second is the per-core figure, and holds up better when other work
// shares the machine.
func benchTrials(b *testing.B, sc *scenario.Scenario) {
	c, err := compile(planOf(b, sc))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var reqs int64
	cpu0 := cpuTime()
	for i := 0; b.Loop(); i++ {
		_, st, err := c.runTrial(context.Background(), 1, i)
		if err != nil {
			b.Fatal(err)
		}
		reqs += st.Requests
	}
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(reqs)/b.Elapsed().Seconds(), "req/s")
	if cpu > 0 {
		b.ReportMetric(float64(reqs)/cpu.Seconds(), "req/cpu-s")
	}
	b.ReportMetric(float64(reqs)/float64(b.N), "req/trial")
}

// BenchmarkDefaultKV is the speed figure: simulated requests per second on
// one core, on the default scenario's shape (two simulated minutes across
// the daily window boundary, ~40 k requests a trial).
func BenchmarkDefaultKV(b *testing.B) { benchTrials(b, defaultScenario(b)) }

// BenchmarkBotnetKV is a heavier mix: 800 requests in flight, 5 locations,
// thousands of keys.
func BenchmarkBotnetKV(b *testing.B) { benchTrials(b, botnetLike(time.Minute)) }

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
