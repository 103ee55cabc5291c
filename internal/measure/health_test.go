package measure

import (
	"bytes"
	"strings"
	"testing"
)

// TestHealth: a run where most requests got no decision, or whose store
// failed most reads, says so in its warnings and in the terminal's
// headline; a healthy run, and one with only some failures, says nothing.
func TestHealth(t *testing.T) {
	tests := []struct {
		name   string
		totals Totals
		kv     KVWork
		want   []string // one substring per warning, in order
	}{
		{"healthy", Totals{Requests: 100, Allowed: 10, Denied: 90}, KVWork{Observed: true, Reads: 100}, nil},
		{"all errors", Totals{Requests: 40, Errors: 40}, KVWork{}, []string{"errors dominate: 40 of 40 requests (100%)"}},
		{"half errors", Totals{Requests: 40, Allowed: 20, Errors: 20}, KVWork{}, nil},
		{"most errors", Totals{Requests: 40, Allowed: 19, Errors: 21}, KVWork{}, []string{"only the 19 that did"}},
		{"store down", Totals{Requests: 10, Allowed: 10, FailOpen: 9}, KVWork{Observed: true, Reads: 10, ReadErrors: 9},
			[]string{"the store was down for most of the run: 9 of 10 reads (90%) failed, so most decisions were the fail-open error policy's"}},
		{"store down, out of sight", Totals{Requests: 10, Allowed: 10}, KVWork{Reads: 10, ReadErrors: 9}, nil},
		{"some read errors", Totals{Requests: 10, Allowed: 10}, KVWork{Observed: true, Reads: 10, ReadErrors: 5}, nil},
		{"both", Totals{Requests: 10, Allowed: 1, Errors: 9}, KVWork{Observed: true, Reads: 1, ReadErrors: 1},
			[]string{"errors dominate", "the store was down"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Summary{Mode: "attack", Complete: true, Totals: tc.totals, KV: tc.kv,
				Limiter: LimiterRef{Limit: 5, Window: "1m", ErrorPolicy: "fail-open"}}
			got := s.Health()
			if len(got) != len(tc.want) {
				t.Fatalf("warnings %q, want %d", got, len(tc.want))
			}
			s.Warnings = got
			var buf bytes.Buffer
			if err := WriteText(&buf, &s); err != nil {
				t.Fatal(err)
			}
			text := buf.String()
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("warning %d %q does not say %q", i, got[i], w)
				}
				// In the terminal, before the numbers they qualify.
				at := strings.Index(text, "WARNING: "+got[i])
				if at < 0 || (strings.Contains(text, "let through") && at > strings.Index(text, "let through")) {
					t.Errorf("terminal text does not lead with warning %q:\n%s", got[i], text)
				}
			}
		})
	}
}

// TestSummarizeWarns: Summarize fills in the warnings, so that both
// drivers' summaries carry them.
func TestSummarizeWarns(t *testing.T) {
	s := Summarize(Summary{Limiter: LimiterRef{ErrorPolicy: "fail-open"}}, 5,
		[]Trial{{Totals: Totals{Requests: 3, Errors: 3}}})
	if len(s.Warnings) != 1 || !strings.HasPrefix(s.Warnings[0], "errors dominate") {
		t.Errorf("warnings %q, want errors dominate", s.Warnings)
	}
}
