package shard

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
)

// A simulation is sharded by (point, trial) pairs: pair j = point x trials
// + trial belongs to shard j mod N (Picks). Every trial draws from its own
// seeded source (model.TrialRand(seed, trial)), so a trial run in a shard
// is the trial the whole run would have run, and pooling the shards' trials
// in index order gives the unsharded summary byte for byte.

// simulateFormat is simulate's shard files: schema 2 records the trials'
// count and checksum (trials_count, points_sha256); schema 1, without
// them, is still read.
var simulateFormat = format{tool: "simulate", what: "a simulate shard file", schema: 2, older: []int{1}}

// Picks reports whether shard s runs trial t of point p, of a run whose
// points have trials trials each.
func Picks(s plan.Shard, trials int) func(p, t int) bool {
	return func(p, t int) bool { return (p*trials+t)%s.Count == s.Index }
}

// SimulateFile is what a simulate shard writes: its share of every point's
// trials, unpooled, and what the merge needs to check that shards belong
// together and to rebuild the run's summary exactly.
type SimulateFile struct {
	Header
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
	Complete bool    `json:"complete"`
	Points   []Point `json:"points"`
	// TrialsCount and PointsSHA256 are how many trials Points holds and
	// the SHA-256 of Points as JSON (schema 2; absent in schema 1).
	TrialsCount  int64  `json:"trials_count,omitempty"`
	PointsSHA256 string `json:"points_sha256,omitempty"`
	// Sensitivity is the run's headline under the model's assumptions,
	// computed once, by shard 0.
	Sensitivity []measure.Sensitivity `json:"sensitivity,omitempty"`
}

// Point is one point of a sharded run: what its summary starts from
// (mode, scenario, seed, limiter), its limit and sweep parameters, and the
// shard's share of its trials, not yet pooled.
type Point struct {
	Base   measure.Summary `json:"base"`
	Limit  int64           `json:"limit"`
	Params []measure.Param `json:"params,omitempty"`
	Trials []Trial         `json:"trials"`
}

// Trial is one trial of a point with its index in the point's trials.
type Trial struct {
	Index int           `json:"index"`
	Trial measure.Trial `json:"trial"`
}

// NewSimulateFile is shard i of n's file for its points, at the current
// schema, with the trials' count and checksum.
func NewSimulateFile(i, n int, points []Point) (SimulateFile, error) {
	f := SimulateFile{Header: Header{Kind: simulateFormat.kind(), Schema: simulateFormat.schema, Shard: i, Shards: n}, Points: points}
	sum, err := f.sum()
	if err != nil {
		return SimulateFile{}, err
	}
	f.TrialsCount, f.PointsSHA256 = sum.Count, sum.SHA256
	return f, nil
}

// SimulateFileName is the file shard i of n writes under -out.
func SimulateFileName(i, n int) string { return Base(i, n) + ".json" }

// sum is what f's points hold: their trials and the SHA-256 of the points
// as JSON.
func (f *SimulateFile) sum() (Sum, error) {
	b, err := json.Marshal(f.Points)
	if err != nil {
		return Sum{}, err
	}
	var n int64
	for _, p := range f.Points {
		n += int64(len(p.Trials))
	}
	return SumOf(n, b), nil
}

// checkSum checks, from schema 2, that the points hold the trials and the
// checksum the file records.
func (f *SimulateFile) checkSum() error {
	if f.Schema < 2 {
		return nil // schema 1 records no checksum
	}
	if !sha256Pattern.MatchString(f.PointsSHA256) {
		return fmt.Errorf("points_sha256 %q is not a SHA-256 in hex", f.PointsSHA256)
	}
	got, err := f.sum()
	if err != nil {
		return err
	}
	return CheckSum("points", got, Sum{Count: f.TrialsCount, SHA256: f.PointsSHA256},
		Recorded{File: "the file", CountField: "trials_count", SHAField: "points_sha256", Items: "trials"})
}

// ReadSimulate reads simulate's shard files named by args (files, or
// folders of them) and returns them with their paths.
func ReadSimulate(args []string) ([]SimulateFile, []string, error) {
	return read[SimulateFile](args, simulateFormat)
}

// MergeSimulate checks that the shard files are all of one run, each
// exactly once, complete, with every trial of every point exactly once,
// and returns the run's points with all their trials in index order, and
// the sensitivity shard 0 computed.
func MergeSimulate(files []SimulateFile, paths []string) ([]Point, []measure.Sensitivity, error) {
	if err := simulateRun(files, paths); err != nil {
		return nil, nil, err
	}
	first := files[0]
	points := make([]Point, len(first.Points))
	for p := range points {
		points[p] = first.Points[p]
		points[p].Trials = nil
		for _, f := range files {
			points[p].Trials = append(points[p].Trials, f.Points[p].Trials...)
		}
		slices.SortFunc(points[p].Trials, func(a, b Trial) int { return a.Index - b.Index })
		for t, tr := range points[p].Trials {
			if tr.Index != t {
				return nil, nil, fmt.Errorf("-merge: point %d lacks trial %d or has it twice: the shards do not add up to one run", p, t)
			}
		}
		if len(points[p].Trials) != first.TrialsPerPoint {
			return nil, nil, fmt.Errorf("-merge: point %d has %d trials, want %d", p, len(points[p].Trials), first.TrialsPerPoint)
		}
	}
	var sens []measure.Sensitivity
	for _, f := range files {
		if f.Shard == 0 {
			sens = f.Sensitivity
		}
	}
	return points, sens, nil
}

// simulateRun checks that the shard files are all of one run, each shard
// exactly once, and complete.
func simulateRun(files []SimulateFile, paths []string) error {
	first := files[0]
	seen := make([]string, first.Shards)
	for i, f := range files {
		switch {
		case f.Shards != first.Shards:
			return fmt.Errorf("-merge %s: shard of %d, but %s is a shard of %d: merge the shards of one run", paths[i], f.Shards, paths[0], first.Shards)
		case f.Hash != first.Hash || f.Seed != first.Seed || f.TrialsPerPoint != first.TrialsPerPoint || len(f.Points) != len(first.Points) || f.Sweep != first.Sweep:
			return fmt.Errorf("-merge %s: another run than %s (scenario hash, seed, trials or points differ): merge the shards of one run", paths[i], paths[0])
		case f.Shard < 0 || f.Shard >= f.Shards:
			return fmt.Errorf("-merge %s: shard %d is not one of 0..%d", paths[i], f.Shard, f.Shards-1)
		case seen[f.Shard] != "":
			return fmt.Errorf("-merge %s: shard %d/%d is also in %s: give each shard once", paths[i], f.Shard, f.Shards, seen[f.Shard])
		case !f.Complete:
			return fmt.Errorf("-merge %s: shard %d/%d was interrupted: run it again", paths[i], f.Shard, f.Shards)
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
		return fmt.Errorf("-merge: shards %s of %d are missing: run them (-shard I/%d) and merge all", strings.Join(missing, ", "), first.Shards, first.Shards)
	}
	return nil
}
