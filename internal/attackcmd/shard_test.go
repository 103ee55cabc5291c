package attackcmd

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/overshoot-dev/overshoot/internal/cli"
	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/target"
)

// shardYAML has a botnet on one shared key (clients spread over the
// shards, all counted under one caller), a bot with more requests in flight
// than there are shards (its slots spread), and an open loop (its hits
// spread).
const shardYAML = `
name: sharded
limiter: {name: t, limit: 5, window: 10s}
store: {kind: memory}
traffic:
  - name: botnet
    clients: 6
    identity: {token: shared, ip: none}
    closed_loop: {concurrency: 1}
  - name: bot
    closed_loop: {concurrency: 4}
  - name: users
    clients: 3
    legitimate: true
    open_loop: {rate: 20/s}
live: {duration: 700ms}
`

// keyWindowCounts counts the allowed responses per key-window in the
// results files, as the target labelled them.
func keyWindowCounts(t *testing.T, paths []string) (map[string]int64, int64) {
	t.Helper()
	counts := map[string]int64{}
	var n int64
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		dec := vegeta.NewDecoder(f)
		for {
			var r vegeta.Result
			if err := dec.Decode(&r); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			n++
			if r.Code >= 200 && r.Code < 300 {
				counts[r.Headers.Get(target.HeaderKey)+"@"+r.Headers.Get(target.HeaderWindow)]++
			}
		}
		f.Close()
	}
	return counts, n
}

// TestShardedAttack runs three shards of one attack at one built-in target,
// from one agreed instant, then merges them: the merged summary counts
// every response once, and its per-key-window counts are the target's
// (summed across shards before any maximum), so the botnet's shared key
// shows what all shards let through together.
func TestShardedAttack(t *testing.T) {
	url, _ := serve(t, parse(t, shardYAML), kv.NewMemory(kv.MemoryOptions{Latency: 5 * time.Millisecond}))
	file := cliScenario(t, shardYAML)
	shards := t.TempDir()
	start := time.Now().Add(800 * time.Millisecond).UTC().Format(time.RFC3339Nano)
	var wg sync.WaitGroup
	codes := make([]int, 3)
	errs := make([]string, 3)
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _, errs[i] = runMain(t, Env{}, "-url", url, "-shard", []string{"0/3", "1/3", "2/3"}[i],
				"-start-at", start, "-run-id", "t1", "-out", shards, file)
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != cli.ExitOK {
			t.Fatalf("shard %d: exit %d: %s", i, c, errs[i])
		}
	}
	out := t.TempDir()
	code, _, stderr := runMain(t, Env{}, "-merge", "-out", out, shards)
	if code != cli.ExitOK {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	s, dir := readSummary(t, out)
	paths, _ := filepath.Glob(filepath.Join(shards, "shard-*-of-3.bin"))
	counts, n := keyWindowCounts(t, paths)
	if len(paths) != 3 || n == 0 {
		t.Fatalf("%d results files, %d results", len(paths), n)
	}
	var most, allowed int64
	for _, c := range counts {
		most, allowed = max(most, c), allowed+c
	}
	if s.Totals.Requests+s.Totals.Errors != n || s.Totals.Allowed != allowed || s.Overshoot.MaxAllowed != most {
		t.Errorf("merged: %d responses, %d allowed, most %d in a key-window; the shards' results: %d, %d, most %d",
			s.Totals.Requests+s.Totals.Errors, s.Totals.Allowed, s.Overshoot.MaxAllowed, n, allowed, most)
	}
	// The botnet's key is one caller shared by every shard's clients: what
	// all shards let through together is more than any one shard saw, so
	// a merge that took the largest of the shards' maxima would be wrong.
	var shardMost int64
	for _, p := range paths {
		c, _ := keyWindowCounts(t, []string{p})
		for _, v := range c {
			shardMost = max(shardMost, v)
		}
	}
	if most <= shardMost {
		t.Errorf("most allowed in a key-window across shards %d, in one shard %d: want the shared key to add up", most, shardMost)
	}
	t.Logf("most allowed in one key-window: %d across 3 shards, at most %d in one shard", most, shardMost)
	if len(s.Populations) != 3 || s.Populations[0].Requests == 0 || s.Populations[2].Requests == 0 {
		t.Errorf("populations %+v", s.Populations)
	}
	merged, _ := keyWindowCounts(t, []string{filepath.Join(dir, ResultsFileName)})
	if len(merged) != len(counts) {
		t.Errorf("the merged results file has %d key-windows, the shards %d", len(merged), len(counts))
	}
	b, _ := os.ReadFile(filepath.Join(dir, ResultsFileName))
	if strings.Contains(string(b), "X-Overshoot-Internal") {
		t.Error("the merged results file keeps the runner's internal headers")
	}
}

// TestMergeBadShards: shards that do not make one run are refused, naming
// the file, and nothing is written.
func TestMergeBadShards(t *testing.T) {
	url, _ := serve(t, parse(t, sequentialYAML), kv.NewMemory(kv.MemoryOptions{}))
	file := cliScenario(t, strings.Replace(sequentialYAML, "1600ms", "200ms", 1))
	dir := t.TempDir()
	run := func(out, shard, id string, flags ...string) {
		start := time.Now().Add(300 * time.Millisecond).UTC().Format(time.RFC3339Nano)
		args := append([]string{"-url", url, "-shard", shard, "-start-at", start, "-run-id", id, "-out", out}, flags...)
		if code, _, stderr := runMain(t, Env{}, append(args, file)...); code != cli.ExitOK {
			t.Fatalf("shard %s: exit %d: %s", shard, code, stderr)
		}
	}
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	run(a, "0/2", "r1")
	run(b, "1/2", "r2")
	// Shard 1/2 of run r1 again, but counting 503s as denials too: its
	// results would be accounted differently from shard 0's.
	deny := filepath.Join(dir, "deny")
	run(deny, "1/2", "r1", "-deny-status", "429,503")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing shard", []string{a}, "shard 1/2 of run r1 is missing"},
		{"another run", []string{a, b}, "another run than"},
		{"another -deny-status", []string{a, deny}, "counted -deny-status 429,503 as denials, shard 0 429"},
		{"twice", []string{filepath.Join(a, "shard-0-of-2.json"), filepath.Join(a, "shard-0-of-2.json")}, "given twice"},
		{"not a shard", []string{file}, "is not an attack shard file"},
		{"no shards", []string{t.TempDir()}, "has no shard-*-of-*.json files"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			code, stdout, stderr := runMain(t, Env{}, append([]string{"-merge", "-out", out}, tc.args...)...)
			if code != cli.ExitBadInput || !strings.Contains(stderr, tc.want) || stdout != "" {
				t.Errorf("exit %d, stderr %q: want %d and %q", code, stderr, cli.ExitBadInput, tc.want)
			}
			if fs := files(t, out); len(fs) > 0 {
				t.Errorf("written: %v", fs)
			}
		})
	}
	for _, args := range [][]string{
		{"-shard", "0/2", file},
		{"-shard", "0/2", "-url", url, file},
		{"-shard", "0/2", "-url", url, "-start-at", "2020-01-01T00:00:00Z", "-run-id", "x", file},
		{"-run-id", "x", file},
	} {
		if code, _, stderr := runMain(t, Env{}, append([]string{"-out", t.TempDir()}, args...)...); code != cli.ExitBadInput {
			t.Errorf("%v: exit %d (%s), want %d", args, code, stderr, cli.ExitBadInput)
		}
	}
}
