package measure

import (
	"fmt"
	"math"
	"slices"
)

// ThroughputName is the name the requests-a-second figure of a comparison
// carries (Comparison.Rate).
const ThroughputName = "requests.per_s"

// throughput is the requests a second the live runs kept served against
// the model's trials, or nil when a side does not say (no per-trial
// accounting, no duration). It is not judged with the mechanism: where
// callers wait for their answers (a closed loop) the rate is the speed of
// the store and of the host it ran on, an input the calibration fixed when
// it ran rather than something the model predicts, and it is shown so that
// a reader can tell a miss of the headline that comes with another host's
// speed from one that does not.
func throughput(predicted, measured *Summary, kept []int) *MechanismCheck {
	ps, ms := predicted.Totals.SimulatedSeconds, measured.Totals.SimulatedSeconds
	if predicted.Mechanism == nil || len(predicted.Mechanism.Trials) == 0 || !(ps > 0) || !(ms > 0) {
		return nil
	}
	var model, live []float64
	for _, t := range predicted.Mechanism.Trials {
		model = append(model, float64(t.Requests)/ps)
	}
	for _, r := range liveRuns(measured, kept) {
		live = append(live, float64(r.Requests)/ms)
	}
	slices.Sort(model)
	k := &MechanismCheck{Name: ThroughputName, What: "requests a second", Observed: len(live) > 0}
	k.hold(model, live)
	return k
}

// RateNote says, when the live runs' requests a second are outside the
// model's trials' range, by how much and what that means for the
// headline; "" when inside or unknown.
func (c *Comparison) RateNote() string {
	k := c.Rate
	if k == nil || !k.Observed || k.InsideBand || !(k.PredictedMedian > 0) {
		return ""
	}
	d := k.Measured/k.PredictedMedian - 1
	more, behind := "more", ""
	if d < 0 {
		more, behind = "fewer", "; for traffic at a set rate, the attacker did not keep up with it"
	}
	return fmt.Sprintf("the live runs served %.0f%% %s requests a second than the model's trials (%s against %s to %s): "+
		"where callers wait for their answers (a closed loop) the rate is the speed of the store and its host, and the overshoot moves with it, "+
		"so fit the model to runs of this host as it runs now (simulate calibrate)%s",
		100*math.Abs(d), more, k.Value(k.Measured), k.Value(k.PredictedBand[0]), k.Value(k.PredictedBand[1]), behind)
}
