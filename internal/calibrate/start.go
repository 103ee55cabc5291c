package calibrate

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// The serving side -calibrate starts from when a scenario lacks the parts
// the default fit needs. They are the starting values of
// examples/worker/closed-loop.yaml, where they come from:
//   - the CPU of each step and each proxy pass (docs/serving-side.md,
//     section 6: placeholders scaled so that a burst of 50 takes the
//     100-300 ms measured, about 3 ms per request), whose split the fit keeps
//     and whose scale it fits;
//   - a loopback round trip of 100 us (section 6, an assumption);
//   - the threads' wake-up, lognormal median 100 us, p99 1 ms (section 10,
//     an assumption: none is published);
//   - the threads' stalls (not in closed-loop.yaml): one after every 250 ms
//     of a thread's work, exponential, lasting lognormal median 30 ms, p99
//     120 ms, from the gaps in the answers of live runs at C = 32 under
//     wrangler dev (docs/serving-side.md, section 12); the fit scales how
//     often, and probes how long;
//   - the spread, each lognormal's p99 five times its median, which made the
//     model's latency at C = 1 as wide as the live runs' (p99 11-16 ms at a
//     p50 of 4-5 ms, 2026-11-30).
//
// The fit scales all of them, so only their proportions and shapes matter.
var (
	startBeforeRead = scenario.Lognormal(500*time.Microsecond, 2500*time.Microsecond)
	startBetween    = scenario.Lognormal(600*time.Microsecond, 3*time.Millisecond)
	startAfterWrite = scenario.Lognormal(300*time.Microsecond, 1500*time.Microsecond)
	startRTT        = scenario.Constant(100 * time.Microsecond)
	startWake       = scenario.Lognormal(100*time.Microsecond, time.Millisecond)
	startProxyPass  = scenario.Lognormal(500*time.Microsecond, 2500*time.Microsecond)
	startStallEvery = scenario.Latency{Dist: scenario.DistExponential, Mean: scenario.Duration(250 * time.Millisecond)}
	startStallLasts = scenario.Lognormal(30*time.Millisecond, 120*time.Millisecond)
)

// startSpread is the p99 over the median of a constant latency that
// startingServer turns into a lognormal so that the spread can be fitted.
const startSpread = 5

// startingServer returns the -set overrides that give sc the server parts
// the default fit needs and it lacks, and one line that says what was
// added, from where, for the calibration's output ("" when nothing was
// added). A scenario without a server gets the whole starting serving
// side; one with a server gets a proxy and a wake-up where it has none, and
// its constant CPU and proxy latencies become lognormals of the same median
// with a p99 startSpread times it when none of its latencies is lognormal
// (a spread can only be fitted to lognormals).
func startingServer(sc *scenario.Scenario) ([]string, string, error) {
	var sets, added []string
	set := func(path string, l scenario.Latency) error {
		b, err := json.Marshal(l)
		if err != nil {
			return err
		}
		sets = append(sets, path+"="+string(b))
		return nil
	}
	sv := sc.Server
	if sv == nil || sv.Mode == scenario.ServerNone {
		sets = append(sets, "server.mode="+scenario.ServerSingleThread)
		for _, s := range []struct {
			path string
			l    scenario.Latency
		}{{"server.cpu.before_read", startBeforeRead}, {"server.cpu.between", startBetween}, {"server.cpu.after_write", startAfterWrite},
			{"server.rtt", startRTT}, {"server.wake", startWake}, {"server.proxy.cpu_in", startProxyPass}, {"server.proxy.cpu_out", startProxyPass},
			{"server.stall.every", startStallEvery}, {"server.stall.lasts", startStallLasts}} {
			if err := set(s.path, s.l); err != nil {
				return nil, "", err
			}
		}
		return sets, "it has no server: section, so -calibrate starts from the serving side of wrangler dev (a single thread behind a proxy, with a wake-up, lognormal steps and stalls: the starting values of examples/worker/closed-loop.yaml and the stalls of docs/serving-side.md, sections 6, 10 and 12) and fits it", nil
	}
	if sv.Proxy == nil {
		if err := set("server.proxy.cpu_in", startProxyPass); err != nil {
			return nil, "", err
		}
		if err := set("server.proxy.cpu_out", startProxyPass); err != nil {
			return nil, "", err
		}
		added = append(added, "a proxy (server.proxy)")
	}
	if sv.Wake.IsZero() {
		if err := set("server.wake", startWake); err != nil {
			return nil, "", err
		}
		added = append(added, "a wake-up (server.wake)")
	}
	if sv.Stall == nil {
		if err := set("server.stall.every", startStallEvery); err != nil {
			return nil, "", err
		}
		if err := set("server.stall.lasts", startStallLasts); err != nil {
			return nil, "", err
		}
		added = append(added, "stalls (server.stall)")
	}
	if !anyLognormal(sv.Latencies()) {
		var made []string
		for _, l := range sv.Latencies() {
			if l.Path == "server.rtt" || strings.HasPrefix(l.Path, "server.stall.") || l.Latency.Dist != scenario.DistConstant || l.Latency.Value <= 0 {
				continue
			}
			d := l.Latency.Value.D()
			if err := set(l.Path, scenario.Lognormal(d, startSpread*d)); err != nil {
				return nil, "", err
			}
			made = append(made, l.Path)
		}
		if len(made) > 0 {
			added = append(added, fmt.Sprintf("a spread (%s lognormal, p99 %d times the median)", strings.Join(made, ", "), startSpread))
		}
	}
	if len(added) == 0 {
		return nil, "", nil
	}
	return sets, fmt.Sprintf("its server: section lacks %s, so -calibrate adds them at the starting values of examples/worker/closed-loop.yaml and of docs/serving-side.md (sections 6, 10 and 12) and fits them", strings.Join(added, ", ")), nil
}

// anyLognormal reports whether one of ls is lognormal.
func anyLognormal(ls []scenario.NamedLatency) bool {
	for _, l := range ls {
		if l.Latency.Dist == scenario.DistLognormal {
			return true
		}
	}
	return false
}
