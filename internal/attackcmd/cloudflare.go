package attackcmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/overshoot-dev/overshoot/internal/cloudflare"
	"github.com/overshoot-dev/overshoot/internal/plan"
)

// StoreCloudflare is the -store name of a real Workers KV namespace spoken to
// over the Cloudflare REST API (internal/cloudflare).
const StoreCloudflare = plan.LiveCloudflare

// DefaultCloudflareMaxRequests bounds a -store cloudflare run when neither
// -max-requests nor the scenario's live.max_requests does: every request
// costs real, billed API calls (a read, often a write), and an unbounded
// closed loop makes thousands of them in seconds.
const DefaultCloudflareMaxRequests = 500

// cloudflareFlags are the flags of -store cloudflare. The API token and the
// account come only from the environment (CLOUDFLARE_API_TOKEN,
// CLOUDFLARE_ACCOUNT_ID), never from a flag, so that they stay out of shell
// history and process listings.
type cloudflareFlags struct {
	namespace string
	baseURL   string
}

// register adds -namespace and -cf-base-url to fs.
func (f *cloudflareFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.namespace, "namespace", "", "with -store cloudflare: the Workers KV namespace `ID` (wrangler kv namespace list); token and account from "+
		cloudflare.EnvToken+" and "+cloudflare.EnvAccount)
	fs.StringVar(&f.baseURL, "cf-base-url", "", "with -store cloudflare: the API's base `URL` (default "+cloudflare.DefaultBaseURL+"; e.g. the emulator's, go run ./cmd/kvemu)")
}

// validate checks the cloudflare flags against the chosen store, before
// anything else happens.
func (f *cloudflareFlags) validate(store plan.LiveStore, url string) error {
	if store != StoreCloudflare {
		if f.namespace != "" || f.baseURL != "" {
			return fmt.Errorf("-namespace and -cf-base-url go with -store cloudflare (the store is %s)", store)
		}
		return nil
	}
	if url != "" {
		return fmt.Errorf("-store cloudflare runs the built-in target on a namespace; -url attacks another target: give one or the other")
	}
	if f.namespace == "" {
		return fmt.Errorf("-store cloudflare needs -namespace ID: the ID of a Workers KV namespace (wrangler kv namespace list; for the emulator, the one go run ./cmd/kvemu prints)")
	}
	return nil
}

// newBuiltinStore returns the built-in target's store as the command line
// names it: memory or eventual through NewStore, cloudflare, or redis
// (redis.go, which pings the servers first). For
// cloudflare it reads the token and account from the environment and runs
// the store's preflight (one read) before any load, so that a missing
// variable, a refused token or an unknown namespace is a clear error before
// anything is written. What a store says after its run (-redis-harness:
// the faults it applied) goes to stderr.
func (c *config) newBuiltinStore(ctx context.Context, pl *plan.Plan, seed uint64, stderr io.Writer) (*BuiltinStore, error) {
	switch c.store {
	case StoreCloudflare:
		return newCloudflareStore(ctx, c.cf.namespace, c.cf.baseURL, c.timeout)
	case StoreRedis:
		return newRedisStore(ctx, &c.rd, pl, runDuration(c, pl), stderr)
	}
	return NewStore(c.store, pl, seed)
}

// newCloudflareStore opens namespace through the API at baseURL ("" for
// Cloudflare's), checks that it answers, and wraps it to count KV work.
func newCloudflareStore(ctx context.Context, namespace, baseURL string, timeout time.Duration) (*BuiltinStore, error) {
	cfg, err := cloudflare.ConfigFromEnv(namespace)
	if err != nil {
		return nil, err
	}
	cfg.BaseURL = baseURL
	cfg.Timeout = timeout
	s, err := cloudflare.New(cfg)
	if err != nil {
		return nil, err
	}
	check, cancel := context.WithTimeout(ctx, min(timeout, 15*time.Second))
	defer cancel()
	if err := s.Check(check); err != nil {
		return nil, err
	}
	cs := NewCountingStore(s)
	return &BuiltinStore{Store: cs, AddTo: cs.AddTo, Describe: s.String()}, nil
}
