package attackcmd

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/overshoot-dev/overshoot/internal/attack"
	"github.com/overshoot-dev/overshoot/internal/cli"
	"github.com/overshoot-dev/overshoot/internal/plan"
)

// config is the parsed command line. It is read once (parseFlags) and
// not changed after.
type config struct {
	scenarioFile string // "": the embedded scenarios/default.yaml
	sets         cli.Sets
	url          string
	serve        bool
	store        plan.LiveStore
	storeSet     bool // -store was given; unset, the scenario's store kind picks it (storeFor)
	addr         string
	duration     time.Duration
	maxRequests  int64
	seed         uint64
	seedSet      bool
	out          string
	json         bool
	noReport     bool
	gates        cli.Gates
	ipHeader     string
	timeout      time.Duration
	cf           cloudflareFlags // -namespace, -cf-base-url (cloudflare.go)
	rd           redisFlags      // -redis-* (redis.go)
	sh           shardFlags      // -shard, -start-at, -run-id (shard.go)
	mergeArgs    []string        // merge: the shard files or folders
	repeat       int             // -repeat N: independent runs, one summary
	denyStatus   []int           // -deny-status: the statuses that are denials
}

// Modes are attack's modes, each also the flag form it has always had.
var Modes = []cli.Mode{
	{Name: "run", Args: "[SCENARIO.yaml]", Help: "attack a target with a scenario's traffic (the default)"},
	{Name: "serve", Flag: "serve", Args: "[SCENARIO.yaml]", Help: "only run the built-in target until Ctrl-C, for any load tool"},
	{Name: "merge", Flag: "merge", Args: "DIR|SHARD.json...", Help: "merge the shards of a run into one"},
}

// command is attack's command line: its modes, each with its flags.
var command = &cli.Command[config]{
	Name: "attack",
	About: `Runs a scenario's traffic for real against a rate limiter and measures how far
past its limit it lets callers go. With no -url it starts the built-in target
(the same limiter over the chosen store) on 127.0.0.1 and attacks that;
nothing leaves loopback unless you name a URL or a real store (-store cloudflare,
-store redis). Writes summary.json and a vegeta results file (read it with:
go tool vegeta report < results.bin) under -out. With -no-report nothing is
written: the summary is printed (all of summary.json with -json) and the
vegeta results are not kept.`,
	Modes: Modes,
	Exits: []cli.Exit{
		{Code: cli.ExitOK, Means: "ok (also after -h and -version, and when serve is stopped)"},
		{Code: cli.ExitFailure, Means: "failure, interrupted, most requests got no decision (a status neither 2xx nor a -deny-status), or none was counted; what was measured is still written, and the summary says so"},
		{Code: cli.ExitBadInput, Means: "bad input: flags, scenario, an unreachable -url, a port in use (nothing written)"},
		{Code: cli.ExitThreshold, Means: "a gate broken (-threshold, -max-ratio)"},
		{Code: cli.ExitInterruptedTwice, Means: "a second Ctrl-C: quit at once"},
	},
	Flags: (*config).flags,
}

// flags registers mode's flags into fs: the shared ones (cli.Shared) and
// attack's own.
func (c *config) flags(mode string, fs *flag.FlagSet) {
	sh := cli.Shared{Out: &c.out, JSON: &c.json, Gates: &c.gates}
	if mode == "merge" {
		sh.Register(fs)
		return
	}
	sh.Scenario, sh.Seed, sh.SeedSet, sh.Sets = &c.scenarioFile, &c.seed, &c.seedSet, &c.sets
	c.targetFlags(fs)
	if mode == "serve" {
		sh.Out, sh.JSON, sh.Gates = nil, nil, nil
		sh.Register(fs)
		return
	}
	sh.NoReport, sh.Shard = &c.noReport, &c.sh.shard
	sh.ShardWhat = "of the scenario's load (with -url, -start-at and -run-id)"
	sh.Register(fs)
	c.sh.register(fs)
	fs.StringVar(&c.url, "url", "", "attack this `URL` instead of the built-in target (a Worker under wrangler dev, a staging deployment)")
	fs.DurationVar(&c.duration, "duration", 0, "how long to attack (default: the scenario's live.duration)")
	fs.Int64Var(&c.maxRequests, "max-requests", 0, "stop after this many requests (default: the scenario's live.max_requests; with -store cloudflare and neither given, "+
		strconv.Itoa(DefaultCloudflareMaxRequests)+", since every request is billed API calls)")
	fs.StringVar(&c.ipHeader, "ip-header", "X-Forwarded-For", "header carrying each client's address: X-Forwarded-For or CF-Connecting-IP")
	c.denyStatus = attack.DefaultDenyStatus
	fs.Func("deny-status", "the `statuses` that are denials, separated by commas, e.g. 429,503 (default 429); another status counts as denied when the response's rate-limit fields say nothing remains, else as an error", func(v string) error {
		codes, err := attack.ParseDenyStatus(v)
		c.denyStatus = codes
		return err
	})
	fs.IntVar(&c.repeat, "repeat", 1, "run the attack `N` times, one after another (fresh run id and tokens each, a fresh built-in store), and write one summary whose repeats hold each run and their median and spread")
}

// targetFlags registers the built-in target's flags: its store, the
// stores' own flags, its address and the per-request timeout.
func (c *config) targetFlags(fs *flag.FlagSet) {
	fs.StringVar((*string)(&c.store), "store", string(plan.LiveEventual), "built-in target's store: memory, eventual (the KV model on the wall clock), cloudflare (a real Workers KV namespace: -namespace) or redis (real Redis: -redis-addr or -redis-sentinels) (default: the scenario's store kind: eventual for kv, memory for memory)")
	c.cf.register(fs)
	c.rd.register(fs)
	fs.StringVar(&c.addr, "addr", "127.0.0.1:0", "built-in target's listen `address` (loopback only; port 0 picks one)")
	fs.DurationVar(&c.timeout, "timeout", 10*time.Second, "per-request timeout (also each call of -store cloudflare)")
}

// parseFlags reads args into a config; errors are bad input.
func parseFlags(args []string, stdout, stderr io.Writer) (*config, error) {
	p, err := command.Parse(args, stdout, stderr)
	if err != nil {
		return nil, err
	}
	c := p.Config
	switch p.Mode.Name {
	case "merge":
		if len(p.Args) == 0 {
			return nil, fmt.Errorf("attack merge: give the shard files, or the folder the shards wrote under (-out)")
		}
		c.mergeArgs = p.Args
		return c, c.gates.Validate()
	case "serve":
		c.serve = true
	}
	if p.Given["url"] && strings.TrimSpace(c.url) == "" {
		return nil, fmt.Errorf("-url is empty: give the target's URL, e.g. -url http://127.0.0.1:8787/, or leave -url out to attack the built-in target")
	}
	c.storeSet = p.Given["store"]
	c.rd.given(p.Given)
	c.sets = liveWindowFollows(c.sets)
	if err := c.sh.validate(c); err != nil {
		return nil, err
	}
	switch {
	case len(p.Args) > 1:
		return nil, fmt.Errorf("too many arguments %q: give at most one scenario file", p.Args)
	case len(p.Args) == 1 && p.Given["scenario"]:
		return nil, fmt.Errorf("scenario given twice, as -scenario %s and as the argument %s: give one", c.scenarioFile, p.Args[0])
	case len(p.Args) == 1:
		c.scenarioFile = p.Args[0]
	}
	return c, c.check()
}

// check checks the values of the flags, alone and together.
func (c *config) check() error {
	if !slices.Contains(plan.BuiltinStores, c.store) {
		return fmt.Errorf("-store %q is unknown: use memory, eventual, cloudflare or redis", c.store)
	}
	if err := c.cf.validate(c.store, c.url); err != nil {
		return err
	}
	if err := c.rd.validate(c.store, c.url); err != nil {
		return err
	}
	if c.rd.harness && c.serve {
		return fmt.Errorf("-redis-harness starts servers for an attack run and faults them during it: not with -serve")
	}
	if c.timeout < MinTimeout {
		return fmt.Errorf("-timeout %v is too short for any answer, even on loopback: give %v or more (default 10s)", c.timeout, MinTimeout)
	}
	if c.serve {
		return nil
	}
	if err := c.gates.Validate(); err != nil {
		return err
	}
	if c.duration < 0 || c.maxRequests < 0 {
		return fmt.Errorf("-duration and -max-requests must be >= 0")
	}
	if _, err := attack.IPHeader(c.ipHeader); err != nil {
		return err
	}
	if c.repeat < 1 || c.repeat > MaxRepeat {
		return fmt.Errorf("-repeat %d is out of range: give 1 to %d runs", c.repeat, MaxRepeat)
	}
	if c.repeat > 1 && c.sh.shard != nil {
		return fmt.Errorf("-repeat goes with a plain attack: not with -shard (repeat the sharded run instead)")
	}
	return nil
}
