package model

import (
	"bytes"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/scenario"
	"github.com/overshoot-dev/overshoot/scenarios"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json from the current model")

// TestScenarioLibrary runs every point of every scenario in the library
// (under the race detector, the first and last of each sweep) for one
// trial: each must run without error and send requests.
func TestScenarioLibrary(t *testing.T) {
	t.Parallel()
	files, err := fs.Glob(scenarios.FS, "*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios embedded: %v", err)
	}
	for _, f := range files {
		data, _ := scenarios.FS.ReadFile(f)
		sc, err := scenario.Parse("scenarios/"+f, data)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		points, err := sc.Expand()
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if raceEnabled && len(points) > 2 {
			points = []scenario.Point{points[0], points[len(points)-1]}
		}
		for _, p := range points {
			s, err := Run(planOf(t, p.Scenario), Options{Seed: sc.Seed, Trials: 1})
			if err != nil {
				t.Errorf("%s %s: %v", f, p.Label(), err)
				continue
			}
			if s.Totals.Requests == 0 {
				t.Errorf("%s %s: no requests", f, p.Label())
			}
		}
	}
}

// TestGoldenDefault compares the summary of scenarios/default.yaml at its
// own seed, over its first 20 trials (all 200 take half a minute under the
// race detector), with testdata/default.golden.json; go test -run Golden -update
// rewrites it after an intended change to the model or the scenario.
func TestGoldenDefault(t *testing.T) {
	sc, err := scenario.Default()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Run(planOf(t, sc), Options{Seed: sc.Seed, Trials: 20})
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "default.golden.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run Golden -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("summary of default.yaml differs from %s; if the change is intended, run go test ./internal/model -run Golden -update and review the diff", path)
	}
}
