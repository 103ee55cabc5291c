package simulatecmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	"github.com/overshoot-dev/overshoot/internal/advise"
	"github.com/overshoot-dev/overshoot/internal/cli"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/report"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// adviceFile is the advice's machine-readable form in the report folder.
const adviceFile = "advice.json"

// adviceJSON is advice.json: the budget, the ranked results (each with its
// summary at the limit found) and the recommendation.
type adviceJSON struct {
	Scenario       measure.ScenarioRef `json:"scenario"`
	Seed           uint64              `json:"seed"`
	Budget         []string            `json:"budget"`
	Recommendation string              `json:"recommendation"`
	Results        []adviceResult      `json:"results"`
}

type adviceResult struct {
	advise.Result
	Rank     int              `json:"rank"`
	Design   string           `json:"design_name"`
	Verdicts []string         `json:"verdicts"`
	Summary  *measure.Summary `json:"summary"`
}

// budgetOf is the advice's budget: the scenario's advise.budget, then each
// -budget.
func budgetOf(sc *scenario.Scenario, extra []string) ([]measure.Condition, error) {
	var out []measure.Condition
	for _, b := range append(slices.Clip(sc.Advise.Budget), extra...) {
		c, err := measure.ParseCondition(b)
		if err != nil {
			return nil, fmt.Errorf("-budget %v", err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-advise needs a budget: give -budget 'METRIC OP VALUE' (e.g. -budget 'allowed.p99<=120' -budget 'false_denials.rate<=0.1%%'), or advise.budget in the scenario")
	}
	return out, nil
}

// designSpace is the default space narrowed to what the scenario's advise
// section lists.
func designSpace(pl *plan.Plan, a scenario.Advise) []advise.Design {
	var out []advise.Design
	for _, d := range advise.Space(pl) {
		if len(a.Algorithms) > 0 && !slices.Contains(a.Algorithms, string(d.Algorithm)) ||
			len(a.Stores) > 0 && !slices.Contains(a.Stores, d.Store.String()) ||
			len(a.Policies) > 0 && !slices.Contains(a.Policies, string(d.Policy)) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// runAdvise is simulate -advise: it searches the design space for the
// scenario, prints the ranked table and the recommendation, and writes
// advice.json, advice.md and the Pareto figure. It exits 0 when a design
// meets the budget, 3 when none does.
func runAdvise(ctx context.Context, c *config, sc *scenario.Scenario, points []scenario.Point, stdout, stderr io.Writer) int {
	if len(points) != 1 || len(points[0].Params) > 0 {
		fmt.Fprintln(stderr, "simulate: -advise searches one scenario, not a sweep: remove sweep (the advice varies the algorithm, store, policy and limit itself)")
		return ExitBadInput
	}
	budget, err := budgetOf(sc, c.budget)
	if err != nil {
		fmt.Fprintln(stderr, "simulate:", err)
		return ExitBadInput
	}
	pl, err := plan.Compile(sc)
	if err != nil {
		fmt.Fprintln(stderr, "simulate:", err)
		return ExitBadInput
	}
	seed := sc.Seed
	if c.seedSet {
		seed = c.seed
	}
	trials := c.trials
	if trials == 0 {
		trials = min(sc.Trials, 10)
	}
	space := designSpace(pl, sc.Advise)
	if len(space) == 0 {
		fmt.Fprintln(stderr, "simulate: the advise section leaves no design to try: widen advise.algorithms, advise.stores or advise.policies")
		return ExitBadInput
	}
	fmt.Fprintf(stderr, "simulate: advising on %d designs, %d trials per limit tried\n", len(space), trials)
	started := time.Now()
	progress := func(done int, d advise.Design, limit int64) {
		if cli.IsTerminal(stderr) {
			fmt.Fprintf(stderr, "\r\033[K  %d simulations, %v: %s at limit %d", done, time.Since(started).Round(time.Second), d, limit)
		}
	}
	results, err := advise.Advise(pl, advise.Options{Budget: budget, Designs: space, Seed: seed, Trials: trials, Workers: c.workers,
		MaxLimit: sc.Advise.MaxLimit, Progress: progress, Context: ctx})
	if cli.IsTerminal(stderr) {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		fmt.Fprintln(stderr, "simulate: -advise:", err)
		return ExitFailure
	}
	advise.WriteTable(stdout, budget, results)
	if !c.noReport {
		dir, err := writeAdvice(c.out, sc, seed, budget, results)
		if err != nil {
			fmt.Fprintln(stderr, "simulate: the advice is above, but its report was not written:", err)
			return ExitFailure
		}
		fmt.Fprintf(stdout, "\nadvice: %s (advice.json, pareto.png beside it)\n", filepath.Join(dir, "advice.md"))
	}
	if len(results) == 0 || !results[0].Meets {
		return ExitThreshold
	}
	return ExitOK
}

// allowedP99 is the Pareto figure's overshoot axis.
var allowedP99, _ = measure.LookupMetric("allowed.p99")

// writeAdvice writes the advice under out/<scenario>/<time>/.
func writeAdvice(out string, sc *scenario.Scenario, seed uint64, budget []measure.Condition, rs []advise.Result) (string, error) {
	dir, err := report.NewDir(out, sc.Name+"-advice", time.Now())
	if err != nil {
		return "", err
	}
	doc := adviceJSON{Scenario: plan.ScenarioRef(sc, report.DescribeTraffic(sc)), Seed: seed, Recommendation: advise.Recommendation(budget, rs)}
	for _, b := range budget {
		doc.Budget = append(doc.Budget, b.Text)
	}
	var points []report.AdvicePoint
	for i, r := range rs {
		ar := adviceResult{Result: r, Rank: i + 1, Design: r.Design.String(), Summary: r.Summary}
		for _, v := range r.Verdicts {
			ar.Verdicts = append(ar.Verdicts, v.String())
		}
		doc.Results = append(doc.Results, ar)
		allowed, _ := allowedP99.Value(r.Summary)
		usd, _ := r.Cost()
		points = append(points, report.AdvicePoint{Rank: i + 1, Allowed: allowed, Denied: r.LegitDenied(), Cost: usd, Meets: r.Meets})
	}
	b, err := json.MarshalIndent(&doc, "", "  ")
	if err != nil {
		return "", err
	}
	if err := writeAtomic(filepath.Join(dir, adviceFile), append(b, '\n')); err != nil {
		return "", err
	}
	fig := report.ParetoFigure(points)
	if err := report.WriteFigure(dir, fig); err != nil {
		return "", err
	}
	var md bytes.Buffer
	fmt.Fprintf(&md, "# Advice: %s\n\n%s\n\n", sc.Name, sc.Question)
	fmt.Fprintln(&md, "```")
	advise.WriteTable(&md, budget, rs)
	fmt.Fprintln(&md, "```")
	fmt.Fprintf(&md, "\n![%s](pareto.png)\n\n%s\n", fig.Title, fig.Caption)
	if err := writeAtomic(filepath.Join(dir, "advice.md"), md.Bytes()); err != nil {
		return "", err
	}
	return dir, nil
}
