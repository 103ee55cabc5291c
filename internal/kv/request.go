package kv

import "context"

// Request is what one limiter request tells the stores it calls: where it
// arrives, and room for a store to remember what the request did across its
// calls (the eventual store keeps the versions its reads returned, so that
// the write that follows can be checked for a lost update). A request's
// calls are sequential, so State needs no lock.
type Request struct {
	// Location is the point of presence the request arrives at; "" is the
	// first.
	Location string
	// State belongs to the store serving the request.
	State any
}

// requestKey is the context key of a request's Request.
type requestKey struct{}

// WithLocation returns ctx carrying a new Request arriving at location. The
// built-in target sets it once per HTTP request, from the
// X-Overshoot-Location header; stores without locations ignore it. Use one
// such context per request.
func WithLocation(ctx context.Context, location string) context.Context {
	return context.WithValue(ctx, requestKey{}, &Request{Location: location})
}

// RequestFrom returns the Request WithLocation put in ctx, or nil.
func RequestFrom(ctx context.Context) *Request {
	r, _ := ctx.Value(requestKey{}).(*Request)
	return r
}

// LocationFrom returns the location WithLocation put in ctx, or "".
func LocationFrom(ctx context.Context) string {
	if r := RequestFrom(ctx); r != nil {
		return r.Location
	}
	return ""
}
