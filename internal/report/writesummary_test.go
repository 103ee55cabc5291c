package report

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// TestWriteSummary: summary.json alone is written whole and reads back as
// the summary (non-finite numbers, which JSON cannot hold, as 0); it never replaces an existing
// one, and a folder that is not there is an error naming the file.
func TestWriteSummary(t *testing.T) {
	s := &measure.Summary{Schema: measure.SchemaVersion, Mode: "attack", Scenario: measure.ScenarioRef{Name: "seq"},
		Totals: measure.Totals{Requests: 7, Allowed: 5, Denied: 2}, Overshoot: measure.Overshoot{MaxAllowed: 5}}
	nan := *s
	nan.Cost.USDPerMillionRequests = math.Inf(1)
	tests := []struct {
		name    string
		s       *measure.Summary
		setup   func(dir string) string // returns the folder to write in
		wantErr string                  // "" for success
		want    string                  // in the file written
	}{
		{"empty folder", s, func(dir string) string { return dir }, "", `"allowed": 5`},
		{"non-finite numbers", &nan, func(dir string) string { return dir }, "", `"usd_per_million_requests": 0`},
		{"summary exists", s, func(dir string) string {
			os.WriteFile(filepath.Join(dir, SummaryFile), []byte("earlier\n"), 0o644)
			return dir
		}, "already exists", "earlier"},
		{"no folder", s, func(dir string) string { return filepath.Join(dir, "missing") }, filepath.Join("missing", SummaryFile), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.setup(t.TempDir())
			err := WriteSummary(dir, tc.s)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("error %v, want one mentioning %q", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(filepath.Join(dir, SummaryFile))
			if !strings.Contains(string(b), tc.want) {
				t.Errorf("summary.json %q does not hold %q", b, tc.want)
			}
			if tc.wantErr == "" {
				var back measure.Summary
				if err := json.Unmarshal(b, &back); err != nil || back.Totals != s.Totals {
					t.Errorf("summary.json reads back as %+v (%v), want totals %+v", back.Totals, err, s.Totals)
				}
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if e.Name() != SummaryFile {
					t.Errorf("left %s beside summary.json", e.Name())
				}
			}
		})
	}
}
