package simulatecmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/scenario"
	"github.com/overshoot-dev/overshoot/internal/shard"
)

// A run is sharded by (point, trial) pairs (shard.Picks); the shard files
// and their merge are internal/shard's.

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
	runs, err := simulatePoints(ctx, c, sc, points, prog, shard.Picks(*c.shard, trials))
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
	f, merr := shard.NewSimulateFile(c.shard.Index, c.shard.Count, toShardPoints(runs))
	f.Sensitivity, f.Hash, f.Seed, f.TrialsPerPoint = sens.Sensitivity, sc.Hash(), c.seedOf(sc), trials
	f.Scenario, f.Sweep, f.Complete = ref(sc), isSweep(points), err == nil
	var b []byte
	if merr == nil {
		b, merr = json.Marshal(&f)
	}
	if merr != nil {
		fmt.Fprintln(stderr, "simulate: -shard:", merr)
		return ExitFailure
	}
	path := filepath.Join(c.out, shard.SimulateFileName(c.shard.Index, c.shard.Count))
	werr := os.MkdirAll(c.out, 0o755)
	if werr == nil {
		werr = shard.Write(path, b)
	}
	if werr != nil {
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

// readShards reads the shard files named by args: files, or folders whose
// shard-*-of-*.json files are read (shard.ReadSimulate).
func readShards(args []string) ([]shard.SimulateFile, []string, error) {
	files, paths, err := shard.ReadSimulate(args)
	if err != nil {
		return nil, nil, fmt.Errorf("-merge: %v", err)
	}
	return files, paths, nil
}

// mergeShards checks that the shards are all of one run, each exactly once,
// complete, with every trial of every point exactly once, and returns the
// run's summary (shard.MergeSimulate).
func mergeShards(files []shard.SimulateFile, paths []string) (measure.Summary, error) {
	points, sens, err := shard.MergeSimulate(files, paths)
	if err != nil {
		return measure.Summary{}, err
	}
	runs := make([]pointRun, len(points))
	for i, p := range points {
		runs[i] = pointRun{Base: p.Base, Limit: p.Limit, Params: p.Params}
		for _, t := range p.Trials {
			runs[i].Trials = append(runs[i].Trials, shardTrial(t))
		}
	}
	s := assemble(files[0].Scenario, files[0].Sweep, runs)
	s.Sensitivity = sens
	return s, nil
}

// toShardPoints are a shard's points as its file holds them.
func toShardPoints(runs []pointRun) []shard.Point {
	out := make([]shard.Point, len(runs))
	for i, r := range runs {
		out[i] = shard.Point{Base: r.Base, Limit: r.Limit, Params: r.Params}
		for _, t := range r.Trials {
			out[i].Trials = append(out[i].Trials, shard.Trial(t))
		}
	}
	return out
}
