package simulatecmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// TestCompareEmbeddedDefault compares a live run of the embedded default
// scenario from a folder outside a clone, where scenarios/default.yaml does
// not exist: the prediction runs the embedded default (its hash checked)
// instead of asking for the file.
func TestCompareEmbeddedDefault(t *testing.T) {
	sc, err := scenario.Default()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	m := measure.Summary{Schema: measure.SchemaVersion, Mode: "attack", Complete: true, Trials: 1,
		Scenario:  measure.ScenarioRef{Name: sc.Name, File: sc.Source(), Hash: sc.Hash(), BaseHash: sc.BaseHash()},
		Limiter:   measure.LimiterRef{Algorithm: "fixed-window", Limit: 5, Window: "10s", WindowSecs: 10, Store: "eventual", ErrorPolicy: "fail-open"},
		Totals:    measure.Totals{Requests: 40, Allowed: 10, Denied: 30},
		Overshoot: measure.Overshoot{KeyWindows: 1, Ratio: measure.Stats{N: 1, Max: 2, P50: 2}},
		Live:      &measure.Live{DurationSecs: 4}}
	b, _ := json.Marshal(m)
	path := filepath.Join(dir, "run", "summary.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if _, err := os.Stat(sc.Source()); err == nil {
		t.Fatalf("%s exists in %s", sc.Source(), dir)
	}
	code, stdout, stderr := runMain(t, "-json", "-no-report", "-trials", "2", "-compare", path)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got measure.Summary
	if err := json.Unmarshal([]byte(stdout), &got); err != nil || got.Scenario.Name != sc.Name {
		t.Errorf("stdout is not the default's prediction: %v %.200s", err, stdout)
	}
	if !strings.Contains(stderr, "embedded") {
		t.Errorf("stderr %q does not say the embedded default was used", stderr)
	}
}
