package shard

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOldFiles: shard files as the code before this package wrote them
// are still read: simulate's schema 1 (no checksum) reads and merges, and
// attack's schema 2 reads and passes the merge's checks; attack's schema
// 1 (before results_count) is refused with an error saying what to do.
func TestOldFiles(t *testing.T) {
	t.Run("simulate schema 1", func(t *testing.T) {
		files, paths, err := ReadSimulate([]string{"testdata/simulate-schema1"})
		if err != nil {
			t.Fatal(err)
		}
		points, _, err := MergeSimulate(files, paths)
		if err != nil {
			t.Fatal(err)
		}
		if len(points) != 1 || len(points[0].Trials) != 2 {
			t.Errorf("merged %d points, want 1 with 2 trials: %+v", len(points), points)
		}
	})
	t.Run("attack schema 2", func(t *testing.T) {
		files, dirs, err := ReadAttack([]string{"testdata/attack-schema2"})
		if err == nil {
			err = CheckAttackRun(files, dirs)
		}
		if err == nil {
			err = CheckResults(files, dirs)
		}
		if err != nil {
			t.Fatal(err)
		}
	})
	t.Run("attack schema 1", func(t *testing.T) {
		_, _, err := ReadAttack([]string{"testdata/attack-schema1"})
		want := "shard schema 1, this attack reads schema 2: merge with the attack that wrote it"
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "attack-schema1") {
			t.Errorf("error %v, want one naming the file and saying %q", err, want)
		}
	})
}

// TestSimulateChecksum: a simulate shard file of schema 2 records its
// trials' count and checksum; an edit the ranges cannot see (a trial's
// seconds, a point's base) is refused naming the file, the field and what
// to do, and so is a missing or miscounted checksum.
func TestSimulateChecksum(t *testing.T) {
	old, _, err := ReadSimulate([]string{"testdata/simulate-schema1"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewSimulateFile(0, 1, old[0].Points)
	if err != nil {
		t.Fatal(err)
	}
	f.Hash, f.Seed, f.TrialsPerPoint, f.Scenario, f.Complete = old[0].Hash, old[0].Seed, old[0].TrialsPerPoint, old[0].Scenario, true
	good, err := json.Marshal(&f)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(change func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		change(m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	trial0 := func(m map[string]any) map[string]any {
		pt := m["points"].([]any)[0].(map[string]any)
		return pt["trials"].([]any)[0].(map[string]any)["trial"].(map[string]any)
	}
	tests := []struct {
		name string
		file []byte
		want []string // each in the error; none: it reads
	}{
		{"as written", good, nil},
		{"seconds edited", edit(func(m map[string]any) {
			tt := trial0(m)["Totals"].(map[string]any)
			tt["seconds"] = tt["seconds"].(float64) + 1
		}), []string{"points holds 2 trials with checksum", "points_sha256", "the file was edited or damaged; run its shard again"}},
		{"base edited", edit(func(m map[string]any) {
			m["points"].([]any)[0].(map[string]any)["base"].(map[string]any)["seed"] = 99
		}), []string{"points_sha256"}},
		{"count edited", edit(func(m map[string]any) { m["trials_count"] = 3 }), []string{"trials_count 3"}},
		{"no checksum", edit(func(m map[string]any) { delete(m, "points_sha256") }), []string{`points_sha256 "" is not a SHA-256 in hex`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), SimulateFileName(0, 1))
			if err := os.WriteFile(path, tc.file, 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := ReadSimulate([]string{path})
			if tc.want == nil {
				if err != nil {
					t.Errorf("the file as written: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("read; want an error saying %q", tc.want)
			}
			for _, w := range append(tc.want, path) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestWriteReplacing: a shard file is replaced whole (a shard run again),
// with no temporary file left beside it.
func TestWriteReplacing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "shard-0-of-1.json")
	for _, want := range []string{"first\n", "second\n"} {
		if err := Write(path, []byte(want)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); string(b) != want {
			t.Errorf("file holds %q, want %q", b, want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("files %v, want the shard file alone", ents)
	}
	if err := Write(filepath.Join(dir, "missing", "x.json"), nil); err == nil {
		t.Error("writing into a missing folder: no error")
	}
}

// FuzzReadShardFile: whatever an attack shard file holds, reading and
// checking it is an error or shards that make a run, never a panic.
func FuzzReadShardFile(f *testing.F) {
	f.Add([]byte(`{"kind":"overshoot-attack-shard","schema":2,"shard":0,"shards":1,"run_id":"r","limit":5,"window_ms":1000,"start_at":"2026-12-01T10:00:00Z","results":"shard-0-of-1.bin","results_count":0,"results_sha256":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855","complete":true}`))
	f.Add([]byte(`{"kind":"overshoot-attack-shard","schema":2,"shard":3,"shards":-1,"clock_offset_ms":-9200000000000000000}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "shard-0-of-1.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		files, dirs, err := ReadAttack([]string{path})
		if err != nil {
			return
		}
		if CheckAttackRun(files, dirs) == nil {
			CheckResults(files, dirs)
		}
	})
}

// FuzzReadSimulate: whatever a simulate shard file holds, reading and
// merging it is an error or points, never a panic.
func FuzzReadSimulate(f *testing.F) {
	f.Add([]byte(`{"kind":"overshoot-simulate-shard","schema":1,"shard":0,"shards":1,"scenario_hash":"h","seed":1,"trials_per_point":1,"sweep":false,"complete":true,"points":[{"base":{},"limit":5,"trials":[{"index":0,"trial":{"Totals":{"requests":3,"allowed":2,"denied":1},"Hist":{"2":1}}}]}]}`))
	f.Add([]byte(`{"kind":"overshoot-simulate-shard","schema":2,"shard":0,"shards":1,"trials_per_point":1,"complete":true,"trials_count":1,"points_sha256":"00","points":[{"limit":1,"trials":[]}]}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "shard-0-of-1.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if files, paths, err := ReadSimulate([]string{path}); err == nil {
			MergeSimulate(files, paths)
		}
	})
}
