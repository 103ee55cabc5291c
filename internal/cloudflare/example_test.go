package cloudflare_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/overshoot-dev/overshoot/internal/cloudflare"
	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/kvemu"
)

// A store on a namespace, here served by the emulator; against the real API,
// build the Config with cloudflare.ConfigFromEnv(namespaceID) and leave
// BaseURL empty.
func Example() {
	emu, _ := kvemu.New(kvemu.Config{AccountID: "acct", Token: "secret", Namespaces: []string{"ns"}})
	srv := httptest.NewServer(emu)
	defer srv.Close()

	store, err := cloudflare.New(cloudflare.Config{
		AccountID: "acct", Token: "secret", NamespaceID: "ns",
		BaseURL: srv.URL + kvemu.Prefix,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	if err := store.Check(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(store.Put(ctx, "rl:default:tok:10.0.0.1:42", "1", time.Minute))
	value, found, _ := store.Get(ctx, "rl:default:tok:10.0.0.1:42")
	fmt.Println(value, found)

	// A second write to the key within a second is refused, as Workers KV does.
	err = store.Put(ctx, "rl:default:tok:10.0.0.1:42", "2", time.Minute)
	fmt.Println(errors.Is(err, kv.ErrWriteRateLimited), err)
	// Output:
	// <nil>
	// 1 true
	// true KV PUT failed: 429 Too Many Requests
}

// The token prints as [redacted] however it is formatted.
func ExampleToken() {
	cfg := cloudflare.Config{AccountID: "acct", Token: "secret", NamespaceID: "ns"}
	fmt.Printf("%v\n%+v\n", cfg.Token, cfg)
	// Output:
	// [redacted]
	// {AccountID:acct Token:[redacted] NamespaceID:ns BaseURL: HTTPClient:<nil> Timeout:0s}
}
