package simulatecmd

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/shard"
)

// TestFileReadsAreBounded: every file simulate reads back (a summary for
// -compare, -calibrate or -diff, a shard file for -merge) is read up to a
// bound, so /dev/zero is bad input (exit 2, naming the file, writing
// nothing), not a read until memory runs out.
func TestFileReadsAreBounded(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip(err)
	}
	// Small bounds, so that the test reads megabytes, not the real bounds.
	defer func(s, m int64) { maxSummaryBytes, shard.MaxFileSize = s, m }(maxSummaryBytes, shard.MaxFileSize)
	maxSummaryBytes, shard.MaxFileSize = 1<<20, 1<<20
	tests := []struct {
		name string
		args []string
	}{
		{"compare", []string{"-compare", "/dev/zero"}},
		{"calibrate", []string{"-calibrate", "/dev/zero"}},
		{"diff", []string{"-diff", "/dev/zero", "/dev/zero"}},
		{"merge", []string{"-merge", "/dev/zero"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "reports")
			code, stdout, stderr := runMain(t, append([]string{"-out", out}, tc.args...)...)
			if code != ExitBadInput || !strings.Contains(stderr, "/dev/zero is over 1 MiB") || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q: want %d and the file named as too large", code, stdout, stderr, ExitBadInput)
			}
			if got := entries(t, out); len(got) != 0 {
				t.Errorf("written: %v", got)
			}
		})
	}
}

// editedShard runs shard 0 of 1 of a short default run into a folder,
// applies edit to its file's JSON and returns the file's path.
func editedShard(t *testing.T, edit func(f map[string]any)) string {
	t.Helper()
	dir := t.TempDir()
	if code, _, stderr := runMain(t, "-shard", "0/1", "-trials", "2", "-seed", "3", "-sensitivity=false", "-out", dir); code != ExitOK {
		t.Fatalf("shard: exit %d: %s", code, stderr)
	}
	path := filepath.Join(dir, shard.SimulateFileName(0, 1))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	edit(f)
	if b, err = json.Marshal(f); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// trial0 returns the first trial of the first point of a shard file's JSON.
func trial0(f map[string]any) map[string]any {
	pt := f["points"].([]any)[0].(map[string]any)
	return pt["trials"].([]any)[0].(map[string]any)["trial"].(map[string]any)
}

// TestMergeEditedShards: a shard file whose fields were edited out of
// their range, or out of step with each other, is bad input naming the
// file and the field; nothing panics, nothing huge is allocated, nothing
// is written.
func TestMergeEditedShards(t *testing.T) {
	totals := func(f map[string]any) map[string]any { return trial0(f)["Totals"].(map[string]any) }
	tests := []struct {
		name string
		edit func(map[string]any)
		want string
	}{
		{"negative shards", func(f map[string]any) { f["shards"] = -1 }, "shards -1 is out of range"},
		{"huge shards", func(f map[string]any) { f["shards"] = 2000000000 }, "shards 2000000000 is out of range"},
		{"no points", func(f map[string]any) { f["points"] = []any{} }, "points is empty"},
		{"no trials per point", func(f map[string]any) { f["trials_per_point"] = 0 }, "trials_per_point 0"},
		{"trial index", func(f map[string]any) {
			f["points"].([]any)[0].(map[string]any)["trials"].([]any)[0].(map[string]any)["index"] = 7
		}, "trials[0].index 7"},
		{"allowed over requests", func(f map[string]any) {
			totals(f)["allowed"] = totals(f)["requests"].(float64) + 1
		}, "not requests"},
		{"negative requests", func(f map[string]any) { totals(f)["requests"] = -5 }, "Totals.requests -5 is out of range"},
		{"wrap-around", func(f map[string]any) { totals(f)["denied"] = 9223372036854775000 }, "Totals.denied 9223372036854775000 is out of range"},
		{"populations", func(f map[string]any) {
			p := trial0(f)["Populations"].([]any)[0].(map[string]any)
			p["false_denials"] = p["denied"].(float64) + 1
		}, "false_denials"},
		{"kv", func(f map[string]any) { trial0(f)["KV"].(map[string]any)["ReadErrors"] = 1e12 }, "KV.ReadErrors"},
		{"visibility buckets", func(f map[string]any) {
			kv := trial0(f)["KV"].(map[string]any)
			kv["VisReads"], kv["VisFresh"] = make([]any, 25), make([]any, 25)
		}, "KV.VisReads and VisFresh hold 25 and 25 buckets"},
		{"latency", func(f map[string]any) { trial0(f)["Latency"].(map[string]any)["N"] = 3 }, "Latency"},
		{"hist", func(f map[string]any) { trial0(f)["Hist"] = map[string]any{"1099511627776": 1} }, "Hist[1099511627776] key (a key-window's allowed)"},
		{"limit", func(f map[string]any) { f["points"].([]any)[0].(map[string]any)["limit"] = 0 }, "points[0].limit 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := editedShard(t, tc.edit)
			out := filepath.Join(t.TempDir(), "reports")
			code, stdout, stderr := runMain(t, "-merge", "-out", out, path)
			if code != ExitBadInput || !strings.Contains(stderr, path) || !strings.Contains(stderr, tc.want) || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q: want %d naming %s and %q", code, stdout, stderr, ExitBadInput, path, tc.want)
			}
			if got := entries(t, out); len(got) != 0 {
				t.Errorf("written: %v", got)
			}
		})
	}
	// The file as written merges.
	path := editedShard(t, func(map[string]any) {})
	if code, _, stderr := runMain(t, "-merge", "-no-report", path); code != ExitOK {
		t.Errorf("the unedited shard: exit %d: %s", code, stderr)
	}
}

// TestReadBackRefusesRunsThatMeasuredNothing: a live run that counted no
// request (every response ambiguous: a target's policy with a 1 ms
// window), or whose counts or ratios are out of range, is bad input to
// -compare, -calibrate and -diff, naming the file and the field: before,
// -compare printed "relative error 0.0%" and -calibrate fitted it and
// wrote calibrated.yaml.
func TestReadBackRefusesRunsThatMeasuredNothing(t *testing.T) {
	dir := t.TempDir()
	scPath := filepath.Join(dir, "cmp.yaml")
	os.WriteFile(scPath, []byte(compareScenario), 0o644)
	tests := []struct {
		name string
		edit func(*measure.Summary)
		want string
	}{
		{"all ambiguous", func(m *measure.Summary) {
			m.Totals = measure.Totals{}
			m.Overshoot = measure.Overshoot{}
			m.Live.Ambiguous = 10000
		}, "measured nothing (totals.requests is 0: all 10000 responses were ambiguous"},
		{"no requests", func(m *measure.Summary) { m.Totals, m.Overshoot = measure.Totals{}, measure.Overshoot{} }, "measured nothing"},
		{"negative ratio", func(m *measure.Summary) { m.Overshoot.Ratio.Max = -1 }, "overshoot.ratio.max -1 is out of range"},
		{"negative requests", func(m *measure.Summary) { m.Totals.Requests = -3 }, "totals.requests -3 is negative"},
		{"allowed over requests", func(m *measure.Summary) { m.Totals.Allowed = 11 }, "allowed 11 or denied 0 is more than requests 10"},
	}
	for _, tc := range tests {
		path := writeMeasured(t, t.TempDir(), scPath, tc.edit)
		for _, mode := range [][]string{{"-compare", path}, {"-calibrate", path}, {"-diff", path, path}} {
			t.Run(tc.name+" "+mode[0], func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "reports")
				args := []string{"-out", out}
				if mode[0] != "-diff" { // diff runs no trial
					args = append(args, "-trials", "2")
				}
				code, stdout, stderr := runMain(t, append(args, mode...)...)
				if code != ExitBadInput || !strings.Contains(stderr, path) || !strings.Contains(stderr, tc.want) || stdout != "" {
					t.Errorf("exit %d, stdout %q, stderr %q: want %d naming %s and %q", code, stdout, stderr, ExitBadInput, path, tc.want)
				}
				if got := entries(t, out); len(got) != 0 {
					t.Errorf("written: %v", got)
				}
			})
		}
	}
}

// FuzzMergeShardFile: whatever a shard file holds, reading and merging it
// is an error or a summary, never a panic (edited counts, sizes, points).
func FuzzMergeShardFile(f *testing.F) {
	f.Add([]byte(`{"kind":"overshoot-simulate-shard","schema":1,"shard":0,"shards":1,"scenario_hash":"h","seed":1,"trials_per_point":1,"sweep":false,"complete":true,"points":[{"base":{},"limit":5,"trials":[{"index":0,"trial":{"Totals":{"requests":3,"allowed":2,"denied":1},"Hist":{"2":1},"Populations":[{"name":"a","requests":3,"allowed":2,"denied":1}]}}]}]}`))
	f.Add([]byte(`{"kind":"overshoot-simulate-shard","schema":1,"shard":0,"shards":-1,"points":[]}`))
	f.Add([]byte(`{"kind":"overshoot-simulate-shard","schema":1,"shard":0,"shards":1,"trials_per_point":1,"complete":true,"points":[{"limit":1,"trials":[{"index":0,"trial":{"KV":{"VisReads":[1,2],"VisFresh":[1]}}}]}]}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "shard-0-of-1.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		stuck := time.AfterFunc(20*time.Second, func() { panic(fmt.Sprintf("over 20 s on %q", b)) })
		defer stuck.Stop()
		files, paths, err := readShards([]string{path})
		if err != nil {
			return
		}
		if s, err := mergeShards(files, paths); err == nil {
			measure.WriteText(io.Discard, &s)
		}
	})
}

// FuzzReadSummary: a summary.json read back (-compare, -calibrate, -diff)
// with any edit is refused with an error or read, and what is read can be
// compared, diffed and printed without a panic.
func FuzzReadSummary(f *testing.F) {
	live, err := os.ReadFile(filepath.Join("testdata", "live-summary.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(live)
	f.Add([]byte(`{"schema":1,"mode":"attack","totals":{"requests":3,"allowed":2,"denied":1},"overshoot":{"key_windows":1,"ratio":{"n":1,"max":2}},"repeats":{"runs":[{"max_ratio":2}]}}`))
	f.Add([]byte(`{"schema":1,"totals":{"requests":1},"overshoot":{"key_windows":-1,"per_trial":{"max_ratios":[1e308,-1]}},"points":[{"summary":{"totals":{"requests":1}}}]}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "summary.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := readSummary(path)
		if err != nil {
			return
		}
		c := measure.Compare(s, s)
		writeComparison(io.Discard, &c)
		if cs, err := measure.Diff(s, s); err == nil {
			measure.WriteDiff(io.Discard, "a", "b", cs)
		}
		measure.WriteText(io.Discard, s)
	})
}
