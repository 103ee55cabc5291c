package scenario

import (
	"fmt"
)

// LiveProfile returns the scenario as a live attack runs it: the window and
// duration of its live section, and every store latency and lag divided by
// live.time_scale. Predicting with it (simulate -compare) puts the model on
// the same footing as the measurement.
func (s *Scenario) LiveProfile() (*Scenario, error) {
	var sets []string
	if s.Live.Window > 0 {
		sets = append(sets, "limiter.window="+s.Live.Window.String())
	}
	if s.Live.Duration > 0 {
		sets = append(sets, "duration="+s.Live.Duration.String())
	}
	out := s
	if len(sets) > 0 {
		var err error
		if out, err = s.With(sets...); err != nil {
			return nil, fmt.Errorf("live profile: %w", err)
		}
	}
	if f := out.Live.TimeScale; f > 0 && f != 1 {
		kv := &out.Store.KV
		for _, l := range []*Latency{&kv.HotRead, &kv.ColdRead, &kv.Write, &kv.Purge.Lag,
			&out.Store.DurableObject.RTT, &out.Store.DurableObject.Local, &out.Store.Latency} {
			*l = l.Scaled(f)
		}
	}
	return out, nil
}

// Scaled returns l with every duration divided by f, for f > 0.
func (l Latency) Scaled(f float64) Latency {
	if !(f > 0) || f == 1 {
		return l
	}
	div := func(d Duration) Duration { return Duration(float64(d) / f) }
	l.Value, l.Min, l.Max, l.Mean, l.Median, l.P99 = div(l.Value), div(l.Min), div(l.Max), div(l.Mean), div(l.Median), div(l.P99)
	pts := make([]Quantile, len(l.Points))
	for i, q := range l.Points {
		pts[i] = Quantile{P: q.P, Value: div(q.Value)}
	}
	l.Points = pts
	return l
}
