package cli

import (
	"flag"
	"fmt"
	"strconv"

	"github.com/overshoot-dev/overshoot/internal/plan"
)

// Shared are the flags simulate and attack both take, defined here once
// with one name, one meaning and one help each: a command says where each
// value goes, and Register adds the flags whose field is set, so that a
// mode gets only the shared flags it uses.
type Shared struct {
	// Scenario is -scenario, the scenario file ("": the embedded
	// scenarios/default.yaml).
	Scenario *string
	// Seed and SeedSet are -seed and whether it was given.
	Seed    *uint64
	SeedSet *bool
	// Sets is the repeatable -set.
	Sets *Sets
	// Out, JSON and NoReport are -out, -json and -no-report.
	Out      *string
	JSON     *bool
	NoReport *bool
	// Gates are -threshold, -max-ratio, -at and -junit.
	Gates *Gates
	// Shard is -shard I/N; ShardWhat says, in a few words, what a shard
	// of the command's run is ("of the run's trials").
	Shard     **plan.Shard
	ShardWhat string
}

// DefaultOut is -out's default folder.
const DefaultOut = "reports"

// Register adds to fs each shared flag whose field is set.
func (s Shared) Register(fs *flag.FlagSet) {
	if s.Scenario != nil {
		fs.StringVar(s.Scenario, "scenario", "", "scenario `file` to run (also accepted as the argument; default: the embedded scenarios/default.yaml)")
	}
	if s.Seed != nil {
		fs.Func("seed", "`seed` of every random draw; a live run draws its traffic as the model's trial 0 of that seed (default: the scenario's seed)", func(v string) error {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return fmt.Errorf("must be a whole number >= 0")
			}
			*s.Seed = n
			if s.SeedSet != nil {
				*s.SeedSet = true
			}
			return nil
		})
	}
	if s.Sets != nil {
		fs.Var(s.Sets, "set", "override a scenario value, `path=value` (e.g. limiter.limit=10); repeatable")
	}
	if s.Out != nil {
		fs.StringVar(s.Out, "out", DefaultOut, "`folder` the run writes under: its report in <scenario>/<time>/ (shard files, calibrated.yaml in the folder itself)")
	}
	if s.JSON != nil {
		fs.BoolVar(s.JSON, "json", false, "print only JSON on stdout: summary.json (advise: advice.json, diff: diff.json)")
	}
	if s.NoReport != nil {
		fs.BoolVar(s.NoReport, "no-report", false, "write no file: no report folder, no summary.json, no results file (what was measured is still printed)")
	}
	if s.Gates != nil {
		s.Gates.Register(fs)
	}
	if s.Shard != nil {
		fs.Func("shard", "run shard `I/N` "+s.ShardWhat+" and write OUT/shard-I-of-N.json (merge the shards with the merge mode)", func(v string) error {
			sp, err := plan.ParseShard(v)
			*s.Shard = &sp
			return err
		})
	}
}
