package attackcmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/loopback"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/redis"
	"github.com/overshoot-dev/overshoot/internal/redis/harness"
)

// StoreRedis is the -store name of real Redis: one server, or the primary
// that Redis Sentinel names (internal/redis).
const StoreRedis = plan.LiveRedis

// The values of -redis-read.
const (
	redisReadPrimary = "primary"
	redisReadReplica = "replica"
)

// redisFlags are the flags of -store redis.
type redisFlags struct {
	harness   bool
	addr      string
	replicas  string
	sentinels string
	master    string
	read      string
	timeout   time.Duration
	// readSet and timeoutSet say that -redis-read and -redis-timeout were
	// given (given); unset, they are the scenario's (fromScenario).
	readSet, timeoutSet bool
}

// register adds the -redis-* flags to fs.
func (f *redisFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.harness, "redis-harness", false, "with -store redis: start a Redis of its own on loopback for the run (a primary, two replicas, three sentinels; redis-server and redis-sentinel needed) and apply the scenario's faults to it")
	fs.StringVar(&f.addr, "redis-addr", "", "with -store redis: the server's `host:port` (the primary; or give -redis-sentinels)")
	fs.StringVar(&f.sentinels, "redis-sentinels", "", "with -store redis: the sentinels' `host:port,...`, which name the primary of -redis-master and follow its failovers")
	fs.StringVar(&f.master, "redis-master", "", "with -redis-sentinels: the `name` the sentinels monitor the primary under (sentinel monitor NAME ...)")
	fs.StringVar(&f.read, "redis-read", redisReadPrimary, "with -store redis: read counts from the `primary` or from a replica (replica: possibly stale); unset, the scenario's store.redis.read, and this default without one")
	fs.StringVar(&f.replicas, "redis-replicas", "", "with -redis-addr and -redis-read replica: the replicas' `host:port,...` to read from, in turn")
	fs.DurationVar(&f.timeout, "redis-timeout", redis.DefaultTimeout, "with -store redis: each Redis command's timeout; a command past it fails to the limiter's error policy; unset, the scenario's store.redis.timeout, and this default without one")
}

// given notes which of the flags the command line gave (cli.Parsed.Given).
func (f *redisFlags) given(names map[string]bool) {
	f.readSet, f.timeoutSet = names["redis-read"], names["redis-timeout"]
}

// fromScenario takes the read and the timeout the flags leave unset from
// a redis scenario's store.redis, so that the live run reads and times
// out as the model does; a flag given against the scenario is said on
// notes, with the -set that makes simulate compare predict it.
func (f *redisFlags) fromScenario(pl *plan.Plan, notes io.Writer) {
	if pl.Store.Kind != plan.Redis {
		return
	}
	r := pl.Store.Redis
	read := redisReadPrimary
	if r.ReadReplica {
		read = redisReadReplica
	}
	switch {
	case !f.readSet:
		f.read = read
	case f.read != read:
		fmt.Fprintf(notes, "attack: note: -redis-read %s reads where the scenario's store.redis.read does not; simulate compare predicts the scenario's: add -set store.redis.read=%s\n", f.read, f.read)
	}
	switch {
	case r.Timeout <= 0:
	case !f.timeoutSet:
		f.timeout = r.Timeout
	case f.timeout != r.Timeout:
		fmt.Fprintf(notes, "attack: note: -redis-timeout %v is not the scenario's store.redis.timeout (%v); simulate compare predicts the scenario's: add -set store.redis.timeout=%v\n", f.timeout, r.Timeout, f.timeout)
	}
}

// list splits a comma-separated flag value, dropping empty items.
func list(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// config is the store's configuration as the flags give it, with keys
// under prefix.
func (f *redisFlags) config(prefix string) redis.Config {
	return redis.Config{Addr: f.addr, Replicas: list(f.replicas), Sentinels: list(f.sentinels), MasterName: f.master,
		ReadReplicas: f.read == redisReadReplica, Timeout: f.timeout, Prefix: prefix}
}

// validate checks the redis flags against the chosen store, before
// anything else happens.
func (f *redisFlags) validate(store plan.LiveStore, url string) error {
	if store != StoreRedis {
		if f.harness || f.addr != "" || f.replicas != "" || f.sentinels != "" || f.master != "" || f.readSet || f.timeoutSet {
			return fmt.Errorf("the -redis-* flags go with -store redis (the store is %s)", store)
		}
		return nil
	}
	if url != "" {
		return fmt.Errorf("-store redis runs the built-in target on Redis; -url attacks another target: give one or the other")
	}
	if f.read != redisReadPrimary && f.read != redisReadReplica {
		return fmt.Errorf("-redis-read %q is unknown: use primary or replica", f.read)
	}
	if f.timeout <= 0 {
		return fmt.Errorf("-redis-timeout %v must be positive, e.g. 500ms", f.timeout)
	}
	if f.harness {
		if f.addr != "" || f.sentinels != "" || f.master != "" || f.replicas != "" {
			return fmt.Errorf("-redis-harness starts its own servers: leave out -redis-addr, -redis-sentinels, -redis-master and -redis-replicas")
		}
		return nil
	}
	if f.addr == "" && f.sentinels == "" {
		return fmt.Errorf("-store redis needs -redis-addr host:port (one server), -redis-sentinels host:port,... with -redis-master NAME, or -redis-harness")
	}
	if f.master != "" && f.sentinels == "" {
		return fmt.Errorf("-redis-master goes with -redis-sentinels: give the sentinels' addresses")
	}
	if err := f.config("").Validate(); err != nil {
		return fmt.Errorf("-store redis: %w", err)
	}
	return nil
}

// newRedisStore opens the Redis the flags name (with -redis-harness, one
// it starts for the run of length runFor, notes going to notes), with every
// key under a prefix of its own (so that a run, and each run of -repeat,
// starts on fresh counters however its keys are made), pings it before any
// load, and wraps it to count KV work and, for a counting limiter, the
// increments lost and the stale reads (redis.Ledger).
func newRedisStore(ctx context.Context, f *redisFlags, pl *plan.Plan, runFor time.Duration, notes io.Writer) (*BuiltinStore, error) {
	if len(pl.Faults) > 0 && !f.harness {
		return nil, fmt.Errorf("the scenario has faults:, which attack applies only to servers it starts: add -redis-harness (or remove faults: to run on these servers)")
	}
	for _, ft := range pl.Faults {
		if ft.At >= runFor {
			return nil, fmt.Errorf("the fault %s at %v is not before the end of the live run (%v): attack would never apply it; set its faults.*.at below %v, or a longer live.duration", ft.Kind, ft.At, runFor, runFor)
		}
	}
	prefix := "overshoot:" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":"
	f.fromScenario(pl, notes)
	cfg := f.config(prefix)
	if err := cfg.Validate(); err != nil && !f.harness && !f.readSet && cfg.ReadReplicas {
		return nil, fmt.Errorf("-store redis: the scenario reads from replicas (store.redis.read: replica), and %w: give -redis-replicas host:port,..., or -redis-read primary", err)
	}
	var h *redisHarness
	if f.harness {
		var err error
		if h, err = startRedisHarness(pl, runFor, notes); err != nil {
			return nil, err
		}
		cfg.Sentinels, cfg.MasterName = h.c.SentinelAddrs(), harness.MasterName
	}
	bs, err := openRedis(ctx, cfg, pl.Limiter.Algorithm, f.timeout, notes)
	if err != nil {
		if h != nil {
			h.stop()
		}
		return nil, err
	}
	bs.OnHost = h != nil || onLoopback(cfg)
	if h != nil {
		bs.Describe += "; " + h.describe()
		bs.Started = h.started
		closeStore := bs.Close
		bs.Close = func() { closeStore(); h.stop() }
	}
	return bs, nil
}

// openRedis opens and pings the store cfg names, counting its work and,
// for a counting algorithm, its lost increments and stale reads (from
// replicas; reads from the primary are fresh by definition): at the end
// of the run the ledger reads every key's count on the primary (Settle),
// and a count it cannot read is said on notes.
func openRedis(ctx context.Context, cfg redis.Config, alg limiter.Algorithm, timeout time.Duration, notes io.Writer) (*BuiltinStore, error) {
	s, err := redis.New(cfg)
	if err != nil {
		return nil, err
	}
	check, cancel := context.WithTimeout(ctx, min(2*timeout+time.Second, 15*time.Second))
	defer cancel()
	if err := s.Check(check); err != nil {
		_ = s.Close()
		return nil, err
	}
	var st kv.Store = s
	var led *redis.Ledger
	switch {
	case !alg.Counts(): // a TAT is no count
	case cfg.ReadReplicas:
		led = redis.NewReplicaLedger(s)
	default:
		led = redis.NewLedger(s)
	}
	if led != nil {
		st = led
	}
	cs := NewCountingStore(st)
	addTo := func(k *measure.KVCounters) {
		cs.AddTo(k)
		if led != nil {
			settleLedger(led, timeout, notes)
			led.AddTo(k)
		}
	}
	prefix := cfg.Prefix
	return &BuiltinStore{Store: cs, AddTo: addTo, Describe: s.String() + ", keys under " + prefix, Close: func() { _ = s.Close() }, Soak: s}, nil
}

// settleLedger reads the final counts of led's keys on the primary, each
// read bounded by timeout, and says on notes what could not be read.
func settleLedger(led *redis.Ledger, timeout time.Duration, notes io.Writer) {
	keys := int64(len(led.Acked()))
	ctx, cancel := context.WithTimeout(context.Background(), min(time.Duration(keys+1)*timeout, 30*time.Second))
	defer cancel()
	err := led.Settle(ctx)
	if n := led.Unsettled(); n > 0 {
		fmt.Fprintf(notes, "attack: note: the final count of %d of %d keys could not be read on the primary (%v): their lost updates are not counted\n", n, keys, err)
	}
}

// onLoopback reports whether every server cfg names (the primary, the
// replicas, the sentinels) is on a loopback address: then they run on
// attack's host and share its cores.
func onLoopback(cfg redis.Config) bool {
	addrs := append(append([]string{cfg.Addr}, cfg.Replicas...), cfg.Sentinels...)
	seen := false
	for _, a := range addrs {
		if a == "" {
			continue
		}
		host, _, err := net.SplitHostPort(a)
		if err != nil || !loopback.Host(host) {
			return false
		}
		seen = true
	}
	return seen
}
