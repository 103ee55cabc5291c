package measure

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/overshoot-dev/overshoot/internal/escape"
)

// TextWidth is the width WriteText wraps long lines (the scenario's
// question) at: a terminal's when the caller knows it, else 80 columns.
const TextWidth = 80

// WriteText prints the summary as a person reads it in a terminal: the
// headline numbers first, then the detail behind them, with long lines
// wrapped at TextWidth. Sweeps print one line per point.
func WriteText(w io.Writer, s *Summary) error { return WriteTextWidth(w, s, TextWidth) }

// WriteTextWidth is WriteText wrapping at width columns: WriteHeader, then
// WriteResults.
func WriteTextWidth(w io.Writer, s *Summary, width int) error {
	if err := WriteHeader(w, s, width); err != nil {
		return err
	}
	return WriteResults(w, s)
}

// WriteHeader prints what the run is before its results: the mode, the
// scenario and its question (wrapped at width columns), the limiter, the
// seed and trials. A command prints it before the run starts, from a
// summary that holds only those fields, and WriteResults after.
func WriteHeader(w io.Writer, s *Summary, width int) error {
	p := &printer{w: w}
	p.f("overshoot %s: %s (%s)\n", s.Mode, escape.Line(s.Scenario.Name), s.Scenario.Hash)
	if s.Scenario.Question != "" {
		p.f("%s\n", Wrap("  question: ", s.Scenario.Question, width))
	}
	l := s.Limiter
	p.f("  limiter:  %s, %d per %s keyed by %s, store %s, %s\n", l.AlgorithmText(), l.Limit, l.Window, l.KeyedBy(), l.Store, l.ErrorPolicy)
	if s.Mode == "attack" {
		p.f("  seed %d (the traffic: as the model's trial 0 of this seed; the store and the network are live)", s.Seed)
	} else {
		p.f("  seed %d, %d trial(s)", s.Seed, s.Trials)
	}
	if len(s.Scenario.Params) > 0 {
		p.f(", with %s", strings.Join(s.Scenario.Params, " "))
	}
	p.f("\n")
	return p.err
}

// Wrap breaks text into lines of at most width columns (a word longer
// than a line stays whole), the first starting with prefix and the others
// indented as far. Below 40 columns it wraps at 40.
func Wrap(prefix, text string, width int) string {
	width = max(width, 40)
	indent := strings.Repeat(" ", len([]rune(prefix)))
	var b strings.Builder
	b.WriteString(prefix)
	col := len([]rune(prefix))
	start := col
	for _, word := range strings.Fields(text) {
		n := len([]rune(word))
		if col > start && col+1+n > width {
			b.WriteString("\n")
			b.WriteString(indent)
			col = start
		}
		if col > start {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += n
	}
	return b.String()
}

// WriteResults prints what the run found: everything WriteText prints
// after WriteHeader.
func WriteResults(w io.Writer, s *Summary) error {
	p := &printer{w: w}
	what := "predicted"
	if s.Mode == "attack" {
		what = "measured"
	}
	if !s.Complete {
		p.f("  INCOMPLETE: the run was interrupted; these are the results measured so far.\n")
	}
	for _, w := range s.Warnings {
		p.f("  WARNING: %s.\n", w)
	}
	if len(s.Points) > 0 {
		labels := make([]string, len(s.Points))
		width := len("sweep point")
		for i, pt := range s.Points {
			var names []string
			for _, q := range pt.Params {
				names = append(names, q.Path+"="+q.Value)
			}
			labels[i] = strings.Join(names, " ")
			width = max(width, len(labels[i]))
		}
		m := s.Scenario.HeadlineMetric()
		mw := max(len(m.Name), 10)
		p.f("\n  %-*s %*s %10s %8s %8s %8s %10s %10s %14s %10s\n", width, "sweep point", mw, m.Name, "requests", "p50", "p99", "max",
			"trial p95", "interval", "false denials", "fail-open")
		for i, pt := range s.Points {
			ps := pt.Summary
			r := ps.Overshoot
			lead, fd, fo := "-", "-", "-"
			if v, ok := m.Value(ps); ok {
				lead = m.Format(v)
			}
			if v, ok := mustMetric("false_denials.rate").Value(ps); ok {
				fd = mustMetric("false_denials.rate").Format(v)
			}
			if v, ok := mustMetric("fail_open.rate").Value(ps); ok {
				fo = mustMetric("fail_open.rate").Format(v)
			}
			p.f("  %-*s %*s %10s %7.2fx %7.2fx %7.2fx %9.2fx %9.2fx %14s %10s\n", width, labels[i], mw, lead, Thousands(ps.Totals.Requests),
				r.Ratio.P50, r.Ratio.P99, r.Ratio.Max, r.PerTrial.MaxRatio.P95, r.MaxInIntervalRatio, fd, fo)
		}
		p.f("  (%s = %s; ratio = allowed/limit per key-window; interval = most allowed in any window-long interval / limit;\n", m.Name, m.Label)
		p.f("   false denials = share of legitimate requests; fail-open = share of requests)\n")
		if w := s.Worst; w != nil {
			var at []string
			for _, q := range w.Params {
				at = append(at, q.Path+"="+q.Value)
			}
			p.f("  worst %s: %s at %s\n", w.Metric, m.Format(w.Value), strings.Join(at, " "))
		}
		if i := worstPoint(s.Points); i >= 0 {
			p.answer(s.Points[i].Summary.Answer, " at "+labels[i])
		}
		return p.err
	}
	p.body(s, what)
	p.sensitivity(s)
	return p.err
}

// sensitivity prints the headline under the model's assumptions, when the
// run measured it.
func (p *printer) sensitivity(s *Summary) {
	if len(s.Sensitivity) < 2 || s.Sensitivity[0].Path != "" {
		return
	}
	m := s.Scenario.HeadlineMetric()
	ref := s.Sensitivity[0]
	show := func(x Sensitivity) string {
		if !x.Measured {
			return "not measured"
		}
		return m.Format(x.Headline) + SensitivityNoteWords(x.Note)
	}
	p.f("\n  how sure: %s with the defaults (%d trials each below), and with one assumption changed:\n", show(ref), ref.Trials)
	for _, x := range s.Sensitivity[1:] {
		p.f("    %-40s %s\n", x.Path+"="+x.Value, show(x))
	}
}

// printer remembers the first write error so the formatting reads straight.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) f(format string, args ...any) {
	if p.err == nil {
		// Text from a scenario or a summary file may hold escape
		// sequences: the terminal shows them as text.
		_, p.err = io.WriteString(p.w, escape.Terminal(fmt.Sprintf(format, args...)))
	}
}

// body prints one (non-sweep) summary's numbers.
func (p *printer) body(s *Summary, what string) {
	t := s.Totals
	p.f("\n")
	if t.Requests == 0 {
		if s.Live != nil && s.Live.Ambiguous > 0 {
			p.f("  none of the %s responses could be counted: all were too near a window boundary (ambiguous); nothing was measured.\n", Thousands(s.Live.Ambiguous))
			return
		}
		p.f("  no requests were made: nothing to measure.\n")
		return
	}
	if m := s.Scenario.HeadlineMetric(); m.Name != DefaultHeadline {
		if v, ok := m.Value(s); ok {
			p.f("  %s (%s): %s\n", m.Label, m.Name, m.Format(v))
		} else {
			p.f("  %s (%s): not measured in this run\n", m.Label, m.Name)
		}
	}
	p.answer(s.Answer, "")
	p.overshoot(s, what)
	p.requests(s)
	p.store(s)
	p.live(s.Live)
}

// overshoot prints how far past the limit what (the run) went: the worst
// key-window, the spread over trials and key-windows, the exact
// limiter's reference, the worst interval and the races.
func (p *printer) overshoot(s *Summary, what string) {
	t, o := s.Totals, s.Overshoot
	p.f("  %s: a limit of %s per %s let through up to %s in one key-window (%.2fx);\n",
		what, Thousands(s.Limiter.Limit), s.Limiter.Window, Thousands(o.MaxAllowed), o.Ratio.Max)
	if s.Trials > 1 {
		m := o.PerTrial.MaxRatio
		p.f("  in 95%% of trials at most %s (%.2fx); a trial's max ratio averages %.2fx (95%% CI %.2fx..%.2fx),\n",
			Thousands(o.PerTrial.TrialMaxP95(s.Limiter.Limit)), m.P95, m.Mean, m.MeanLo, m.MeanHi)
		p.f("  and 95%% of trials fall between %.2fx and %.2fx.\n", m.Lo, m.Hi)
		if mf := o.PerTrial.Misfit; ValidMisfit(mf) {
			w := WidenedBand([2]float64{m.Lo, m.Hi}, mf)
			p.f("  widened by the calibration's miss on its own runs (x%.3g to x%.3g, calibrated.misfit): %.2fx to %.2fx, where one live run is expected.\n",
				mf[0], mf[1], w[0], w[1])
		}
	}
	p.f("  ratio over %s key-windows: p50 %.2fx  p95 %.2fx  p99 %.2fx  mean %.2fx; %.1f%% over the limit, excess %s\n",
		Thousands(o.KeyWindows), o.Ratio.P50, o.Ratio.P95, o.Ratio.P99, o.Ratio.Mean, 100*o.OverLimitShare, Thousands(o.Excess))
	if r := o.Reference; r.Allowed > 0 {
		p.f("  an exact limiter (no lag) on the same requests would have allowed %s: excess over it %s (at most %s in one key-window)\n",
			Thousands(r.Allowed), Thousands(r.Excess), Thousands(r.MaxExcess))
	}
	p.f("  most allowed in any window-long interval: %s (%.2fx)\n", Thousands(o.MaxInInterval), o.MaxInIntervalRatio)
	switch {
	case o.LargestReadGroup == 1 && t.FailOpen > 0:
		p.f("  races: no two requests of a key-window were allowed on the same count; the rest got through uncounted (fail-open)\n")
	case o.LargestReadGroup == 1:
		p.f("  races: no two requests of a key-window were allowed on the same count\n")
	case o.LargestReadGroup > 1:
		p.f("  races: up to %s requests of one key-window were allowed on the same count (they read it before any of their writes)\n", Thousands(o.LargestReadGroup))
	}
}

// requests prints the run's request totals and each population's.
func (p *printer) requests(s *Summary) {
	t := s.Totals
	p.f("\n  requests %s: allowed %s, denied %s, errors %s; fail-open %s, fail-closed %s\n",
		Thousands(t.Requests), Thousands(t.Allowed), Thousands(t.Denied), Thousands(t.Errors), Thousands(t.FailOpen), Thousands(t.FailClosed))
	for _, q := range s.Populations {
		legit := ""
		if q.Legitimate {
			legit = ", false denials " + Thousands(q.FalseDenials) + " (" + Thousands(q.FalselyDeniedClients) + " clients)"
		}
		p.f("    %-16s requests %s, allowed %s, denied %s, errors %s%s\n", q.Name, Thousands(q.Requests), Thousands(q.Allowed), Thousands(q.Denied), Thousands(q.Errors), legit)
	}
}

// store prints the store's work and the cost, or that the run could not
// see the store.
func (p *printer) store(s *Summary) {
	if k := s.KV; k.Observed {
		refused := "" // KV's two refusals; other stores have neither
		if storeLabel(s.Limiter.Store) == "kv" || k.WriteRateLimited > 0 || k.QuotaErrors > 0 {
			refused = " (429: " + Thousands(k.WriteRateLimited) + ", quota: " + Thousands(k.QuotaErrors) + ")"
		}
		p.f("  %s: reads %s, writes %s, read errors %s, write errors %s%s, lost updates %s, stale reads %s",
			storeLabel(s.Limiter.Store), Thousands(k.Reads), Thousands(k.Writes), Thousands(k.ReadErrors), Thousands(k.WriteErrors), refused,
			Thousands(k.LostUpdates), Thousands(k.StaleReads))
		if k.StaleReads > 0 {
			p.f(" (staleness p50 %.0f ms, p99 %.0f ms)", k.StalenessMs.P50, k.StalenessMs.P99)
		}
		if s.Cost.Priced() {
			p.f("\n  cost: $%.3f per million requests (store $%.3f, Workers requests $%.3f%s); %s (a steady day at this run's rates)\n",
				s.Cost.USDPerMillionRequests, s.Cost.StoreUSDPerMillionRequests, s.Cost.WorkersUSDPerMillionRequests,
				referenceNote(s.Cost), FreePlanSentence(s.Cost))
		} else {
			p.f("\n  cost: not priced: %s\n", s.Cost.NotPriced)
		}
	} else {
		p.f("  %s: not observed (the store is out of sight of this run), so no store work or cost\n", storeLabel(s.Limiter.Store))
	}
}

// live prints a live run's rates, latency and status codes; nothing for
// a model run (lv nil).
func (p *printer) live(lv *Live) {
	if lv == nil {
		return
	}
	p.f("  live: offered %.1f req/s, achieved %.1f req/s over %.1f s", lv.OfferedRate, lv.AchievedRate, lv.DurationSecs)
	switch {
	case lv.WarmupRequests > 0 && lv.SoakSeconds > 0:
		p.f(", after %s warm-up requests that opened its connections and warmed its target up for %gs (not counted)", Thousands(lv.WarmupRequests), lv.SoakSeconds)
	case lv.WarmupRequests > 0:
		p.f(", after %s warm-up requests that opened its connections (not counted)", Thousands(lv.WarmupRequests))
	}
	p.f("\n")
	p.f("  latency p50 %.2f ms, p95 %.2f ms, p99 %.2f ms, max %.2f ms (the attacker's clock; see latency_note)\n",
		lv.LatencyMs.P50, lv.LatencyMs.P95, lv.LatencyMs.P99, lv.LatencyMs.Max)
	codes := make([]string, 0, len(lv.Status))
	for c := range lv.Status {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	for i, c := range codes {
		codes[i] = fmt.Sprintf("%s x%d", c, lv.Status[c])
	}
	p.f("  status %s\n", strings.Join(codes, ", "))
	if lv.Ambiguous > 0 {
		p.f("  %d responses were too close to a window boundary to attribute and were left out\n", lv.Ambiguous)
	}
}

// worstPoint is the index of the sweep point whose worst key-window let
// the most through as a multiple of the limit (the first of equals), with
// an answer; -1 when none has one.
func worstPoint(points []Point) int {
	best, at := -1.0, -1
	for i, pt := range points {
		if ps := pt.Summary; ps != nil && ps.Answer != nil && ps.Overshoot.Ratio.Max > best {
			best, at = ps.Overshoot.Ratio.Max, i
		}
	}
	return at
}

// answer prints who is behind the worst figure and the notes on it; where
// says at which sweep point, for a sweep.
func (p *printer) answer(a *Answer, where string) {
	if a == nil {
		return
	}
	p.f("  worst key-window%s: %s\n", where, a.Who)
	for _, n := range a.Notes {
		p.f("%s\n", Wrap("  note:  ", n+".", TextWidth+20))
	}
}

// mustMetric is the metric called name, which Metrics holds.
func mustMetric(name string) Metric {
	m, err := LookupMetric(name)
	if err != nil {
		panic(err)
	}
	return m
}

// Thousands writes n with a comma between each group of three digits, as
// people read counts: 8,273,044.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// storeLabel names the store's line of the terminal summary: "kv" for
// Workers KV and its stand-ins (the built-in eventual store, the
// Cloudflare API), else the store's own name, so that a Durable Object's
// work does not read as KV's.
func storeLabel(store string) string {
	switch store {
	case "", "kv", "eventual", "cloudflare":
		return "kv"
	case "url":
		return "store" // a target's own, unnamed
	}
	return "store " + store
}

// referenceNote marks the memory store's cost as the reference it is.
func referenceNote(c Cost) string {
	if c.Reference {
		return "; memory is a reference, priced as the KV binding it stands for"
	}
	return ""
}
