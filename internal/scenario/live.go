package scenario

import (
	"fmt"
	"strings"
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

// DescribeTraffic says in words what hits the limiter, for headlines:
// "1 client in a closed loop of 32 concurrent requests from one location".
func (s *Scenario) DescribeTraffic() string {
	var parts []string
	for _, p := range s.Traffic {
		parts = append(parts, describePopulation(p, len(s.Locations)))
	}
	return strings.Join(parts, ", plus ")
}

func describePopulation(p Population, locations int) string {
	who := plural(p.Clients, "client")
	if p.Clients == 1 && !p.Legitimate {
		who = "one bot"
	} else if p.Legitimate {
		who = plural(p.Clients, "legitimate user")
	}
	var how string
	switch {
	case p.ClosedLoop != nil && p.ClosedLoop.Concurrency > 1:
		how = fmt.Sprintf("each with %d concurrent requests in a loop", p.ClosedLoop.Concurrency)
		if p.Clients == 1 {
			how = fmt.Sprintf("with %d concurrent requests in a loop", p.ClosedLoop.Concurrency)
		}
	case p.ClosedLoop != nil:
		how = "sending back to back"
		if p.ClosedLoop.Think.MeanDuration() > 0 {
			how = "sending one request at a time, thinking " + p.ClosedLoop.Think.String() + " between"
		}
	case p.OpenLoop != nil:
		how = "at " + p.OpenLoop.Rate.String()
		if p.Clients > 1 {
			how += " each"
		}
	case p.Burst != nil:
		how = fmt.Sprintf("in bursts of %d", p.Burst.Size)
		if p.Burst.Every > 0 {
			how += " every " + p.Burst.Every.String()
		}
	}
	where := "from one location"
	if p.Arrive.Mode != "one" && locations > 1 {
		where = fmt.Sprintf("spread over %d locations", locations)
	}
	return strings.TrimSpace(strings.Join([]string{who, how, where}, " "))
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
