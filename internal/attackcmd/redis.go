package attackcmd

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/redis"
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
	addr      string
	replicas  string
	sentinels string
	master    string
	read      string
	timeout   time.Duration
}

// register adds the -redis-* flags to fs.
func (f *redisFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.addr, "redis-addr", "", "with -store redis: the server's `host:port` (the primary; or give -redis-sentinels)")
	fs.StringVar(&f.sentinels, "redis-sentinels", "", "with -store redis: the sentinels' `host:port,...`, which name the primary of -redis-master and follow its failovers")
	fs.StringVar(&f.master, "redis-master", "", "with -redis-sentinels: the `name` the sentinels monitor the primary under (sentinel monitor NAME ...)")
	fs.StringVar(&f.read, "redis-read", redisReadPrimary, "with -store redis: read counts from the `primary` or from a replica (replica: possibly stale)")
	fs.StringVar(&f.replicas, "redis-replicas", "", "with -redis-addr and -redis-read replica: the replicas' `host:port,...` to read from, in turn")
	fs.DurationVar(&f.timeout, "redis-timeout", redis.DefaultTimeout, "with -store redis: each Redis command's timeout; a command past it fails to the limiter's error policy")
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
		if f.addr != "" || f.replicas != "" || f.sentinels != "" || f.master != "" || f.read != redisReadPrimary || f.timeout != redis.DefaultTimeout {
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
	if f.addr == "" && f.sentinels == "" {
		return fmt.Errorf("-store redis needs -redis-addr host:port (one server) or -redis-sentinels host:port,... with -redis-master NAME")
	}
	if f.master != "" && f.sentinels == "" {
		return fmt.Errorf("-redis-master goes with -redis-sentinels: give the sentinels' addresses")
	}
	if err := f.config("").Validate(); err != nil {
		return fmt.Errorf("-store redis: %w", err)
	}
	return nil
}

// newRedisStore opens the Redis the flags name, with every key under a
// prefix of its own (so that a run, and each run of -repeat, starts on
// fresh counters however its keys are made), pings it before any load, and
// wraps it to count KV work.
func newRedisStore(ctx context.Context, f *redisFlags) (*BuiltinStore, error) {
	prefix := "overshoot:" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":"
	s, err := redis.New(f.config(prefix))
	if err != nil {
		return nil, err
	}
	check, cancel := context.WithTimeout(ctx, min(2*f.timeout+time.Second, 15*time.Second))
	defer cancel()
	if err := s.Check(check); err != nil {
		_ = s.Close()
		return nil, err
	}
	cs := NewCountingStore(s)
	return &BuiltinStore{Store: cs, AddTo: cs.AddTo, Describe: s.String() + ", keys under " + prefix, Close: func() { _ = s.Close() }}, nil
}
