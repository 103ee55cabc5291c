package eventual

import (
	"context"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/model"
)

// request is what the eventual store remembers of one limiter request
// across its calls (kv.Request.State): the cache domain its first read used
// and the versions its reads returned, so that the write that follows can
// be checked for a lost update.
type request struct {
	domain int // the cache domain its first read used (model.AnyDomain before)
	reads  [2]readVersion
	n      int
	// slept is the sum of the latencies the model gave its operations:
	// what the model's request latency is made of (StoreTime).
	slept time.Duration
}

type readVersion struct {
	key     string
	version uint64
}

// requestFrom returns the store's state of the request ctx carries (made on
// its first call), or nil when ctx carries none (kv.WithLocation).
func requestFrom(ctx context.Context) *request {
	kr := kv.RequestFrom(ctx)
	if kr == nil {
		return nil
	}
	r, _ := kr.State.(*request)
	if r == nil {
		r = &request{domain: model.AnyDomain}
		kr.State = r
	}
	return r
}

// noteRead remembers the version a read of key returned.
func (r *request) noteRead(key string, version uint64) {
	if r == nil {
		return
	}
	for i := 0; i < r.n; i++ {
		if r.reads[i].key == key {
			r.reads[i].version = version
			return
		}
	}
	if r.n < len(r.reads) {
		r.reads[r.n] = readVersion{key, version}
		r.n++
	}
}

// readOf returns the version the request read for key, if it read it.
func (r *request) readOf(key string) (uint64, bool) {
	if r == nil {
		return 0, false
	}
	for i := 0; i < r.n; i++ {
		if r.reads[i].key == key {
			return r.reads[i].version, true
		}
	}
	return 0, false
}

// domainOf returns the cache domain the request used so far.
func (r *request) domainOf() int {
	if r == nil {
		return model.AnyDomain
	}
	return r.domain
}

// noteDomain remembers the cache domain a read used.
func (r *request) noteDomain(dom int) {
	if r != nil {
		r.domain = dom
	}
}

// noteLatency adds the latency the model gave one of the request's
// operations.
func (r *request) noteLatency(d time.Duration) {
	if r != nil && d > 0 {
		r.slept += d
	}
}
