package kv

import (
	"context"
	"testing"
)

// TestRequestContext checks that a request's location and a store's state
// travel with its context, and that a context without one reads as the
// first location.
func TestRequestContext(t *testing.T) {
	bg := context.Background()
	if LocationFrom(bg) != "" || RequestFrom(bg) != nil {
		t.Error("a bare context carries a request")
	}
	ctx := WithLocation(bg, "x")
	if LocationFrom(ctx) != "x" {
		t.Errorf("location %q, want x", LocationFrom(ctx))
	}
	RequestFrom(ctx).State = 7
	if RequestFrom(ctx).State != 7 {
		t.Error("a store's state did not stay with the request")
	}
}
