// Package cli holds what every overshoot command shares on its command
// line: the exit codes, declared once, and the repeatable -set flag.
package cli

import (
	"fmt"
	"strconv"
	"strings"
)

// Exit codes, the same for every command.
const (
	// ExitOK: the run finished and every gate passed.
	ExitOK = 0
	// ExitFailure: anything that is not the user's input went wrong, or
	// the run was interrupted (what was measured is still written).
	ExitFailure = 1
	// ExitBadInput: bad flags, a bad scenario, an unreachable URL, a port
	// in use; nothing was written.
	ExitBadInput = 2
	// ExitThreshold: the result breaks a threshold (-max-ratio).
	ExitThreshold = 3
	// ExitInterruptedTwice: a second Ctrl-C quit at once, writing nothing.
	ExitInterruptedTwice = 130
)

// Sets is a repeatable -set flag: each use adds one path=value override,
// none replaces another.
type Sets []string

// String lists the overrides given, for flag's help.
func (s *Sets) String() string { return strings.Join(*s, " ") }

// Set adds one override, for flag.
func (s *Sets) Set(v string) error { *s = append(*s, v); return nil }

// Shard is a -shard I/N flag: this process runs shard Index of Count.
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
