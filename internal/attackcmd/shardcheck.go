package attackcmd

import (
	"fmt"
	"github.com/overshoot-dev/overshoot/internal/atomicfile"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/overshoot-dev/overshoot/internal/attack"
	"github.com/overshoot-dev/overshoot/internal/plan"
)

// A shard file is input: it may have been edited, and its results file
// truncated or zero-filled by a crashed pod. Before a merge sizes anything
// by a shard file or trusts its results, every field is checked against
// its range, and each results file against the count and checksum its
// shard file records, so that a damaged shard is an error naming the file
// and the field, not a panic, a huge allocation or a summary missing
// requests.

// maxShardSpan bounds a shard's durations (window, elapsed time, clock
// offset): far beyond any run, and far from overflowing a time.Duration.
const maxShardSpan = 366 * 24 * time.Hour

// maxOffered bounds the requests a shard's schedule called for: far
// beyond any run, so that the shards' sum stays finite.
const maxOffered = 1e15

// sha256Pattern is a SHA-256 in hex.
var sha256Pattern = regexp.MustCompile(`^[0-9a-f]{64}$`)

// checkShardFields checks one shard file's fields against their ranges.
func checkShardFields(f *shardFile) error {
	span := maxShardSpan.Milliseconds()
	switch {
	case f.Shards < 1 || f.Shards > plan.MaxShards:
		return fmt.Errorf("shards %d is out of range: must be 1 to %d", f.Shards, plan.MaxShards)
	case f.Shard < 0 || f.Shard >= f.Shards:
		return fmt.Errorf("shard %d is not one of 0..%d", f.Shard, f.Shards-1)
	case f.Limit < 1:
		return fmt.Errorf("limit %d is out of range: must be above 0", f.Limit)
	case f.WindowMs < 1 || f.WindowMs > span:
		return fmt.Errorf("window_ms %d is out of range: must be 1 to %d", f.WindowMs, span)
	case f.SkewMs < 0 || f.SkewMs > time.Minute.Milliseconds():
		return fmt.Errorf("skew_ms %d is out of range: must be 0 to %d", f.SkewMs, time.Minute.Milliseconds())
	case f.LateMs < 0 || f.LateMs > maxLate.Milliseconds():
		return fmt.Errorf("late_ms %d is out of range: must be 0 to %d (a shard starts at -start-at or at most %v after)", f.LateMs, maxLate.Milliseconds(), maxLate)
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

// digestFile returns the digest of the results file at path.
func digestFile(path string) (attack.Digest, error) {
	f, err := os.Open(path)
	if err != nil {
		return attack.Digest{}, err
	}
	defer f.Close()
	return attack.DigestResults(f)
}

// checkResults reads every shard's results file and checks it against its
// shard file: as many results, the same checksum, every result sent within
// the shard's run (from start_at for elapsed_ms).
func checkResults(files []shardFile, dirs []string) error {
	for i, f := range files {
		name := filepath.Join(dirs[i], f.Results)
		d, err := digestFile(name)
		if err != nil {
			return fmt.Errorf("%s: %v: run shard %d again", name, err, f.Shard)
		}
		shard := filepath.Join(dirs[i], shardBase(f.Shard, f.Shards)+".json")
		if d.Results != f.ResultsCount || d.SHA256 != f.ResultsSHA256 {
			return fmt.Errorf("%s holds %d results with checksum %.12s, but %s says results_count %d, results_sha256 %.12s: the results file is truncated, zero-filled or another's; run shard %d again",
				name, d.Results, d.SHA256, shard, f.ResultsCount, f.ResultsSHA256, f.Shard)
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

// writeReplacing writes a shard file whole (atomicfile.Replace), so that
// a merge never reads half of one; a shard run again replaces its file.
func writeReplacing(path string, b []byte) error { return atomicfile.Replace(path, b) }
