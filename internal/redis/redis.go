// Package redis is a kv.Store over real Redis, spoken to with
// github.com/redis/go-redis/v9, so that the built-in target runs the seed's
// read-then-write limiter on Redis: a read is GET, a write is SET with EX.
// It is also a kv.Updater: the limiter's atomic shape runs as one Lua script
// per algorithm on the primary (EVALSHA, falling back to EVAL), one round
// trip, the key's TTL set in the script (update.go): INCR counters for the
// fixed and sliding windows, GCRA for token-bucket and gcra.
//
// It reaches either a single server (Config.Addr) or the primary that a set
// of sentinels name (Config.Sentinels and Config.MasterName, through
// go-redis's failover client, which follows a failover). Reads go to the
// primary, or to replicas (Config.ReadReplicas), which answer from a copy
// that may not yet have seen the latest writes: the stale reads the model's
// eventual stores are about.
//
// Every command is bounded by Config.Timeout and tried once (go-redis's
// retries are off), so a timeout, a refused connection, a replica that
// refuses a write or a primary that is gone during a failover comes back at
// once as kv.ErrUnavailable, whose cause (kv.Error.Err) is go-redis's error,
// and the limiter's error policy decides.
package redis

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/overshoot-dev/overshoot/internal/escape"
	"github.com/overshoot-dev/overshoot/internal/kv"
)

// DefaultTimeout bounds one command (dial, write, read) when Config.Timeout
// is zero.
const DefaultTimeout = 2 * time.Second

// Config says which Redis to use and how to read from it.
type Config struct {
	// Addr is a single server's host:port: the primary, written to and,
	// unless ReadReplicas, read from. Give Addr or Sentinels, not both.
	Addr string
	// Replicas are the replicas' host:port to read from with Addr and
	// ReadReplicas, in turn.
	Replicas []string
	// Sentinels are the sentinels' host:port; the store asks them for the
	// primary of MasterName, and again after a failover.
	Sentinels []string
	// MasterName is the name the sentinels monitor the primary under.
	MasterName string
	// ReadReplicas reads from replicas instead of the primary: the
	// Replicas given with Addr, or the replicas the sentinels know (the
	// primary when they know none online). Writes always go to the primary.
	ReadReplicas bool
	// Timeout bounds each command; zero means DefaultTimeout.
	Timeout time.Duration
	// Prefix is put before every key, so that runs on one server do not
	// share counters (the attack's run id); "" uses keys as they are.
	Prefix string
}

// Validate checks the configuration without connecting: one of a server or
// sentinels, a master name with sentinels, replicas only with replica reads,
// and every address host:port.
func (c Config) Validate() error {
	switch {
	case c.Addr == "" && len(c.Sentinels) == 0:
		return errors.New("redis store: no server: give the primary's host:port, or the sentinels' and the master name")
	case c.Addr != "" && len(c.Sentinels) > 0:
		return errors.New("redis store: both a server address and sentinels given: give one or the other")
	case len(c.Sentinels) > 0 && c.MasterName == "":
		return errors.New("redis store: sentinels given without the master name they monitor the primary under")
	case c.Addr != "" && c.ReadReplicas && len(c.Replicas) == 0:
		return errors.New("redis store: replica reads from a single server need the replicas' host:port")
	case !c.ReadReplicas && len(c.Replicas) > 0:
		return errors.New("redis store: replicas given without replica reads: read from replicas, or leave the replicas out")
	case len(c.Sentinels) > 0 && len(c.Replicas) > 0:
		return errors.New("redis store: replicas given with sentinels: the sentinels name the replicas, leave them out")
	}
	addrs := append(append([]string{}, c.Replicas...), c.Sentinels...)
	if c.Addr != "" {
		addrs = append(addrs, c.Addr)
	}
	for _, a := range addrs {
		if _, port, err := net.SplitHostPort(a); err != nil || port == "" {
			return fmt.Errorf("redis store: address %q is not host:port", a)
		}
	}
	return nil
}

// Store is a kv.Store on Redis. It is safe for concurrent use.
type Store struct {
	primary *goredis.Client
	readers []*goredis.Client // nil: read from primary
	next    atomic.Uint64
	prefix  string
	desc    string
}

var _ kv.Store = (*Store)(nil)

// quiet drops go-redis's own log lines, once.
var quiet sync.Once

// New returns a store for cfg. It makes no request; call Check to find out
// whether the servers answer. Close it when done.
//
// It turns go-redis's own logging off for the process (its pool's dial
// failures and Sentinel notices would go to stderr in the middle of a
// run's output): every failure still reaches the caller as an error.
func New(cfg Config) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	quiet.Do(func() { goredis.SetLogger(&logging.VoidLogger{}) })
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	s := &Store{prefix: cfg.Prefix}
	if cfg.Addr != "" {
		s.primary = goredis.NewClient(options(cfg.Addr, timeout))
		for _, a := range cfg.Replicas {
			s.readers = append(s.readers, goredis.NewClient(options(a, timeout)))
		}
		s.desc = "redis " + cfg.Addr
		if cfg.ReadReplicas {
			s.desc += ", reads from replicas " + strings.Join(cfg.Replicas, ",")
		}
	} else {
		s.primary = goredis.NewFailoverClient(failoverOptions(cfg, timeout, false))
		if cfg.ReadReplicas {
			s.readers = []*goredis.Client{goredis.NewFailoverClient(failoverOptions(cfg, timeout, true))}
		}
		s.desc = fmt.Sprintf("redis primary %q of sentinels %s", cfg.MasterName, strings.Join(cfg.Sentinels, ","))
		if cfg.ReadReplicas {
			s.desc += ", reads from its replicas"
		}
	}
	s.desc += fmt.Sprintf(" (timeout %v)", timeout)
	return s, nil
}

// options are the client options for one server: each command bounded by
// timeout and tried once, so that failures reach the error policy as they
// happen instead of being retried away.
func options(addr string, timeout time.Duration) *goredis.Options {
	return &goredis.Options{
		Addr:                     addr,
		DialTimeout:              timeout,
		ReadTimeout:              timeout,
		WriteTimeout:             timeout,
		PoolTimeout:              timeout,
		ContextTimeoutEnabled:    true,
		MaxRetries:               -1,
		DialerRetries:            1,
		DisableIdentity:          true,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	}
}

// failoverOptions are options's for the primary (or, with replicas, a
// replica) the sentinels name.
func failoverOptions(cfg Config, timeout time.Duration, replicas bool) *goredis.FailoverOptions {
	return &goredis.FailoverOptions{
		MasterName:            cfg.MasterName,
		SentinelAddrs:         cfg.Sentinels,
		ReplicaOnly:           replicas,
		DialTimeout:           timeout,
		ReadTimeout:           timeout,
		WriteTimeout:          timeout,
		PoolTimeout:           timeout,
		ContextTimeoutEnabled: true,
		MaxRetries:            -1,
		DialerRetries:         1,
		DisableIdentity:       true,
	}
}

// String says which Redis the store uses and how it reads.
func (s *Store) String() string { return s.desc }

// reader returns the client the next read goes to.
func (s *Store) reader() *goredis.Client {
	switch len(s.readers) {
	case 0:
		return s.primary
	case 1:
		return s.readers[0]
	}
	return s.readers[(s.next.Add(1)-1)%uint64(len(s.readers))]
}

// Get reads key with GET. A missing key returns found == false and no error.
func (s *Store) Get(ctx context.Context, key string) (string, bool, error) {
	v, err := s.reader().Get(ctx, s.prefix+key).Result()
	if errors.Is(err, goredis.Nil) {
		return "", false, nil
	}
	if err != nil {
		return "", false, s.mapError(ctx, "get", key, err)
	}
	return v, true, nil
}

// GetPrimary reads key with GET on the primary, whatever the store reads
// from: what the primary holds (the ledger's final counts).
func (s *Store) GetPrimary(ctx context.Context, key string) (string, bool, error) {
	v, err := s.primary.Get(ctx, s.prefix+key).Result()
	if errors.Is(err, goredis.Nil) {
		return "", false, nil
	}
	if err != nil {
		return "", false, s.mapError(ctx, "get", key, err)
	}
	return v, true, nil
}

// Put writes value under key with SET key value EX ttl, the TTL rounded up
// to whole seconds, on the primary. A TTL under a second is refused, as
// Redis refuses EX 0.
func (s *Store) Put(ctx context.Context, key, value string, ttl time.Duration) error {
	if ttl < time.Second {
		return &kv.Error{Kind: kv.InvalidTTL, Op: "put", Key: key,
			Msg: fmt.Sprintf("redis SET %s: a TTL of %v is under EX's one second", escape.Line(key), ttl)}
	}
	secs := (ttl + time.Second - 1) / time.Second
	if err := s.primary.SetEx(ctx, s.prefix+key, value, secs*time.Second).Err(); err != nil {
		return s.mapError(ctx, "put", key, err)
	}
	return nil
}

// Check is the preflight a live attack runs before sending load: a PING to
// the primary and to every reader, with an error saying what to check.
func (s *Store) Check(ctx context.Context) error {
	for _, c := range append([]*goredis.Client{s.primary}, s.readers...) {
		if err := c.Ping(ctx).Err(); err != nil {
			return fmt.Errorf("redis store preflight on %s: %s: check that the server is running and the address is right", s, shorten(err.Error()))
		}
	}
	return nil
}

// Close closes the store's connections.
func (s *Store) Close() error {
	err := s.primary.Close()
	for _, c := range s.readers {
		err = errors.Join(err, c.Close())
	}
	return err
}

// mapError turns a failed command into the KV contract's error: always
// kv.Unavailable (Redis has none of Workers KV's limits), whose message says
// what happened and whose cause is go-redis's error, or the context's when
// it ended.
func (s *Store) mapError(ctx context.Context, op, key string, err error) *kv.Error {
	cause := err
	if ctx.Err() != nil {
		cause = ctx.Err()
	}
	why := shorten(err.Error())
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		why = "timeout: " + why
	}
	e := kv.NewUnavailable(op, key, "redis: "+why)
	e.Err = cause
	return e
}

// shorten keeps a server's or the network's message to one readable line.
func shorten(msg string) string {
	msg = escape.Line(strings.Join(strings.Fields(msg), " "))
	if len(msg) > 200 {
		msg = msg[:200] + "..."
	}
	return msg
}
