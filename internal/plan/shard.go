package plan

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is one of Count deterministic slices of a run (-shard I/N): a
// simulation's (point, trial) pairs, or a live run's hits and in-flight
// slots, item j going to shard j mod Count. The shards of a run together
// are the unsharded run.
type Shard struct {
	Index, Count int
}

// MaxShards bounds N in -shard I/N.
const MaxShards = 10000

// ParseShard reads "I/N" with 0 <= I < N <= MaxShards.
func ParseShard(v string) (Shard, error) {
	i, n, ok := strings.Cut(v, "/")
	a, errA := strconv.Atoi(strings.TrimSpace(i))
	b, errB := strconv.Atoi(strings.TrimSpace(n))
	if !ok || errA != nil || errB != nil || b < 1 || a < 0 || a >= b {
		return Shard{}, fmt.Errorf("-shard %q: give I/N with 0 <= I < N, e.g. -shard 0/4 (Kubernetes: -shard $(JOB_COMPLETION_INDEX)/4)", v)
	}
	if b > MaxShards {
		return Shard{}, fmt.Errorf("-shard %q: at most %d shards", v, MaxShards)
	}
	return Shard{a, b}, nil
}

// Share returns how many of n items numbered 0..n-1 fall to the shard when
// item j goes to shard j mod Count.
func (s Shard) Share(n int64) int64 {
	if s.Count <= 1 {
		return n
	}
	c, i := int64(s.Count), int64(s.Index)
	if n <= i {
		return 0
	}
	return (n-i-1)/c + 1
}
