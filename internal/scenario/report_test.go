package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportHeadline(t *testing.T) {
	tests := []struct {
		set     string
		want    string
		errText string
	}{
		{"", "ratio.max", ""},
		{"report.headline=interval.max", "interval.max", ""},
		{"report.headline=false_denials.rate", "false_denials.rate", ""},
		{"report.headline=ratio.p90", "", `report.headline: unknown metric "ratio.p90": use one of ratio.p50`},
		{"report.headline=overshoot", "", "interval.max"},
	}
	for _, tt := range tests {
		t.Run(tt.set, func(t *testing.T) {
			var sets []string
			if tt.set != "" {
				sets = []string{tt.set}
			}
			s, err := LoadWithOverrides("../../scenarios/default.yaml", sets)
			if tt.errText != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("err %v, want one containing %q", err, tt.errText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Report.Headline != tt.want {
				t.Errorf("report.headline = %q, want %q", s.Report.Headline, tt.want)
			}
		})
	}
}

// TestLibraryNamesHeadline checks that every library scenario names the
// metric its question is about, rather than leave it to the default.
func TestLibraryNamesHeadline(t *testing.T) {
	files, _ := filepath.Glob("../../scenarios/*.yaml")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "\nreport:") {
			t.Errorf("%s: no report: {headline: ...} section", f)
		}
	}
}
