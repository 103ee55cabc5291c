package shard

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/overshoot-dev/overshoot/internal/attack"
	"github.com/overshoot-dev/overshoot/internal/measure"
)

// A sharded attack: N processes, anywhere, each sending its part of the
// scenario's load (attack.Options.Shard) at one shared target from one
// agreed instant. Each writes its results and an attack shard file beside
// them; attack -merge accounts for all the shards' results as one run.

// attackFormat is attack's shard files (schema 2: results_count and
// results_sha256).
var attackFormat = format{tool: "attack", what: "an attack shard file", schema: 2}

// AttackFile is what an attack shard writes beside its results: who it
// is, what it ran, and what the merge needs that the results do not hold.
type AttackFile struct {
	Header
	RunID string `json:"run_id"`
	// Scenario identifies the scenario and its overrides, so the merge
	// can compile the same plan; Seed is the run's.
	Scenario measure.ScenarioRef `json:"scenario"`
	Seed     uint64              `json:"seed"`
	URL      string              `json:"url"`
	Limit    int64               `json:"limit"`
	WindowMs int64               `json:"window_ms"`
	// Limiter is the summary's limiter reference.
	Limiter measure.LimiterRef `json:"limiter"`
	SkewMs  int64              `json:"skew_ms"`
	// DenyStatus is the statuses the shard counted as denials
	// (-deny-status); absent in older files: 429 alone.
	DenyStatus []int `json:"deny_status,omitempty"`
	// StartAt is the agreed start; LateMs how long after it this shard
	// started; ElapsedMs how long from StartAt it ran.
	StartAt   time.Time `json:"start_at"`
	LateMs    int64     `json:"late_ms"`
	ElapsedMs int64     `json:"elapsed_ms"`
	// ClockOffsetMs is the target's clock (its Date header) minus this
	// machine's, measured before the run: shards whose clocks disagree do
	// not attack at once whatever -start-at says.
	ClockOffsetMs int64 `json:"clock_offset_ms"`
	// Offered is the requests this shard's schedule called for.
	Offered float64 `json:"offered"`
	// Results is the shard's results file, beside this one;
	// ResultsCount and ResultsSHA256 are how many results it holds and its
	// checksum, so that a merge refuses one truncated or zero-filled.
	Results       string `json:"results"`
	ResultsCount  int64  `json:"results_count"`
	ResultsSHA256 string `json:"results_sha256"`
	Complete      bool   `json:"complete"`
}

// NewAttackHeader is shard i of n's header at the current schema.
func NewAttackHeader(i, n int) Header {
	return Header{Kind: attackFormat.kind(), Schema: attackFormat.schema, Shard: i, Shards: n}
}

// MaxLate is how long after -start-at a shard may still start: beyond it
// the shards would not be attacking at once.
const MaxLate = 2 * time.Second

// maxSpan bounds a shard's durations (window, elapsed time, clock
// offset): far beyond any run, and far from overflowing a time.Duration.
const maxSpan = 366 * 24 * time.Hour

// maxOffered bounds the requests a shard's schedule called for: far
// beyond any run, so that the shards' sum stays finite.
const maxOffered = 1e15

// maxClockSpread is how far the shards' clocks (against the target's) may
// disagree: the Date header has whole seconds, so 2 s is one tick each way.
const maxClockSpread = 2 * time.Second

// check checks an attack shard file's fields (its header's are
// Header.check's) against their ranges.
func (f *AttackFile) check() error {
	span := maxSpan.Milliseconds()
	switch {
	case filepath.Base(f.Results) != f.Results:
		return fmt.Errorf("results %q is not a file beside it", f.Results)
	case f.Limit < 1:
		return fmt.Errorf("limit %d is out of range: must be above 0", f.Limit)
	case f.WindowMs < 1 || f.WindowMs > span:
		return fmt.Errorf("window_ms %d is out of range: must be 1 to %d", f.WindowMs, span)
	case f.SkewMs < 0 || f.SkewMs > time.Minute.Milliseconds():
		return fmt.Errorf("skew_ms %d is out of range: must be 0 to %d", f.SkewMs, time.Minute.Milliseconds())
	case f.LateMs < 0 || f.LateMs > MaxLate.Milliseconds():
		return fmt.Errorf("late_ms %d is out of range: must be 0 to %d (a shard starts at -start-at or at most %v after)", f.LateMs, MaxLate.Milliseconds(), MaxLate)
	case f.ElapsedMs < 0 || f.ElapsedMs > span:
		return fmt.Errorf("elapsed_ms %d is out of range: must be 0 to %d", f.ElapsedMs, span)
	case f.ClockOffsetMs < -span || f.ClockOffsetMs > span:
		return fmt.Errorf("clock_offset_ms %d is out of range: must be -%d to %d", f.ClockOffsetMs, span, span)
	case math.IsNaN(f.Offered) || f.Offered < 0 || f.Offered > maxOffered:
		return fmt.Errorf("offered %v is out of range: must be 0 to %g", f.Offered, maxOffered)
	case f.StartAt.IsZero():
		return fmt.Errorf("start_at is missing")
	case f.ResultsCount < 0:
		return fmt.Errorf("results_count %d is out of range: must be >= 0", f.ResultsCount)
	case !sha256Pattern.MatchString(f.ResultsSHA256):
		return fmt.Errorf("results_sha256 %q is not a SHA-256 in hex", f.ResultsSHA256)
	}
	return nil
}

// ReadAttack reads attack's shard files named by args (files, or folders
// of them) and returns them with the folder each is in.
func ReadAttack(args []string) ([]AttackFile, []string, error) {
	files, paths, err := read[AttackFile](args, attackFormat)
	if err != nil {
		return nil, nil, err
	}
	dirs := make([]string, len(paths))
	for i, p := range paths {
		dirs[i] = filepath.Dir(p)
	}
	return files, dirs, nil
}

// CheckAttackRun checks that the shards make one run: the same run id,
// scenario, target, limit, window, start and denial statuses; each shard
// once; all complete; clocks in agreement.
func CheckAttackRun(files []AttackFile, dirs []string) error {
	first := files[0]
	seen := make([]bool, first.Shards)
	lo, hi := first.ClockOffsetMs, first.ClockOffsetMs
	for i, f := range files {
		name := filepath.Join(dirs[i], Base(f.Shard, f.Shards)+".json")
		switch {
		case f.RunID != first.RunID || f.Shards != first.Shards:
			return fmt.Errorf("%s is shard %d/%d of run %s, another run than %d/%d of %s: merge the shards of one run",
				name, f.Shard, f.Shards, f.RunID, first.Shard, first.Shards, first.RunID)
		case attack.FormatDenyStatus(f.DenyStatus) != attack.FormatDenyStatus(first.DenyStatus):
			return fmt.Errorf("%s counted -deny-status %s as denials, shard %d %s: run every shard with the same flags",
				name, attack.FormatDenyStatus(f.DenyStatus), first.Shard, attack.FormatDenyStatus(first.DenyStatus))
		case f.Scenario.Hash != first.Scenario.Hash || f.URL != first.URL || f.Limit != first.Limit ||
			f.WindowMs != first.WindowMs || !f.StartAt.Equal(first.StartAt) || f.Seed != first.Seed:
			return fmt.Errorf("%s ran another scenario, target, limit, window, seed or start than shard %d: run every shard with the same flags", name, first.Shard)
		case f.Shard < 0 || f.Shard >= f.Shards:
			return fmt.Errorf("%s: shard %d is not one of 0..%d", name, f.Shard, f.Shards-1)
		case seen[f.Shard]:
			return fmt.Errorf("%s: shard %d/%d is given twice: give each shard once", name, f.Shard, f.Shards)
		case !f.Complete:
			return fmt.Errorf("%s: shard %d/%d was interrupted: run the attack again", name, f.Shard, f.Shards)
		case f.LateMs > MaxLate.Milliseconds():
			return fmt.Errorf("%s: shard %d started %d ms after -start-at: the shards did not attack at once", name, f.Shard, f.LateMs)
		}
		seen[f.Shard] = true
		lo, hi = min(lo, f.ClockOffsetMs), max(hi, f.ClockOffsetMs)
	}
	for i, ok := range seen {
		if !ok {
			return fmt.Errorf("shard %d/%d of run %s is missing: run it and merge all %d", i, first.Shards, first.RunID, first.Shards)
		}
	}
	if spread := time.Duration(hi-lo) * time.Millisecond; spread > maxClockSpread {
		return fmt.Errorf("the shards' clocks disagree by %v against the target's (over %v): sync them (NTP) and run again", spread, maxClockSpread)
	}
	return nil
}

// DigestFile returns the digest of the attack results file at path.
func DigestFile(path string) (attack.Digest, error) {
	f, err := os.Open(path)
	if err != nil {
		return attack.Digest{}, err
	}
	defer f.Close()
	return attack.DigestResults(f)
}

// CheckResults reads every shard's results file and checks it against its
// shard file: as many results, the same checksum (CheckSum), every result
// sent within the shard's run (from start_at for elapsed_ms).
func CheckResults(files []AttackFile, dirs []string) error {
	for i, f := range files {
		name := filepath.Join(dirs[i], f.Results)
		d, err := DigestFile(name)
		if err != nil {
			return fmt.Errorf("%s: %v: run shard %d again", name, err, f.Shard)
		}
		shard := filepath.Join(dirs[i], Base(f.Shard, f.Shards)+".json")
		if err := CheckSum(name, Sum{Count: d.Results, SHA256: d.SHA256}, Sum{Count: f.ResultsCount, SHA256: f.ResultsSHA256},
			Recorded{File: shard, CountField: "results_count", SHAField: "results_sha256", Items: "results",
				Fix: fmt.Sprintf("the results file is truncated, zero-filled or another's; run shard %d again", f.Shard)}); err != nil {
			return err
		}
		lo := f.StartAt.Add(-attack.MergeSlack)
		hi := f.StartAt.Add(time.Duration(f.ElapsedMs)*time.Millisecond + attack.MergeSlack)
		if d.Results > 0 && (d.First.Before(lo) || d.Last.After(hi)) {
			return fmt.Errorf("%s: its results were sent from %s to %s, outside the run its start_at %s and elapsed_ms %d give: the shard file was edited; run shard %d again",
				name, d.First.UTC().Format(time.RFC3339Nano), d.Last.UTC().Format(time.RFC3339Nano), f.StartAt.UTC().Format(time.RFC3339Nano), f.ElapsedMs, f.Shard)
		}
	}
	return nil
}
