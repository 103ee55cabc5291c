package simulatecmd

import (
	"fmt"
	"time"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// loopGap is sc with each closed loop's think time lengthened by what the
// live run's requests took beyond its store's modeled latencies, when the
// run states them (the built-in target over the eventual store): the
// mean of the attacker's latency less the mean of the store's time, that
// is the HTTP hop and the target's own time. A closed loop sends its next
// request when the last is answered, so that time slows the live loop,
// and the model's, which has no part for it, would send more requests in
// the same time and write a smaller share of them. A constant think time
// (the bot loop's 0 s) is lengthened; another distribution, or a think
// time the user set (in user), is kept, with a note.
func loopGap(sc *scenario.Scenario, measured *measure.Summary, user map[string]bool) (*scenario.Scenario, []string, error) {
	lv := measured.Live
	if lv == nil || lv.StoreMs == nil || lv.StoreMs.N == 0 || lv.LatencyMs.N == 0 {
		return sc, nil, nil
	}
	gapMs := lv.LatencyMs.Mean - lv.StoreMs.Mean
	if !(gapMs > 0) {
		return sc, nil, nil
	}
	gap := time.Duration(gapMs * float64(time.Millisecond)).Round(time.Microsecond)
	var sets, kept []string
	for _, p := range sc.Traffic {
		if p.ClosedLoop == nil {
			continue
		}
		path := "traffic." + p.Name + ".closed_loop.think"
		th := p.ClosedLoop.Think
		if user[path] || (th.Dist != "" && th.Dist != scenario.DistConstant) {
			kept = append(kept, p.Name)
			continue
		}
		sets = append(sets, path+"="+scenario.Duration(th.Value.D()+gap).String())
	}
	var notes []string
	why := fmt.Sprintf("the live run's requests took %.3g ms beyond its store's latencies on average (the HTTP hop and the target's own time: latency %.3g ms, store %.3g ms a request), which a closed loop waits for and the model has no part for",
		gapMs, lv.LatencyMs.Mean, lv.StoreMs.Mean)
	if len(sets) > 0 {
		notes = append(notes, "the model's closed loops think that much longer: "+why)
	}
	if len(kept) > 0 {
		notes = append(notes, fmt.Sprintf("%s; the think time of %v is kept (set by -set, or not constant), so the model's loop sends faster than the live one", why, kept))
	}
	if len(sets) == 0 {
		return sc, notes, nil
	}
	out, err := sc.With(sets...)
	if err != nil {
		return nil, nil, fmt.Errorf("-compare: the live run's loop time does not fit the scenario: %w", err)
	}
	return out, notes, nil
}
