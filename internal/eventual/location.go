package eventual

import (
	"context"

	"github.com/overshoot-dev/overshoot/internal/model"
)

// requestKey is the context key of a request's state.
type requestKey struct{}

// request is what one limiter request tells the store across its calls:
// where it arrives, and the versions its reads returned, so that the write
// that follows can be checked for a lost update.
type request struct {
	location string
	domain   int // the cache domain its first read used (model.AnyDomain before)
	reads    [2]readVersion
	n        int
}

type readVersion struct {
	key     string
	version uint64
}

// WithLocation returns ctx carrying the location (point of presence) a
// request arrives at. The built-in target sets it from the
// X-Overshoot-Location header, once per request; the eventual store reads
// it, and also remembers in it what the request's reads returned. Stores
// without locations ignore it. Use one such context per request.
func WithLocation(ctx context.Context, location string) context.Context {
	return context.WithValue(ctx, requestKey{}, &request{location: location, domain: model.AnyDomain})
}

// LocationFrom returns the location WithLocation put in ctx, or "" when none
// was set.
func LocationFrom(ctx context.Context) string {
	if r, _ := ctx.Value(requestKey{}).(*request); r != nil {
		return r.location
	}
	return ""
}

func requestFrom(ctx context.Context) *request {
	r, _ := ctx.Value(requestKey{}).(*request)
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
