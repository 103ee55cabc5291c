package simulatecmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/overshoot-dev/overshoot/internal/atomicfile"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/overshoot-dev/overshoot/internal/bounded"
	"github.com/overshoot-dev/overshoot/internal/cli"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// A run is sharded by (point, trial) pairs: pair j = point x trials + trial
// belongs to shard j mod N. Every trial draws from its own seeded source
// (model.TrialRand(seed, trial)), so a trial run in a shard is the trial
// the whole run would have run, and pooling the shards' trials in index
// order gives the unsharded summary byte for byte.

// shardKind names a shard file's format in its "kind" field.
const shardKind = "overshoot-simulate-shard"

// shardSchema is the shard file's format version.
const shardSchema = 1

// picks reports whether the shard runs trial t of point p, of a run whose
// points have trials trials each.
func picks(s plan.Shard, trials int) func(p, t int) bool {
	return func(p, t int) bool { return (p*trials+t)%s.Count == s.Index }
}

// shardFile is what a shard writes: its share of every point's trials,
// unpooled, and what the merge needs to check that shards belong together
// and to rebuild the run's summary exactly.
type shardFile struct {
	Kind   string `json:"kind"`
	Schema int    `json:"schema"`
	Shard  int    `json:"shard"`
	Shards int    `json:"shards"`
	// Hash is the scenario's hash with its overrides; Seed the run's seed;
	// TrialsPerPoint the trials every point has.
	Hash           string `json:"scenario_hash"`
	Seed           uint64 `json:"seed"`
	TrialsPerPoint int    `json:"trials_per_point"`
	// Scenario is the run's reference (a sweep's top level); Sweep says
	// whether the summary lists points.
	Scenario measure.ScenarioRef `json:"scenario"`
	Sweep    bool                `json:"sweep"`
	// Complete is false when the shard was interrupted: it cannot be
	// merged.
	Complete bool       `json:"complete"`
	Points   []pointRun `json:"points"`
	// Sensitivity is the run's headline under the model's assumptions
	// (see sensitivity), computed once, by shard 0.
	Sensitivity []measure.Sensitivity `json:"sensitivity,omitempty"`
}

// shardFileName is the file shard i of n writes under -out.
func shardFileName(i, n int) string { return fmt.Sprintf("shard-%d-of-%d.json", i, n) }

// runShard runs this process's shard and writes its file under c.out.
func runShard(ctx context.Context, c *config, sc *scenario.Scenario, points []scenario.Point, prog *progress, stdout, stderr io.Writer) int {
	trials := c.trials
	if trials == 0 {
		trials = max(sc.Trials, 1)
	}
	for _, p := range points {
		if n := max(p.Scenario.Trials, 1); c.trials == 0 && n != trials {
			fmt.Fprintf(stderr, "simulate: -shard: the sweep's points have different trial counts (%d and %d): give -trials\n", trials, n)
			return ExitBadInput
		}
	}
	runs, err := simulatePoints(ctx, c, sc, points, prog, picks(*c.shard, trials))
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "simulate:", err)
		return ExitFailure
	}
	var sens measure.Summary
	if err == nil && c.shard.Index == 0 && c.sensitivity && !isSweep(points) {
		sens = measure.Summary{Scenario: ref(sc), Seed: c.seedOf(sc), Trials: trials}
		err = sensitivity(ctx, c, sc, &sens, stderr)
		if err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintln(stderr, "simulate:", err)
			return ExitFailure
		}
	}
	f := shardFile{Kind: shardKind, Sensitivity: sens.Sensitivity, Schema: shardSchema, Shard: c.shard.Index, Shards: c.shard.Count,
		Hash: sc.Hash(), Seed: c.seedOf(sc), TrialsPerPoint: trials, Scenario: ref(sc), Sweep: isSweep(points),
		Complete: err == nil, Points: runs}
	b, merr := json.Marshal(&f)
	if merr != nil {
		fmt.Fprintln(stderr, "simulate: -shard:", merr)
		return ExitFailure
	}
	path := filepath.Join(c.out, shardFileName(c.shard.Index, c.shard.Count))
	if werr := writeAtomic(path, b); werr != nil {
		fmt.Fprintln(stderr, "simulate: -shard:", werr)
		return ExitFailure
	}
	n := 0
	for _, r := range runs {
		n += len(r.Trials)
	}
	fmt.Fprintf(stdout, "shard %d/%d: %d trials of %d points written to %s\n", c.shard.Index, c.shard.Count, n, len(runs), path)
	if err != nil {
		fmt.Fprintln(stderr, "simulate: interrupted: the shard file is marked incomplete and cannot be merged")
		return ExitFailure
	}
	return ExitOK
}

// writeAtomic writes b to path whole (atomicfile.Replace), making its
// folder. Unlike a report's files it replaces one that is there: a shard
// run again (a Job retries a failed pod with its index) writes its file
// anew, and so does a calibration into the same -out.
func writeAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Replace(path, b)
}

// maxShardFileSize bounds a shard file read by -merge.
var maxShardFileSize int64 = bounded.MaxShard

// readShards reads the shard files named by args: files, or folders whose
// shard-*-of-*.json files are read.
func readShards(args []string) ([]shardFile, []string, error) {
	paths, err := cli.ShardPaths(args)
	if err != nil {
		return nil, nil, fmt.Errorf("-merge: %v", err)
	}
	var out []shardFile
	for _, p := range paths {
		b, err := bounded.ReadFile(p, maxShardFileSize, "a simulate shard file")
		if err != nil {
			return nil, nil, fmt.Errorf("-merge: %v", err)
		}
		var f shardFile
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil || f.Kind != shardKind {
			return nil, nil, fmt.Errorf("-merge %s: not a simulate shard file (written by simulate -shard I/N)", p)
		}
		if f.Schema != shardSchema {
			return nil, nil, fmt.Errorf("-merge %s: shard schema %d, this simulate reads schema %d: merge with the simulate that wrote it", p, f.Schema, shardSchema)
		}
		if err := checkShardFile(&f); err != nil {
			return nil, nil, fmt.Errorf("-merge %s: %v: the file was edited or damaged; run its shard again", p, err)
		}
		out = append(out, f)
	}
	return out, paths, nil
}

// mergeShards checks that the shards are all of one run, each exactly once,
// complete, with every trial of every point exactly once, and returns the
// run's summary.
func mergeShards(files []shardFile, paths []string) (measure.Summary, error) {
	first := files[0]
	seen := make([]string, first.Shards)
	for i, f := range files {
		switch {
		case f.Shards != first.Shards:
			return measure.Summary{}, fmt.Errorf("-merge %s: shard of %d, but %s is a shard of %d: merge the shards of one run", paths[i], f.Shards, paths[0], first.Shards)
		case f.Hash != first.Hash || f.Seed != first.Seed || f.TrialsPerPoint != first.TrialsPerPoint || len(f.Points) != len(first.Points) || f.Sweep != first.Sweep:
			return measure.Summary{}, fmt.Errorf("-merge %s: another run than %s (scenario hash, seed, trials or points differ): merge the shards of one run", paths[i], paths[0])
		case f.Shard < 0 || f.Shard >= f.Shards:
			return measure.Summary{}, fmt.Errorf("-merge %s: shard %d is not one of 0..%d", paths[i], f.Shard, f.Shards-1)
		case seen[f.Shard] != "":
			return measure.Summary{}, fmt.Errorf("-merge %s: shard %d/%d is also in %s: give each shard once", paths[i], f.Shard, f.Shards, seen[f.Shard])
		case !f.Complete:
			return measure.Summary{}, fmt.Errorf("-merge %s: shard %d/%d was interrupted: run it again", paths[i], f.Shard, f.Shards)
		}
		seen[f.Shard] = paths[i]
	}
	var missing []string
	for i, p := range seen {
		if p == "" {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if len(missing) > 0 {
		return measure.Summary{}, fmt.Errorf("-merge: shards %s of %d are missing: run them (-shard I/%d) and merge all", strings.Join(missing, ", "), first.Shards, first.Shards)
	}
	runs := make([]pointRun, len(first.Points))
	for p := range runs {
		runs[p] = first.Points[p]
		runs[p].Trials = nil
		for _, f := range files {
			runs[p].Trials = append(runs[p].Trials, f.Points[p].Trials...)
		}
		slices.SortFunc(runs[p].Trials, func(a, b shardTrial) int { return a.Index - b.Index })
		for t, tr := range runs[p].Trials {
			if tr.Index != t {
				return measure.Summary{}, fmt.Errorf("-merge: point %d lacks trial %d or has it twice: the shards do not add up to one run", p, t)
			}
		}
		if len(runs[p].Trials) != first.TrialsPerPoint {
			return measure.Summary{}, fmt.Errorf("-merge: point %d has %d trials, want %d", p, len(runs[p].Trials), first.TrialsPerPoint)
		}
	}
	s := assemble(first.Scenario, first.Sweep, runs)
	for _, f := range files {
		if f.Shard == 0 {
			s.Sensitivity = f.Sensitivity
		}
	}
	return s, nil
}
