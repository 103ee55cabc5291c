package eventual

import "context"

// locationKey is the context key of a request's location.
type locationKey struct{}

// WithLocation returns ctx carrying the location (point of presence) a
// request arrives at. The built-in target sets it from the
// X-Overshoot-Location header; a store with per-location caches reads it with
// LocationFrom. Stores without locations ignore it.
func WithLocation(ctx context.Context, location string) context.Context {
	return context.WithValue(ctx, locationKey{}, location)
}

// LocationFrom returns the location WithLocation put in ctx, or "" when none
// was set.
func LocationFrom(ctx context.Context) string {
	s, _ := ctx.Value(locationKey{}).(string)
	return s
}
