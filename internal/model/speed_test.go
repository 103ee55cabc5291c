package model

import (
	"fmt"
	"io/fs"
	"os"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
	"github.com/overshoot-dev/overshoot/scenarios"
)

// simulateGCPercent is the garbage collector setting internal/simulatecmd
// runs with unless GOGC is set in the environment; the speed benchmarks do
// the same, so that they measure what users run (and GOGC=off measures
// without the collector).
const simulateGCPercent = 400

// libraryScenario loads scenarios/<name>.yaml as simulate does (with the
// overrides sets) and returns the first point of a sweep.
func libraryScenario(tb testing.TB, name string, sets ...string) *scenario.Scenario {
	tb.Helper()
	data, err := scenarios.FS.ReadFile(name + ".yaml")
	if err != nil {
		tb.Fatal(err)
	}
	sc, err := scenario.ParseWithOverrides("scenarios/"+name+".yaml", data, sets)
	if err != nil {
		tb.Fatal(err)
	}
	points, err := sc.Expand()
	if err != nil {
		tb.Fatal(err)
	}
	return points[0].Scenario
}

// libraryPlan loads scenarios/<name>.yaml as simulate does (with the
// overrides sets), takes the first point of a sweep, and compiles it.
func libraryPlan(tb testing.TB, name string, sets ...string) *plan.Plan {
	tb.Helper()
	pl, err := plan.Compile(libraryScenario(tb, name, sets...))
	if err != nil {
		tb.Fatal(err)
	}
	return pl
}

// benchRun runs trials trials of pl per iteration, on one worker, with
// simulate's garbage collector setting, and reports its speed as
// benchRequests does.
func benchRun(b *testing.B, pl *plan.Plan, seed uint64, trials int) {
	benchRequests(b, func() int64 {
		ts, err := RunTrials(pl, Options{Seed: seed, Trials: trials, Workers: 1})
		if err != nil {
			b.Fatal(err)
		}
		var reqs int64
		for _, t := range ts {
			reqs += t.Totals.Requests
		}
		return reqs
	})
}

// benchRequests calls run once per iteration, with simulate's garbage
// collector setting, and reports simulated requests (what run returns) per
// second of CPU time used by the whole process (req/cpu-s: garbage
// collection on other cores included), of wall time (req/s), and per
// iteration (req/op). Every iteration must do the same work.
func benchRequests(b *testing.B, run func() int64) {
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(simulateGCPercent))
	}
	b.ReportAllocs()
	var reqs int64
	cpu0 := cpuTime()
	for b.Loop() {
		reqs += run()
	}
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(reqs)/b.Elapsed().Seconds(), "req/s")
	if cpu > 0 {
		b.ReportMetric(float64(reqs)/cpu.Seconds(), "req/cpu-s")
	}
	b.ReportMetric(float64(reqs)/float64(b.N), "req/op")
}

// BenchmarkLibrary runs one trial of every library scenario per iteration
// (the first point of a sweep), loaded from its file and compiled as
// simulate does: the speed users see. scripts/bench-sim.sh compares it
// with bench/baseline.txt.
func BenchmarkLibrary(b *testing.B) {
	files, err := fs.Glob(scenarios.FS, "*.yaml")
	if err != nil || len(files) == 0 {
		b.Fatalf("no scenarios embedded: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(f, ".yaml")
		b.Run(name, func(b *testing.B) {
			pl := libraryPlan(b, name)
			benchRun(b, pl, pl.Seed, 1)
		})
	}
}

// BenchmarkClients is botnet.yaml with every client its own token and
// address, a limit of 1 and a 5 ms think time, at 1, 100 and 10,000
// clients: after its first request each client's requests are denied, about
// 110 a simulated second, the same whatever the number of clients, so the
// cost per request should not depend on it (it does through memory: 10,000
// clients touch 10,000 keys). With 100 and 10,000 clients a trial lasts 1 s;
// one client runs 100 s, so that an iteration is not all set-up (a request
// is then a little cheaper: fewer read cold).
func BenchmarkClients(b *testing.B) {
	for _, n := range []int{1, 100, 10000} {
		b.Run(fmt.Sprintf("clients=%d", n), func(b *testing.B) {
			pl := libraryPlan(b, "botnet", clientsSets(n)...)
			benchRun(b, pl, pl.Seed, 1)
		})
	}
}

// clientsSets are the overrides of botnet.yaml that BenchmarkClients runs
// with n clients (BenchmarkHandLoop's clients=n runs them too).
func clientsSets(n int) []string {
	length := "1s"
	if n == 1 {
		length = "100s"
	}
	return []string{"duration=" + length, "limiter.limit=1", "traffic.botnet.clients=" + fmt.Sprint(n),
		"traffic.botnet.identity.token=per-client", "traffic.botnet.identity.ip=per-client",
		"traffic.botnet.identity.nat_pool=0", "traffic.botnet.closed_loop.think=5ms"}
}
