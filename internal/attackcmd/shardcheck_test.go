package attackcmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/cli"
	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/shard"
)

// copyDir copies the files of src into a new folder and returns it.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// editJSON applies edit to the JSON object in the file at path.
func editJSON(t *testing.T, path string, edit func(map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestMergeDamagedShards: an attack shard whose file was edited out of
// range, or whose results file was zero-filled, emptied or truncated (what
// a crashed pod leaves), is refused, naming the file and the field, with
// exit 2 and nothing written; before, these panicked, ran out of memory or
// merged into a complete-looking run missing requests.
func TestMergeDamagedShards(t *testing.T) {
	yaml := strings.Replace(shardYAML, "700ms", "300ms", 1)
	url, _ := serve(t, parse(t, yaml), kv.NewMemory(kv.MemoryOptions{}))
	file := cliScenario(t, yaml)
	shards := t.TempDir()
	start := time.Now().Add(300 * time.Millisecond).UTC().Format(time.RFC3339Nano)
	for _, sh := range []string{"0/2", "1/2"} {
		if code, _, stderr := runMain(t, Env{}, "-url", url, "-shard", sh, "-start-at", start, "-run-id", "d1", "-out", shards, file); code != cli.ExitOK {
			t.Fatalf("shard %s: exit %d: %s", sh, code, stderr)
		}
	}
	const json1, bin1 = "shard-1-of-2.json", "shard-1-of-2.bin"
	field := func(name string, v any) func(string) {
		return func(dir string) { editJSON(t, filepath.Join(dir, json1), func(m map[string]any) { m[name] = v }) }
	}
	results := func(edit func([]byte) []byte) func(string) {
		return func(dir string) {
			p := filepath.Join(dir, bin1)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(p, edit(b), 0o644)
		}
	}
	tests := []struct {
		name string
		edit func(dir string)
		want string
	}{
		{"zero-filled results", results(func(b []byte) []byte { return make([]byte, len(b)) }), bin1},
		{"empty results", results(func([]byte) []byte { return nil }), "results_count"},
		{"truncated results", results(func(b []byte) []byte { return b[:len(b)/2] }), bin1},
		{"negative shards", field("shards", -1), "shards -1 is out of range"},
		{"huge shards", field("shards", 2000000000), "shards 2000000000 is out of range"},
		{"start years before", func(dir string) {
			for _, name := range []string{"shard-0-of-2.json", json1} {
				editJSON(t, filepath.Join(dir, name), func(m map[string]any) { m["start_at"] = "2019-01-01T00:00:00Z" })
			}
		}, "start_at 2019-01-01"},
		{"negative late", field("late_ms", -5), "late_ms -5 is out of range"},
		{"clock offset overflow", field("clock_offset_ms", 9.2e18), "clock_offset_ms 9200000000000000000 is out of range"},
		{"negative clock offset", field("clock_offset_ms", -9.2e18), "clock_offset_ms -9200000000000000000 is out of range"},
		{"window", field("window_ms", 0), "window_ms 0 is out of range"},
		{"elapsed", field("elapsed_ms", -1), "elapsed_ms -1 is out of range"},
		{"offered", field("offered", 1e308), "offered 1e+308 is out of range"},
		{"no checksum", field("results_sha256", ""), "results_sha256"},
		{"count", field("results_count", 1), "results_count 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyDir(t, shards)
			tc.edit(dir)
			out := t.TempDir()
			code, stdout, stderr := runMain(t, Env{}, "-merge", "-out", out, dir)
			if code != cli.ExitBadInput || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, dir) || stdout != "" {
				t.Errorf("exit %d, stderr %q: want %d naming the file and %q", code, stderr, cli.ExitBadInput, tc.want)
			}
			if fs := files(t, out); len(fs) > 0 {
				t.Errorf("written: %v", fs)
			}
		})
	}
	t.Run("endless shard file", func(t *testing.T) {
		if _, err := os.Stat("/dev/zero"); err != nil {
			t.Skip(err)
		}
		// A small bound, so that the test reads a megabyte, not the real
		// bound.
		defer func(m int64) { shard.MaxFileSize = m }(shard.MaxFileSize)
		shard.MaxFileSize = 1 << 20
		out := t.TempDir()
		code, _, stderr := runMain(t, Env{}, "-merge", "-out", out, "/dev/zero")
		if code != cli.ExitBadInput || !strings.Contains(stderr, "/dev/zero is over 1 MiB") {
			t.Errorf("exit %d, stderr %q: want %d and the file named as too large", code, stderr, cli.ExitBadInput)
		}
	})
	// Undamaged, the shards merge.
	if code, _, stderr := runMain(t, Env{}, "-merge", "-out", t.TempDir(), copyDir(t, shards)); code != cli.ExitOK {
		t.Errorf("the undamaged shards: exit %d: %s", code, stderr)
	}
}
