package simulatecmd

import (
	"fmt"
	"time"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// loopGap is sc with each closed loop's think time lengthened by what the
// live run's requests took beyond its store's modeled latencies, when the
// run states them (the built-in target over the eventual store): the HTTP
// hop and the target's own time. A closed loop sends its next request
// when the last is answered, so that time slows the live loop; the
// model, which has no part for it, would send more requests in the same
// time and write a smaller share of them.
//
// The time is taken from the loops' cycles: each slot of a closed loop
// spends the run's sending time (the live duration, or less when the run
// stopped early; with repeats, one run's share) on its requests, each its store's time, its think time
// and the gap, so gap = (slot time - requests x think) / requests - the
// store's mean time. The attacker's mean latency would count a stall after
// the last send (a run that overran) as if the loop had waited it. It is
// added only when every population is a closed loop with a constant think
// time (the bot loop's 0 s) that the user did not set (user): otherwise
// the store's mean is not the loops' alone, or the think time cannot be
// lengthened, and a note says the model's loops send faster than the live
// ones (no note when no population could have been lengthened: open
// loops, or closed loops whose think times are all kept).
func loopGap(sc *scenario.Scenario, measured *measure.Summary, user map[string]bool) (*scenario.Scenario, []string, error) {
	lv := measured.Live
	if lv == nil || lv.StoreMs == nil || lv.StoreMs.N == 0 || len(sc.Traffic) == 0 {
		return sc, nil, nil
	}
	// Repeated runs (attack -repeat) sum their durations and requests:
	// one run's share of each is what a trial stands for.
	runs := int64(1)
	if r := measured.Repeats; r != nil && len(r.Runs) > 1 {
		runs = int64(len(r.Runs))
	}
	sending := sc.Live.Duration.D()
	if d := time.Duration(lv.DurationSecs * float64(time.Second) / float64(runs)); d > 0 && (sending <= 0 || d < sending) {
		sending = d
	}
	var slotTime, thinkTime time.Duration
	var requests int64
	var sets, kept []string
	var thinks []time.Duration
	for _, p := range sc.Traffic {
		path := "traffic." + p.Name + ".closed_loop.think"
		if p.ClosedLoop == nil || user[path] || (p.ClosedLoop.Think.Dist != "" && p.ClosedLoop.Think.Dist != scenario.DistConstant) {
			kept = append(kept, p.Name)
			continue
		}
		n := populationRequests(measured, p.Name) / runs
		end := sending
		if p.Duration > 0 {
			end = min(end, p.Start.D()+p.Duration.D())
		}
		slotTime += time.Duration(p.Clients*p.ClosedLoop.Concurrency) * max(end-p.Start.D(), 0)
		thinkTime += time.Duration(n) * p.ClosedLoop.Think.Value.D()
		requests += n
		sets, thinks = append(sets, path), append(thinks, p.ClosedLoop.Think.Value.D())
	}
	if len(kept) > 0 {
		if len(sets) == 0 {
			return sc, nil, nil // no closed loop whose think time could follow the run
		}
		return sc, []string{fmt.Sprintf("the think time of %v is kept (not a closed loop, set by -set, or not constant), so the live run's time beyond its store's latencies (the HTTP hop and the target's own) is not added to the model's closed loops, which send faster than the live ones", kept)}, nil
	}
	if requests == 0 {
		return sc, nil, nil
	}
	storeMean := time.Duration(lv.StoreMs.Mean * float64(time.Millisecond))
	gap := ((slotTime-thinkTime)/time.Duration(requests) - storeMean).Round(time.Microsecond)
	if gap <= 0 {
		return sc, nil, nil
	}
	for i, path := range sets {
		sets[i] = path + "=" + scenario.Duration(thinks[i]+gap).String()
	}
	out, err := sc.With(sets...)
	if err != nil {
		return nil, nil, fmt.Errorf("-compare: the live run's loop time does not fit the scenario: %w", err)
	}
	note := fmt.Sprintf("the model's closed loops think %v longer: the live run's requests took that much beyond its store's latencies on average (the HTTP hop and the target's own time, which a closed loop waits for and the model has no part for: %d requests in %v, the store %.3g ms a request)",
		gap, requests, sending.Round(time.Millisecond), lv.StoreMs.Mean)
	return out, []string{note}, nil
}

// populationRequests is how many requests the live run sent for the
// population named name.
func populationRequests(measured *measure.Summary, name string) int64 {
	for _, p := range measured.Populations {
		if p.Name == name {
			return p.Requests
		}
	}
	return 0
}
