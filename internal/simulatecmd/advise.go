package simulatecmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/overshoot-dev/overshoot/internal/advise"
	"github.com/overshoot-dev/overshoot/internal/cli"
	"github.com/overshoot-dev/overshoot/internal/escape"
	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/report"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// adviceFile is the advice's machine-readable form in the report folder.
const adviceFile = "advice.json"

// adviceJSON is advice.json, and what -advise -json prints: the budget,
// the options ranked (each with its summary at the limit found), the
// index of the recommended option (-1 when none meets the budget) and why.
type adviceJSON struct {
	Advice adviceBody `json:"advice"`
}

type adviceBody struct {
	Scenario       measure.ScenarioRef `json:"scenario"`
	Seed           uint64              `json:"seed"`
	Budget         []string            `json:"budget"`
	Options        []adviceOption      `json:"options"`
	Recommended    int                 `json:"recommended"`
	Recommendation string              `json:"recommendation"`
	// Snippet and WorkerChange say what to ship, when an option meets the
	// budget; Binding says which condition binds when none does.
	Snippet      string `json:"snippet,omitempty"`
	WorkerChange string `json:"worker_change,omitempty"`
	// ChangeIn names where WorkerChange's changes go: "the Worker", or
	// for a Redis design "the code that calls Redis".
	ChangeIn string `json:"change_in,omitempty"`
	Binding  string `json:"binding,omitempty"`
	// Notes say what designs run under when it is not the scenario's own
	// (advise.Notes).
	Notes []string `json:"notes,omitempty"`
}

// adviceOption is one design in advice.json.
type adviceOption struct {
	Algorithm   string             `json:"algorithm"`
	Store       string             `json:"store"`
	CacheTTL    string             `json:"cache_ttl,omitempty"`
	Update      string             `json:"update,omitempty"`
	RedisRead   string             `json:"redis_read,omitempty"`
	ErrorPolicy string             `json:"error_policy"`
	Limit       int64              `json:"limit"`
	Meets       bool               `json:"meets"`
	NeverBinds  bool               `json:"never_binds,omitempty"`
	WhyNot      string             `json:"why_not,omitempty"`
	Confidence  float64            `json:"confidence"`
	Monotone    bool               `json:"monotone"`
	Note        string             `json:"note,omitempty"`
	Metrics     map[string]float64 `json:"metrics"`
	Verdicts    []string           `json:"verdicts"`
	Summary     *measure.Summary   `json:"summary"`
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

// designSpace is the default space, with the Redis designs when the
// scenario's advise section names redis and gcra (at the scenario's
// burst) when it names gcra, narrowed to what that section lists.
func designSpace(pl *plan.Plan, a scenario.Advise) []advise.Design {
	space := advise.Space(pl)
	if pl.Store.Kind != plan.Redis && slices.Contains(a.Stores, scenario.KindRedis) {
		space = append(space, advise.RedisSpace(pl)...)
	}
	if slices.Contains(a.Algorithms, string(limiter.GCRA)) {
		space = advise.WithGCRA(space, pl.Limiter.Burst)
	}
	var out []advise.Design
	for _, d := range space {
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
	limit := pl.Limiter.Limit
	if c.limit != 0 {
		limit = c.limit
	}
	if limit < 1 || limit > limiter.MaxLimit {
		fmt.Fprintf(stderr, "simulate: -limit %d is out of range: give a limit between 1 and %d\n", c.limit, int64(limiter.MaxLimit))
		return ExitBadInput
	}
	seed := c.seedOf(sc)
	trials := c.trials
	if trials == 0 {
		trials = min(sc.Trials, 10)
	}
	space := designSpace(pl, sc.Advise)
	if len(space) == 0 {
		fmt.Fprintln(stderr, "simulate: the advise section leaves no design to try: widen advise.algorithms, advise.stores or advise.policies")
		return ExitBadInput
	}
	if c.searchLimit {
		fmt.Fprintf(stderr, "simulate: advising on %d designs, searching each one's largest limit, %d trials per limit tried\n", len(space), trials)
	} else {
		fmt.Fprintf(stderr, "simulate: advising on %d designs at a limit of %d, %d trials each\n", len(space), limit, trials)
	}
	started := time.Now()
	progress := func(done int, d advise.Design, limit int64) {
		if cli.IsTerminal(stderr) {
			fmt.Fprintf(stderr, "\r\033[K  %d simulations, %v: %s at limit %d", done, time.Since(started).Round(time.Second), d, limit)
		}
	}
	results, err := advise.Advise(pl, advise.Options{Budget: budget, Designs: space, Seed: seed, Trials: trials, Workers: c.workers,
		Limit: limit, SearchLimit: c.searchLimit, MaxLimit: sc.Advise.MaxLimit, Progress: progress, Context: ctx})
	if cli.IsTerminal(stderr) {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		fmt.Fprintln(stderr, "simulate: -advise:", err)
		return ExitFailure
	}
	doc := adviceDoc(sc, pl, seed, budget, results)
	doc.Advice.Notes = advise.Notes(pl, space)
	if c.json {
		b, _ := json.MarshalIndent(&doc, "", "  ")
		stdout.Write(append(b, '\n'))
	} else {
		writeNotes(stdout, doc.Advice)
		advise.WriteTable(stdout, budget, results)
		writeShip(stdout, doc.Advice)
	}
	if !c.noReport {
		dir, err := writeAdvice(c.out, sc, doc, budget, results)
		if err != nil {
			fmt.Fprintln(stderr, "simulate: the advice is above, but its report was not written:", err)
			return ExitFailure
		}
		if c.json {
			fmt.Fprintf(stderr, "advice: %s\n", dir)
		} else {
			fmt.Fprintf(stdout, "\nadvice: %s (advice.json, pareto.png beside it)\n", filepath.Join(dir, "advice.md"))
		}
	}
	if advise.Recommend(results) < 0 {
		return ExitThreshold
	}
	return ExitOK
}

// ratioMax is the Pareto figure's overshoot axis when the budget has no
// count or ratio: the table's ratio.
var ratioMax, _ = measure.LookupMetric("ratio.max")

// adviceDoc is the advice as advice.json holds it.
func adviceDoc(sc *scenario.Scenario, pl *plan.Plan, seed uint64, budget []measure.Condition, rs []advise.Result) adviceJSON {
	body := adviceBody{Scenario: plan.ScenarioRef(sc, report.DescribeTraffic(sc)), Seed: seed, Recommended: -1,
		Recommendation: advise.Recommendation(budget, rs)}
	for _, b := range budget {
		body.Budget = append(body.Budget, b.Text)
	}
	for _, r := range rs {
		o := adviceOption{Algorithm: string(r.Design.Algorithm), Store: r.Design.Store.String(), ErrorPolicy: string(r.Design.Policy),
			Limit: r.Limit, Meets: r.Meets, NeverBinds: r.NeverBinds, WhyNot: r.WhyNot(), Confidence: r.Confidence, Monotone: r.Monotone, Note: r.Note, Metrics: map[string]float64{},
			Summary: r.Summary}
		switch r.Design.Store {
		case plan.KV:
			o.CacheTTL = scenario.Duration(r.Design.CacheTTL).String()
		case plan.Redis:
			o.Update, o.RedisRead = string(r.Design.Update), scenario.RedisReadPrimary
			if r.Design.ReadReplica {
				o.RedisRead = scenario.RedisReadReplica
			}
		}
		for _, m := range measure.Metrics {
			if v, ok := m.Value(r.Summary); ok {
				o.Metrics[m.Name] = v
			}
		}
		for _, v := range r.Verdicts {
			o.Verdicts = append(o.Verdicts, v.String())
		}
		body.Options = append(body.Options, o)
	}
	if i := advise.Recommend(rs); i >= 0 {
		body.Recommended = i
		body.Snippet = advise.Snippet(rs[i], scenario.Duration(pl.Limiter.Window).String())
		body.WorkerChange = advise.WorkerChange(rs[i])
		body.ChangeIn = advise.ChangeIn(rs[i])
	} else if len(rs) > 0 {
		body.Binding = rs[0].WhyNot()
	}
	return adviceJSON{Advice: body}
}

// writeShip says what to ship: the scenario snippet and the change, in
// the Worker or in the code that calls Redis.
func writeShip(w io.Writer, a adviceBody) {
	if a.Snippet == "" {
		return
	}
	in := a.ChangeIn
	if in == "" {
		in = "the Worker"
	}
	fmt.Fprintf(w, "\nAs a scenario:\n\n%s\nIn %s: %s.\n", indent(a.Snippet), in, a.WorkerChange)
}

// writeNotes writes the advice's notes, one a line.
func writeNotes(w io.Writer, a adviceBody) {
	for _, n := range a.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// indent indents every line of s by two spaces.
func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			b.WriteString("  " + l)
		}
	}
	return b.String()
}

// writeAdvice writes the advice under out/<scenario>-advice/<time>/.
func writeAdvice(out string, sc *scenario.Scenario, doc adviceJSON, budget []measure.Condition, rs []advise.Result) (string, error) {
	dir, err := report.NewDir(out, sc.Name+"-advice", time.Now())
	if err != nil {
		return "", err
	}
	// The figure's overshoot axis is the budget's first count or ratio,
	// with its bound (when an upper one).
	x, bound := ratioMax, 0.0
	for _, b := range budget {
		if b.Metric.Unit == "count" || b.Metric.Unit == "ratio" {
			x = b.Metric
			if strings.HasPrefix(string(b.Op), "<") {
				bound = b.Value
			}
			break
		}
	}
	var points []report.AdvicePoint
	for i, r := range rs {
		allowed, _ := x.Value(r.Summary)
		usd, priced := r.Cost()
		points = append(points, report.AdvicePoint{Rank: i + 1, Allowed: allowed, Denied: r.LegitDenied(), Cost: usd, NotPriced: !priced,
			Meets: r.Meets, Unbound: r.NeverBinds})
	}
	b, err := json.MarshalIndent(&doc, "", "  ")
	if err != nil {
		return "", err
	}
	if err := report.WriteFile(dir, adviceFile, append(b, '\n')); err != nil {
		return "", err
	}
	fig := report.ParetoFigure(points, x, bound)
	if err := report.WriteFigure(dir, fig); err != nil {
		return "", err
	}
	var md bytes.Buffer
	fmt.Fprintf(&md, "# Advice: %s\n\n%s\n\n", escape.MarkdownCell(sc.Name), escape.Markdown(sc.Question))
	fmt.Fprintln(&md, "```")
	writeNotes(&md, doc.Advice)
	advise.WriteTable(&md, budget, rs)
	writeShip(&md, doc.Advice)
	fmt.Fprintln(&md, "```")
	fmt.Fprintf(&md, "\n![%s](pareto.png)\n\n%s\n", fig.Title, fig.Caption)
	if err := report.WriteFile(dir, "advice.md", md.Bytes()); err != nil {
		return "", err
	}
	return dir, nil
}
