package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/redact"
)

// doc is a report before it is rendered: the same content goes to
// report.html and report.md.
type doc struct {
	Title    string
	Headline string
	Warnings []string
	Facts    []fact
	// Compare is the comparison's verdict sentence and CompareTables its
	// tables (the verdict's numbers, the quantiles, the repeated runs),
	// when Options.Compare is set.
	Compare       string
	CompareTables []table
	// VerdictClass styles the verdict box (verdictClass): green only
	// when the prediction holds.
	VerdictClass string
	// Tables come before the figures (the results in numbers), Details
	// after them (populations, KV work, live run, sweep points).
	Tables    []table
	Details   []table
	Figures   []Figure
	Generated string
}

// fact is one row of the run's identity table.
type fact struct{ Name, Value string }

// table is a small table of results.
type table struct {
	Title  string
	Header []string
	Rows   [][]string
	Note   string
}

// build computes the whole report from the summary.
func build(s *measure.Summary, opts Options) *doc {
	d := &doc{
		Title:    "overshoot report: " + orDash(s.Scenario.Name),
		Headline: Headline(s, opts.Traffic),
	}
	if !opts.Generated.IsZero() {
		d.Generated = opts.Generated.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	if !s.Complete {
		d.Warnings = append(d.Warnings, "This run did not complete (it was interrupted or stopped early): what is here was measured, but not all that was planned.")
	}
	if n := nonFinite(s); n > 0 {
		d.Warnings = append(d.Warnings, fmt.Sprintf("The summary holds %d numbers that are NaN or infinite; figures leave them out and summary.json writes them as 0.", n))
	}
	if s.Limiter.Limit <= 0 && s.Totals.Requests > 0 {
		d.Warnings = append(d.Warnings, "The limit is 0 or unset, so no overshoot ratio (allowed / limit) can be computed; ratio figures are left out.")
	}
	d.Facts = facts(s)
	if ts := tables(s); len(ts) > 0 {
		d.Tables, d.Details = ts[:1], ts[1:]
	}
	if opts.Compare != nil {
		pred, meas, pl, ml := compareRoles(s, opts.Compare)
		cmp := s.Comparison
		if cmp == nil {
			c := measure.Compare(pred, meas)
			cmp = &c
		}
		d.Compare, d.VerdictClass = compareSentence(pred, meas, pl, ml, cmp), verdictClass(cmp)
		if c := s.Comparison; c != nil {
			d.CompareTables = append(d.CompareTables, comparisonTable(c))
			if len(c.Checks) > 0 {
				d.CompareTables = append(d.CompareTables, mechanismTable(c))
			}
		}
		d.CompareTables = append(d.CompareTables, compareTable(pred, meas, pl, ml))
		if r := meas.Repeats; r != nil && len(r.Runs) > 0 {
			d.CompareTables = append(d.CompareTables, repeatsTable(r))
		}
	}
	if !opts.NoFigures {
		d.Figures = Figures(s, opts)
	}
	return d
}

// Headline is the report's first sentence, computed from the summary: what
// traffic, what limit, how many got through at most, and how many in 95%
// of trials. traffic, when not empty, describes the traffic in words
// ("32 concurrent requests from one location"); otherwise the populations
// are named.
func Headline(s *measure.Summary, traffic string) string {
	if s.Totals.Requests <= 0 {
		if len(s.Points) > 0 {
			return sweepHeadline(s)
		}
		return "No requests were made in this run, so there is nothing to measure: no key-window, no overshoot, no figures."
	}
	if traffic == "" {
		traffic = describeTraffic(s)
	}
	lim := s.Limiter.Limit
	limit := fmt.Sprintf("a limit of %s %s keyed by %s", count(lim), perWindow(s.Limiter), s.Limiter.KeyedBy())
	if s.Limiter.Algorithm != "" {
		limit += " (" + s.Limiter.AlgorithmText() + onStore(s.Limiter.Store) + ")"
	}
	o := s.Overshoot
	if o.KeyWindows <= 0 {
		return fmt.Sprintf("With %s, %s made no decision: none of the %s requests reached the limiter (errors: %s).",
			traffic, limit, count(s.Totals.Requests), count(s.Totals.Errors))
	}
	measured := s.Mode == "attack"
	var b strings.Builder
	if m := s.Scenario.HeadlineMetric(); m.Name != measure.DefaultHeadline {
		b.WriteString(capitalize(metricSentence(m, s)) + " ")
	}
	if a := s.Answer; a != nil {
		// Who is behind the worst figure, and why it reads as it does.
		b.WriteString("The worst key-window: " + a.Who + ". ")
		for _, n := range a.Notes {
			b.WriteString(capitalize(n) + ". ")
		}
	}
	fmt.Fprintf(&b, "With %s, %s ", traffic, limit)
	switch {
	case lim <= 0:
		fmt.Fprintf(&b, "let through up to %s in one key-window.", count(o.MaxAllowed))
		return b.String()
	case measured:
		b.WriteString("was measured letting through up to ")
	default:
		b.WriteString("let through up to ")
	}
	named := ""
	if s.Scenario.HeadlineMetric().Name == measure.DefaultHeadline {
		named = ", " + measure.DefaultHeadline // the metric the question is about
	}
	fmt.Fprintf(&b, "%s (%s%s)", count(o.MaxAllowed), ratio(float64(o.MaxAllowed)/float64(lim)), named)
	if o.MaxAllowed <= lim {
		b.WriteString(": no key-window went over the limit")
	}
	if s.Trials > 1 && finite(o.PerTrial.MaxRatio.P95) {
		at := o.PerTrial.TrialMaxP95(lim)
		fmt.Fprintf(&b, "; in 95%% of %s trials at most %s (%s)", count(int64(s.Trials)), count(at), ratio(o.PerTrial.MaxRatio.P95))
	}
	b.WriteString(".")
	if o.MaxInInterval > o.MaxAllowed && o.MaxInInterval > lim {
		fmt.Fprintf(&b, " Across window boundaries, one key got %s in a single window's length (%s).", count(o.MaxInInterval), ratio(float64(o.MaxInInterval)/float64(lim)))
	}
	if len(s.Points) > 0 {
		b.WriteString(" " + sweepHeadline(s))
	}
	return b.String()
}

// sweepHeadline is the headline of a sweep whose top level holds no run:
// the scenario's headline metric, where it was highest and lowest, then
// (unless that metric already said it) the most one key-window allowed.
func sweepHeadline(s *measure.Summary) string {
	m := s.Scenario.HeadlineMetric()
	n := 0
	var hi, lo, worst *measure.Point
	var hiV, loV float64
	worstRatio := math.Inf(-1)
	for i := range s.Points {
		p := &s.Points[i]
		if p.Summary == nil || p.Summary.Totals.Requests <= 0 {
			continue
		}
		n++
		if v, ok := m.Value(p.Summary); ok && finite(v) {
			if hi == nil || v > hiV {
				hi, hiV = p, v
			}
			if lo == nil || v < loV {
				lo, loV = p, v
			}
		}
		if r := p.Summary.Overshoot.Ratio.Max; finite(r) && r > worstRatio && p.Summary.Overshoot.KeyWindows > 0 {
			worst, worstRatio = p, r
		}
	}
	if n == 0 {
		return fmt.Sprintf("This sweep has %d points, and no requests were made at any of them: nothing to measure.", len(s.Points))
	}
	var b strings.Builder
	what := m.Label + " (" + m.Name + ")"
	switch {
	case hi == nil:
		fmt.Fprintf(&b, "Across %d sweep points, %s was not measured.", n, what)
	case hiV == loV:
		fmt.Fprintf(&b, "Across %d sweep points, %s was %s at every point.", n, what, metricText(m, hiV))
	default:
		fmt.Fprintf(&b, "Across %d sweep points, %s was highest at %s: %s; lowest at %s: %s.", n, what,
			paramList(hi.Params), metricText(m, hiV), paramList(lo.Params), metricText(m, loV))
	}
	if worst != nil {
		ps := worst.Summary
		verb := "let through"
		if s.Mode == "attack" {
			verb = "was measured letting through"
		}
		fmt.Fprintf(&b, " A limit of %s %s %s up to %s in one key-window (%s) at %s.",
			count(ps.Limiter.Limit), perWindow(ps.Limiter), verb, count(ps.Overshoot.MaxAllowed), ratio(worstRatio), paramList(worst.Params))
		if a := ps.Answer; a != nil {
			b.WriteString(" There, the worst key-window: " + a.Who + ".")
			for _, n := range a.Notes {
				b.WriteString(" " + capitalize(n) + ".")
			}
		}
	}
	return b.String()
}

// metricSentence is "<label> (<name>): <value>." for one run.
func metricSentence(m measure.Metric, s *measure.Summary) string {
	v, ok := m.Value(s)
	if !ok || !finite(v) {
		return m.Label + " (" + m.Name + "): not measured in this run."
	}
	return m.Label + " (" + m.Name + "): " + metricText(m, v) + "."
}

// metricText formats a metric's value as the report writes numbers.
func metricText(m measure.Metric, v float64) string {
	if !finite(v) {
		return "n/a"
	}
	switch m.Unit {
	case "ratio":
		return ratio(v)
	case "count":
		return count(int64(math.Round(v)))
	case "share":
		return pctf(v)
	case "usd":
		return usd(v)
	case "ms":
		return num(v) + " ms"
	}
	return num(v)
}

// metricCell is a metric's value at one point for a table, "-" when the
// point did not measure it.
func metricCell(m measure.Metric, s *measure.Summary) string {
	v, ok := m.Value(s)
	if !ok {
		return "-"
	}
	return metricText(m, v)
}

// describeTraffic names the populations when the driver gave no words.
func describeTraffic(s *measure.Summary) string {
	if s.Scenario.Traffic != "" {
		return s.Scenario.Traffic
	}
	perTrial := s.Totals.Requests
	if s.Trials > 1 {
		perTrial = s.Totals.Requests / int64(s.Trials)
	}
	var names []string
	for _, p := range s.Populations {
		if p.Name != "" {
			names = append(names, p.Name)
		}
	}
	what := fmt.Sprintf("%s requests", count(perTrial))
	if s.Trials > 1 {
		what += " per trial"
	}
	if secs := s.Totals.SimulatedSeconds; finite(secs) && secs > 0 {
		what += " over " + duration(secs)
	}
	switch len(names) {
	case 0:
		return what
	case 1:
		return what + " from " + names[0]
	default:
		return what + " from " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
}

func onStore(store string) string {
	if store == "" {
		return ""
	}
	return " on " + store
}

// perWindow phrases the limiter's window: "per day", "per 10 s".
func perWindow(l measure.LimiterRef) string {
	w := l.WindowSecs
	if !finite(w) || w <= 0 {
		if l.Window != "" {
			return "per " + l.Window
		}
		return "per window"
	}
	switch w {
	case 86400:
		return "per day"
	case 3600:
		return "per hour"
	case 60:
		return "per minute"
	case 1:
		return "per second"
	}
	return "per " + duration(w)
}

// duration phrases seconds in the largest whole unit that fits.
func duration(secs float64) string {
	switch {
	case secs >= 86400 && math.Mod(secs, 86400) == 0:
		return plural(secs/86400, "day")
	case secs >= 3600 && math.Mod(secs, 3600) == 0:
		return plural(secs/3600, "h")
	case secs >= 60 && math.Mod(secs, 60) == 0:
		return plural(secs/60, "min")
	case secs >= 1:
		return num(secs) + " s"
	}
	return num(secs*1000) + " ms"
}

func plural(n float64, unit string) string {
	if unit == "day" && n != 1 {
		unit = "days"
	}
	return num(n) + " " + unit
}

// facts is the run's identity: what produced the numbers.
func facts(s *measure.Summary) []fact {
	sc := s.Scenario
	name := orDash(sc.Name)
	if sc.File != "" {
		name += " (" + sc.File + ")"
	}
	fs := []fact{{"Scenario", name}}
	if sc.Question != "" {
		fs = append(fs, fact{"Question", sc.Question})
	}
	fs = append(fs,
		fact{"Scenario hash", orDash(sc.Hash)},
		fact{"Mode", modeWords(s.Mode)},
		fact{"Seed", strconv.FormatUint(s.Seed, 10)},
		fact{"Trials", count(int64(s.Trials))},
		fact{"Complete", yesNo(s.Complete)},
	)
	l := s.Limiter
	fs = append(fs,
		fact{"Limiter", fmt.Sprintf("%s, %s %s keyed by %s, on %s, %s", orDash(l.AlgorithmText()), count(l.Limit), perWindow(l), l.KeyedBy(), orDash(l.Store), orDash(l.ErrorPolicy))},
	)
	if len(sc.Params) > 0 {
		fs = append(fs, fact{"Parameters (-set)", strings.Join(sc.Params, ", ")})
	}
	if len(s.Points) > 0 {
		fs = append(fs, fact{"Sweep", fmt.Sprintf("%d points over %s", len(s.Points), strings.Join(sweepPaths(s.Points), ", "))})
	}
	if lv := s.Live; lv != nil {
		target := orDash(lv.Target)
		if lv.URL != "" {
			target += " at " + redact.URL(lv.URL) // a summary written before redact
		}
		fs = append(fs, fact{"Live target", target})
		if lv.ResultsFile != "" {
			fs = append(fs, fact{"Results file (vegeta)", lv.ResultsFile})
		}
	}
	return fs
}

func modeWords(m string) string {
	switch m {
	case "simulate":
		return "simulate (a prediction: the discrete-event model in virtual time)"
	case "attack":
		return "attack (a measurement: real HTTP load in real time)"
	}
	return orDash(m)
}

// tables are the results in numbers, beside the figures.
func tables(s *measure.Summary) []table {
	if s.Totals.Requests <= 0 {
		if len(s.Points) > 0 {
			return []table{sweepTable(s), sweepDetails(s)}
		}
		return nil
	}
	out := []table{resultsTable(s)}
	if len(s.Populations) > 0 {
		out = append(out, populationsTable(s.Populations))
	}
	out = append(out, storeTable(s))
	if lv := s.Live; lv != nil {
		out = append(out, liveTable(s, lv))
	}
	if r := s.Repeats; r != nil && len(r.Runs) > 0 {
		out = append(out, repeatsTable(r))
	}
	if len(s.Points) > 0 {
		out = append(out, sweepTable(s), sweepDetails(s))
	}
	if t, ok := sensitivityTable(s); ok {
		out = append(out, t)
	}
	return out
}

// resultsTable is the run's headline numbers: the question's metric, the
// decisions, the key-windows over the limit, the exact limiter's
// reference and the ratios.
func resultsTable(s *measure.Summary) table {
	t := s.Totals
	o := s.Overshoot
	res := table{Title: "Results", Header: []string{"What", "Value"}}
	add := func(k, v string) { res.Rows = append(res.Rows, []string{k, v}) }
	if m := s.Scenario.HeadlineMetric(); s.Limiter.Limit > 0 || m.Unit != "ratio" {
		add(capitalize(m.Label)+" ("+m.Name+"): the question's metric", metricCell(m, s))
	}
	add("Requests", count(t.Requests))
	add("Allowed", count(t.Allowed)+" ("+pct(t.Allowed, t.Requests)+")")
	add("Denied", count(t.Denied)+" ("+pct(t.Denied, t.Requests)+")")
	add("Errors (no decision)", count(t.Errors))
	add("Fail-open / fail-closed decisions", count(t.FailOpen)+" / "+count(t.FailClosed))
	add("Key-windows", count(o.KeyWindows))
	add("Key-windows over the limit", count(o.OverLimit)+" ("+pctf(o.OverLimitShare)+")")
	add("Excess (allowed beyond the limit, summed)", count(o.Excess))
	if r := o.Reference; r.Allowed > 0 {
		add("An exact limiter (no lag) on the same requests would have allowed", count(r.Allowed))
		add("Excess over it: summed, most in one key-window", count(r.Excess)+", "+count(r.MaxExcess))
		add("Requests it denies that got through anyway", fmt.Sprintf("%s of %s (%s)", count(r.LetThrough), count(r.Denied), pct(r.LetThrough, r.Denied)))
	}
	if s.Limiter.Limit > 0 && o.KeyWindows > 0 {
		r := o.Ratio
		add("Ratio allowed/limit: p50, p95, p99, max", strings.Join([]string{ratio(r.P50), ratio(r.P95), ratio(r.P99), ratio(r.Max)}, ", "))
		add("Most allowed in one window's length (any alignment)", count(o.MaxInInterval)+" ("+ratio(o.MaxInIntervalRatio)+")")
		if s.Trials > 1 {
			m := o.PerTrial.MaxRatio
			add("Per-trial max ratio: mean (95% CI)", fmt.Sprintf("%s (%s to %s)", ratio(m.Mean), ratio(m.MeanLo), ratio(m.MeanHi)))
			add("Per-trial max ratio: central 95% of trials", fmt.Sprintf("%s to %s", ratio(m.Lo), ratio(m.Hi)))
		}
	}
	return res
}

// populationsTable is each population's decisions and false denials.
func populationsTable(pops []measure.Population) table {
	pt := table{Title: "Populations", Header: []string{"Population", "Legitimate", "Requests", "Allowed", "Denied", "Errors", "False denials (clients)"}}
	for _, p := range pops {
		fd := count(p.FalseDenials)
		if p.Legitimate {
			fd += " (" + count(p.FalselyDeniedClients) + ")"
		}
		pt.Rows = append(pt.Rows, []string{orDash(p.Name), yesNo(p.Legitimate), count(p.Requests), count(p.Allowed), count(p.Denied), count(p.Errors), fd})
	}
	pt.Note = "A false denial is a legitimate request denied while its client had itself been allowed fewer than limit requests in the window (clients behind one NAT or token share a key)."
	return pt
}

// storeTable is the store's work and the cost, or a note that the run
// could not see the store.
func storeTable(s *measure.Summary) table {
	kv := s.KV
	kt := table{Title: "KV work and cost", Header: []string{"What", "Value"}}
	kadd := func(k, v string) { kt.Rows = append(kt.Rows, []string{k, v}) }
	if !kv.Observed {
		kt.Note = "The store was out of sight of this run (a URL was attacked), so its work, staleness and cost were not measured."
		return kt
	}
	kadd("Reads / writes", count(kv.Reads)+" / "+count(kv.Writes))
	kadd("Read errors / write errors", count(kv.ReadErrors)+" / "+count(kv.WriteErrors))
	kadd("Writes rate-limited (429) / over quota", count(kv.WriteRateLimited)+" / "+count(kv.QuotaErrors))
	kadd("Lost updates (increments acknowledged, missing from the final count)", count(kv.LostUpdates))
	kadd("Stale reads", count(kv.StaleReads)+staleDetail(kv.StalenessMs))
	c := s.Cost
	kadd("Per million requests: reads, writes", num(c.ReadsPerMillionRequests)+", "+num(c.WritesPerMillionRequests))
	if c.Priced() {
		kadd("Cost per million requests (paid plan)", usd(c.USDPerMillionRequests))
		if c.Basis != "" {
			kadd("Priced at", c.Basis)
		}
		kadd("Free plan, on a steady day at this run's rates", capitalize(measure.FreePlanSentence(c)))
	} else {
		kadd("Cost", "Not priced: "+c.NotPriced)
	}
	return kt
}

// liveTable is a live run's rates, latency (overall and per decision),
// status codes and unattributed responses.
func liveTable(s *measure.Summary, lv *measure.Live) table {
	lt := table{Title: "Live run", Header: []string{"What", "Value"}}
	ladd := func(k, v string) { lt.Rows = append(lt.Rows, []string{k, v}) }
	ladd("Offered / achieved rate", num(lv.OfferedRate)+" / "+num(lv.AchievedRate)+" requests/s")
	ladd("Duration", num(lv.DurationSecs)+" s")
	l := lv.LatencyMs
	ladd("Latency mean, p50, p95, p99, max", strings.Join([]string{num(l.Mean), num(l.P50), num(l.P95), num(l.P99), num(l.Max)}, ", ")+" ms")
	for d := range measure.NumDecisions {
		if st := s.LatencyByDecision.Of(d); st != nil && st.N > 0 {
			ladd("Latency of "+d.String()+" responses ("+count(st.N)+"): p50, p99, max", strings.Join([]string{num(st.P50), num(st.P99), num(st.Max)}, ", ")+" ms")
		}
	}
	ladd("Status codes", statusList(lv.Status))
	ladd("Responses too near a window boundary to attribute", count(lv.Ambiguous))
	lt.Note = lv.LatencyNote
	return lt
}

// sweepColumn is one metric column of the sweep table.
type sweepColumn struct {
	header string
	metric string
}

// sweepTable is one row per point, led by the scenario's headline metric,
// then the overshoot's other numbers (a column that repeats the headline
// metric is left out).
func sweepTable(s *measure.Summary) table {
	m := s.Scenario.HeadlineMetric()
	cols := []sweepColumn{
		{"Ratio p50", "ratio.p50"}, {"Ratio p99", "ratio.p99"}, {"Ratio max", "ratio.max"},
		{"Most in a window-long interval / limit", "interval.max"}, {"Trial's max: 95% of trials at or under", "trial_max.p95"},
	}
	t := table{Title: "Sweep points", Header: []string{"Point", capitalize(m.Label) + " (" + m.Name + ")", "Requests", "Max allowed"}}
	for _, c := range cols {
		if c.metric != m.Name {
			t.Header = append(t.Header, c.header)
		}
	}
	t.Header = append(t.Header, "Trials' max: central 95%")
	for _, p := range s.Points {
		row := []string{paramList(p.Params)}
		ps := p.Summary
		if ps == nil {
			for len(row) < len(t.Header) {
				row = append(row, "-")
			}
			t.Rows = append(t.Rows, row)
			continue
		}
		row = append(row, metricCell(m, ps), count(ps.Totals.Requests), count(ps.Overshoot.MaxAllowed))
		for _, c := range cols {
			if c.metric != m.Name {
				row = append(row, metricCell(mustMetric(c.metric), ps))
			}
		}
		tm := ps.Overshoot.PerTrial.MaxRatio
		row = append(row, ratio(tm.Lo)+" to "+ratio(tm.Hi))
		t.Rows = append(t.Rows, row)
	}
	t.Note = "Ratios are allowed / limit per key-window (one limiter key in one window), pooled over trials."
	return t
}

// sweepDetails is one row per point with what else a reader of the
// question needs: each population's outcome (false denials for legitimate
// ones), the error policy's decisions, and the store's work and cost.
func sweepDetails(s *measure.Summary) table {
	var pops []measure.Population
	for _, p := range s.Points {
		if p.Summary != nil && len(p.Summary.Populations) > len(pops) {
			pops = p.Summary.Populations
		}
	}
	t := table{Title: "Sweep points: users, store and cost", Header: []string{"Point"}}
	for _, q := range pops {
		if q.Legitimate {
			t.Header = append(t.Header, "False denials: "+orDash(q.Name))
		} else {
			t.Header = append(t.Header, "Allowed: "+orDash(q.Name))
		}
	}
	t.Header = append(t.Header, "Fail-open / fail-closed", "No decision", "KV reads / writes per million requests", "Writes refused (429 / quota)", "Cost per million requests", "Free plan")
	for _, p := range s.Points {
		row := []string{paramList(p.Params)}
		ps := p.Summary
		if ps == nil {
			for len(row) < len(t.Header) {
				row = append(row, "-")
			}
			t.Rows = append(t.Rows, row)
			continue
		}
		for i, q := range pops {
			if i >= len(ps.Populations) {
				row = append(row, "-")
				continue
			}
			got := ps.Populations[i]
			if q.Legitimate {
				row = append(row, fmt.Sprintf("%s of %s (%s)", count(got.FalseDenials), count(got.Requests), pct(got.FalseDenials, got.Requests)))
			} else {
				row = append(row, fmt.Sprintf("%s of %s (%s)", count(got.Allowed), count(got.Requests), pct(got.Allowed, got.Requests)))
			}
		}
		tt := ps.Totals
		row = append(row, count(tt.FailOpen)+" / "+count(tt.FailClosed), count(tt.Errors))
		if ps.KV.Observed {
			c := ps.Cost
			row = append(row, num(c.ReadsPerMillionRequests)+" / "+num(c.WritesPerMillionRequests),
				count(ps.KV.WriteRateLimited)+" / "+count(ps.KV.QuotaErrors), priceOf(c), freePlanOf(c))
		} else {
			row = append(row, "not observed", "-", "-", "-")
		}
		t.Rows = append(t.Rows, row)
	}
	t.Note = "A false denial is a legitimate request denied while its client had itself been allowed fewer than limit requests in the window. Fail-open and fail-closed decisions were made because the store failed. KV operations are those the store accepted (billed); the cost is at the paid plan's $0.50 per million reads and $5.00 per million writes; the free plan is projected onto a steady day at the point's rates."
	return t
}

// mustMetric is the metric called name, which measure.Metrics holds.
func mustMetric(name string) measure.Metric {
	m, err := measure.LookupMetric(name)
	if err != nil {
		panic(err)
	}
	return m
}

func staleDetail(st measure.Stats) string {
	if st.N <= 0 {
		return ""
	}
	return fmt.Sprintf(" (staleness p50 %s ms, p99 %s ms, max %s ms)", num(st.P50), num(st.P99), num(st.Max))
}

func statusList(m map[string]int64) string {
	if len(m) == 0 {
		return "-"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + count(m[k])
	}
	return strings.Join(parts, ", ")
}

func paramList(ps []measure.Param) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.Path + "=" + p.Value
	}
	if len(parts) == 0 {
		return "(no parameters)"
	}
	return strings.Join(parts, ", ")
}

// Number formatting: counts with thousands separators, ratios as "7.6x".

func count(n int64) string { return measure.Thousands(n) }

func ratio(r float64) string {
	if !finite(r) {
		return "n/a"
	}
	if math.Abs(r) >= 100 {
		return strconv.FormatFloat(r, 'f', 0, 64) + "x"
	}
	if math.Abs(r) >= 10 {
		return strconv.FormatFloat(r, 'f', 1, 64) + "x"
	}
	t := strings.TrimRight(strconv.FormatFloat(r, 'f', 2, 64), "0")
	if strings.HasSuffix(t, ".") {
		t += "0"
	}
	return t + "x"
}

// num formats a measurement with up to three significant decimals.
func num(f float64) string {
	if !finite(f) {
		return "n/a"
	}
	a := math.Abs(f)
	switch {
	case a >= 1e15:
		return strconv.FormatFloat(f, 'g', 4, 64)
	case a >= 100:
		return count(int64(math.Round(f)))
	case a >= 1:
		return strings.TrimSuffix(strings.TrimRight(strconv.FormatFloat(f, 'f', 2, 64), "0"), ".")
	case a == 0:
		return "0"
	}
	return strconv.FormatFloat(f, 'g', 3, 64)
}

func usd(f float64) string {
	if !finite(f) {
		return "n/a"
	}
	if math.Abs(f) < 10 {
		return "$" + strconv.FormatFloat(f, 'f', 3, 64)
	}
	return "$" + strconv.FormatFloat(f, 'f', 2, 64)
}

// priceOf is c's dollars per million requests, or "not priced".
func priceOf(c measure.Cost) string {
	if !c.Priced() {
		return "not priced"
	}
	return usd(c.USDPerMillionRequests)
}

// freePlanOf is when the free plan runs out at c's rates, or why c has no
// price.
func freePlanOf(c measure.Cost) string {
	if !c.Priced() {
		return capitalize(c.NotPriced)
	}
	return capitalize(measure.FreePlanSentence(c))
}

func pct(part, whole int64) string {
	if whole <= 0 {
		return "-"
	}
	return pctf(float64(part) / float64(whole))
}

func pctf(f float64) string {
	if !finite(f) {
		return "n/a"
	}
	return strconv.FormatFloat(100*f, 'f', 1, 64) + "%"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// finite reports whether f is a number a figure can hold: not NaN, not
// infinite, and not so large that axis arithmetic overflows.
func finite(f float64) bool {
	return !math.IsNaN(f) && !math.IsInf(f, 0) && math.Abs(f) < 1e15
}

// trials is "1 trial" or "N trials".
func trials(n int) string {
	if n == 1 {
		return "1 trial"
	}
	return count(int64(n)) + " trials"
}
