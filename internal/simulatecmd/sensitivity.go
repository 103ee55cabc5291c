package simulatecmd

import (
	"context"
	"fmt"
	"io"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/model"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// sensitivityTrials is how many trials each alternative of an assumption
// gets: a tenth of the run's, 2 to 10.
func sensitivityTrials(trials int) int { return min(10, max(2, trials/10)) }

// sensitivity re-predicts the run's headline with each of the model's
// assumptions (scenario.Assumptions) at each of its alternatives, and
// records them in s. An alternative the scenario cannot take is left out
// with a note on w.
func sensitivity(ctx context.Context, c *config, sc *scenario.Scenario, s *measure.Summary, w io.Writer) error {
	m := s.Scenario.HeadlineMetric()
	n := sensitivityTrials(s.Trials)
	as := sc.Assumptions()
	if len(as) == 0 {
		return nil
	}
	// The defaults again with as few trials as each alternative gets: a
	// max over 10 trials is compared with a max over 10 trials.
	pl, err := plan.Compile(sc)
	if err != nil {
		return err
	}
	r, err := model.Run(pl, model.Options{Seed: s.Seed, Trials: n, Workers: c.workers, Context: ctx})
	if err != nil {
		return err
	}
	v, ok := m.Value(&r)
	s.Sensitivity = append(s.Sensitivity, measure.Sensitivity{What: "every default", Metric: m.Name, Headline: v, Measured: ok, Trials: n,
		Note: measure.SensitivityNote(&r)})
	for _, a := range as {
		for _, alt := range a.Alternatives {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			alt2, err := sc.With(a.Path + "=" + alt)
			var pl *plan.Plan
			if err == nil {
				pl, err = plan.Compile(alt2)
			}
			if err != nil {
				fmt.Fprintf(w, "simulate: note: %s=%s left out of the assumptions' table: %v\n", a.Path, alt, err)
				continue
			}
			r, err := model.Run(pl, model.Options{Seed: s.Seed, Trials: n, Workers: c.workers, Context: ctx})
			if err != nil {
				return err
			}
			v, ok := m.Value(&r)
			s.Sensitivity = append(s.Sensitivity, measure.Sensitivity{Path: a.Path, Value: alt, What: a.What,
				Metric: m.Name, Headline: v, Measured: ok, Trials: n, Note: measure.SensitivityNote(&r)})
		}
	}
	return nil
}
