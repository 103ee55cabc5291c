package simulatecmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCalibrateArgs: calibrate takes its summaries as arguments of their
// own or, the old form, joined by commas; a path with a comma in it that
// names a file is one summary; the last argument is the scenario when it
// is a .yaml or .yml after another, unless -scenario named one.
func TestCalibrateArgs(t *testing.T) {
	dir := t.TempDir()
	comma := filepath.Join(dir, "run,1.json")
	if err := os.WriteFile(comma, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		args      []string
		given     bool
		summaries []string
		rest      []string
	}{
		{"one", []string{"a.json"}, false, []string{"a.json"}, nil},
		{"several", []string{"a.json", "b.json"}, false, []string{"a.json", "b.json"}, nil},
		{"commas", []string{"a.json,b.json"}, false, []string{"a.json", "b.json"}, nil},
		{"commas with spaces", []string{"a.json, b.json,"}, false, []string{"a.json", "b.json"}, nil},
		{"commas and a scenario", []string{"a.json,b.json", "s.yaml"}, false, []string{"a.json", "b.json"}, []string{"s.yaml"}},
		{"several and a scenario", []string{"a.json", "b.json", "s.yml"}, false, []string{"a.json", "b.json"}, []string{"s.yml"}},
		{"a file with a comma", []string{comma, "b.json"}, false, []string{comma, "b.json"}, nil},
		{"a lone yaml is a summary", []string{"a.yaml"}, false, []string{"a.yaml"}, nil},
		{"-scenario given", []string{"a.json", "b.yaml"}, true, []string{"a.json", "b.yaml"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, rest := calibrateArgs(tc.args, tc.given)
			if !slices.Equal(s, tc.summaries) || !slices.Equal(rest, tc.rest) {
				t.Errorf("calibrateArgs(%q, %v) = %q, %q; want %q, %q", tc.args, tc.given, s, rest, tc.summaries, tc.rest)
			}
		})
	}
}

// TestCalibrateSeparateArgs: simulate calibrate fits runs given as
// arguments of their own, one of them in a folder with a comma in its
// name, as it fits them joined by commas.
func TestCalibrateSeparateArgs(t *testing.T) {
	dir := t.TempDir()
	scPath := filepath.Join(dir, "cal.yaml")
	os.WriteFile(scPath, []byte(calibrateScenario), 0o644)
	a := syntheticRun(t, dir, scPath, "server.rtt=20ms", "traffic.bot.closed_loop.concurrency=2")
	b := syntheticRun(t, dir, scPath, "server.rtt=20ms", "traffic.bot.closed_loop.concurrency=8")
	sub := filepath.Join(dir, "x,y")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(sub, filepath.Base(b))
	if err := os.Rename(b, moved); err != nil {
		t.Fatal(err)
	}
	flags := []string{"-fit", "server.rtt=1ms", "-trials", "5", "-seed", "7"}
	code, sep, stderr := runMain(t, append([]string{"calibrate", a, moved, "-out", filepath.Join(dir, "sep")}, flags...)...)
	if code != ExitOK {
		t.Fatalf("calibrate A B: exit %d: %s", code, stderr)
	}
	if !strings.Contains(sep, "calibrated on 2 live run(s)") || !strings.Contains(sep, moved+":") {
		t.Errorf("calibrate A B did not fit both runs:\n%s", sep)
	}
	os.Rename(moved, b)
	code, joined, stderr := runMain(t, append([]string{"calibrate", a + "," + b, "-out", filepath.Join(dir, "joined")}, flags...)...)
	if code != ExitOK {
		t.Fatalf("calibrate A,B: exit %d: %s", code, stderr)
	}
	if got, want := strings.ReplaceAll(sep, moved, b), strings.ReplaceAll(joined, filepath.Join(dir, "joined"), filepath.Join(dir, "sep")); got != want {
		t.Errorf("calibrate A B and calibrate A,B differ:\n%s\n---\n%s", got, want)
	}
}

// TestCalibrateMissingScenario: a run whose scenario file (a relative
// path, looked for beside the summary too) is not found is an error of
// -calibrate's, naming it, not of -compare's.
func TestCalibrateMissingScenario(t *testing.T) {
	dir := t.TempDir()
	scPath := filepath.Join(dir, "cal.yaml")
	os.WriteFile(scPath, []byte(calibrateScenario), 0o644)
	a := syntheticRun(t, dir, scPath, "server.rtt=20ms", "traffic.bot.closed_loop.concurrency=2")
	b, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["scenario"].(map[string]any)["file"] = "gone/cal.yaml"
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(a, b, 0o644)
	code, _, stderr := runMain(t, "calibrate", a, "-fit", "server.rtt=1ms", "-trials", "3", "-out", filepath.Join(dir, "out"))
	if code != ExitBadInput || !strings.Contains(stderr, "-calibrate "+a+": the live run's scenario") || strings.Contains(stderr, "-compare") {
		t.Errorf("exit %d, stderr %q: want exit %d and an error of -calibrate %s naming the missing scenario", code, stderr, ExitBadInput, a)
	}
}
