package measure

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// worstKeyWords says who a worst key-window was and what it got: "a key of
// burst: 500 sent in 1s, all 500 let through, 8.33x the limit". A summary
// written before key-windows kept their offered load says the allowed
// count alone.
func worstKeyWords(w KeyTimeline, limit int64) string {
	who := "key " + w.Key
	if w.Population != "" {
		who = "a key of " + w.Population
	}
	ratio := ""
	if limit > 0 {
		ratio = fmt.Sprintf(", %.2fx the limit", float64(w.Allowed)/float64(limit))
	}
	if w.Offered <= 0 {
		return fmt.Sprintf("%s: %s let through%s", who, Thousands(w.Allowed), ratio)
	}
	got := Thousands(w.Allowed) + " let through"
	if w.Allowed == w.Offered {
		got = "all " + Thousands(w.Allowed) + " let through"
	}
	return fmt.Sprintf("%s: %s sent in %s, %s%s", who, Thousands(w.Offered), spanWords(w.SentOverSecs), got, ratio)
}

// spanWords is how long a key-window's requests took, rounded for a reader:
// "under 1ms", "998ms", "1.2s", "59s", "24 min", "23.6 h".
func spanWords(secs float64) string {
	d := time.Duration(secs * float64(time.Second))
	switch {
	case d < time.Millisecond:
		return "under 1ms"
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < 120*time.Second:
		return fmt.Sprintf("%.0fs", d.Seconds())
	case d < 2*time.Hour:
		return fmt.Sprintf("%.0f min", d.Minutes())
	}
	return fmt.Sprintf("%.1f h", d.Hours())
}

// Capped reports whether the worst key-window's ratio is capped by the
// offered load: it was let through everything it sent, so the limiter did
// not hold it back at all and more traffic would have got more.
func (s *Summary) Capped() bool {
	if len(s.WorstKeys) == 0 {
		return false
	}
	w := s.WorstKeys[0]
	return w.Offered > 0 && w.Allowed == w.Offered && w.Allowed > s.Limiter.Limit
}

// DeniedNothing reports whether the limiter denied no request of a run
// that had some.
func (s *Summary) DeniedNothing() bool {
	return s.Totals.Requests > 0 && s.Totals.Allowed > 0 && s.Totals.Denied == 0
}

// Answer says who is behind a run's worst figure and why it reads as it
// does, in the words the terminal, the report and summary.json share.
type Answer struct {
	// Who names the worst key-window's population and key, with its
	// offered load and what got through: "one key of burst: 500 sent in
	// 1s, all 500 let through, 8.33x the limit".
	Who        string `json:"who"`
	Population string `json:"population,omitempty"`
	Key        string `json:"key,omitempty"`
	Offered    int64  `json:"offered"`
	Allowed    int64  `json:"allowed"`
	// DeniedNothing is set when the limiter denied no request.
	DeniedNothing bool `json:"denied_nothing"`
	// Capped is set when the worst key-window got all it sent: its ratio
	// is the offered load's, not a measure of the limiter.
	Capped bool `json:"capped"`
	// Notes say those plainly, one sentence each.
	Notes []string `json:"notes,omitempty"`
}

// AnswerOf is s's answer; nil for a run with no key-window.
func AnswerOf(s *Summary) *Answer {
	if len(s.WorstKeys) == 0 || s.Overshoot.KeyWindows == 0 {
		return nil
	}
	w := s.WorstKeys[0]
	a := &Answer{Population: w.Population, Key: w.Key, Offered: w.Offered, Allowed: w.Allowed,
		DeniedNothing: s.DeniedNothing(), Capped: s.Capped()}
	a.Who = worstKeyWords(w, s.Limiter.Limit)
	if a.Population != "" && countKeysOf(s, w) == 1 {
		a.Who = "one" + strings.TrimPrefix(a.Who, "a")
	}
	lim := s.Limiter.Limit
	if a.DeniedNothing {
		a.Notes = append(a.Notes, fmt.Sprintf("the limiter denied nothing: all %s requests were let through", Thousands(s.Totals.Allowed)))
	}
	if a.Capped {
		a.Notes = append(a.Notes, fmt.Sprintf("%.2fx is capped by the offered load: that key-window got all %s it sent, so more traffic would have got more through",
			float64(w.Allowed)/float64(lim), Thousands(w.Offered)))
	}
	if r := s.Overshoot.Reference; r.Denied > 0 {
		a.Notes = append(a.Notes, fmt.Sprintf("of the %s requests an exact limiter (no lag) would have denied, %s (%s) got through", Thousands(r.Denied), Thousands(r.LetThrough), pctWords(r.LetThroughShare)))
	}
	return a
}

// countKeysOf counts the worst key-windows of w's population (up to the
// few kept): one means the worst is the population's only key there.
func countKeysOf(s *Summary, w KeyTimeline) int {
	for _, p := range s.Populations {
		if p.Name == w.Population && p.Overshoot != nil && p.Overshoot.KeyWindows == 1 {
			return 1
		}
	}
	return 0
}

// pctWords is a share as a percentage that never rounds a part to all or
// none: "100%", "99.9%", "0.1%".
func pctWords(x float64) string {
	switch {
	case x >= 1:
		return "100%"
	case x <= 0:
		return "0%"
	case x > 0.999:
		return ">99.9%"
	case x < 0.001:
		return "<0.1%"
	}
	return strconv.FormatFloat(100*x, 'f', 1, 64) + "%"
}

// SensitivityNote is "saturated" when the limiter denied nothing (every
// request got through, whatever the assumption), "capped" when the worst
// key-window got all it sent (the ratio is the offered load's), or "".
func SensitivityNote(s *Summary) string {
	switch {
	case s.DeniedNothing():
		return "saturated"
	case s.Capped():
		return "capped"
	}
	return ""
}

// SensitivityNoteWords is a sensitivity row's note as the terminal and the
// report print it after the value: " (saturated: the limiter denied
// nothing)", " (capped by the offered load)", or "".
func SensitivityNoteWords(note string) string {
	switch note {
	case "saturated":
		return " (saturated: the limiter denied nothing)"
	case "capped":
		return " (capped by the offered load)"
	}
	return ""
}
