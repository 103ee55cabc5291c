package attackcmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/shard"
)

// TestMergeBadInputWritesNothing: a merge refused for its shards' limit or
// window, or for truncated results, exits 2 and leaves no report folder
// (no empty results.bin beside nothing).
func TestMergeBadInputWritesNothing(t *testing.T) {
	url, _ := serve(t, parse(t, sequentialYAML), kv.NewMemory(kv.MemoryOptions{}))
	file := cliScenario(t, strings.Replace(sequentialYAML, "1600ms", "300ms", 1))
	shards := t.TempDir()
	start := time.Now().Add(300 * time.Millisecond).UTC().Format(time.RFC3339Nano)
	if code, _, stderr := runMain(t, Env{}, "-url", url, "-shard", "0/1", "-start-at", start, "-run-id", "r", "-out", shards, file); code != 0 {
		t.Fatalf("shard: exit %d: %s", code, stderr)
	}
	jsonPath, binPath := filepath.Join(shards, shard.Base(0, 1)+".json"), filepath.Join(shards, shard.Base(0, 1)+".bin")
	good, _ := os.ReadFile(jsonPath)
	results, _ := os.ReadFile(binPath)
	edit := func(field string, v any) func() {
		return func() {
			var m map[string]any
			json.Unmarshal(good, &m)
			m[field] = v
			b, _ := json.Marshal(m)
			os.WriteFile(jsonPath, b, 0o644)
		}
	}
	for _, c := range []struct {
		name   string
		break_ func()
		want   string
	}{
		{"limit 0", edit("limit", 0), "limit"},
		{"window 0", edit("window_ms", 0), "window"},
		{"truncated results", func() { os.WriteFile(binPath, results[:len(results)*2/3], 0o644) }, "results"},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.WriteFile(jsonPath, good, 0o644)
			os.WriteFile(binPath, results, 0o644)
			c.break_()
			out := t.TempDir()
			code, stdout, stderr := runMain(t, Env{}, "-merge", "-out", out, shards)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q: want 2 and a message about the %s", code, stderr, c.want)
			}
			if got := files(t, out); len(got) > 0 || stdout != "" {
				t.Errorf("wrote %v, stdout %q", got, stdout)
			}
			if entries, _ := os.ReadDir(out); len(entries) > 0 {
				t.Errorf("left %v under -out", entries)
			}
		})
	}
	// The shards as they were still merge.
	os.WriteFile(jsonPath, good, 0o644)
	os.WriteFile(binPath, results, 0o644)
	if code, _, stderr := runMain(t, Env{}, "-merge", "-out", t.TempDir(), shards); code != 0 {
		t.Errorf("merge of the untouched shard: exit %d: %s", code, stderr)
	}
}
