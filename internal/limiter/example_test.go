package limiter_test

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/limiter"
)

// A driver asks Plan which keys to read, reads them however it likes (here
// from a map; the simulator schedules the reads as events), and hands what
// it read to Decide, which says what to answer and what to write.
func Example_planDecide() {
	l, err := limiter.New(limiter.Config{Name: "roast", Limit: 2, Window: 24 * time.Hour})
	if err != nil {
		panic(err)
	}
	store := map[string]string{}
	now := time.Unix(293120*86400, 0)
	for range 3 {
		p := l.Plan(now, "anon_abc:1.2.3.4")
		v, found := store[p.Keys[0]]
		d := l.Decide(p, [2]limiter.Read{{Value: v, Found: found}})
		if d.Write.Key != "" {
			store[d.Write.Key] = d.Write.Value // expiring after d.Write.TTL
		}
		fmt.Printf("allowed=%v remaining=%d write=%q ttl=%v\n", d.Allowed, d.Remaining, d.Write.Value, d.Write.TTL)
	}
	fmt.Println(store)
	// Output:
	// allowed=true remaining=1 write="1" ttl=24h0m0s
	// allowed=true remaining=0 write="2" ttl=24h0m0s
	// allowed=false remaining=0 write="" ttl=0s
	// map[rl:roast:anon_abc:1.2.3.4:293120:2]
}

// Check is the live driver: read, decide and write over any kv.Store, with
// the error policy deciding when the store fails.
func ExampleLimiter_Check() {
	l, err := limiter.New(limiter.Config{Name: "api", Limit: 1, Window: time.Minute})
	if err != nil {
		panic(err)
	}
	store := kv.NewMemory(kv.MemoryOptions{})
	now := time.Now()
	h := http.Header{"X-Forwarded-For": {" 203.0.113.7 , 10.0.0.1"}}
	caller := limiter.Caller("anon_abc", h)
	for range 2 {
		d := l.Check(context.Background(), store, now, caller)
		fmt.Println(caller, d.Allowed, d.Remaining, d.FailOpen)
	}
	// Output:
	// anon_abc:203.0.113.7 true 0 false
	// anon_abc:203.0.113.7 false 0 false
}

// Failed is what a driver calls when a read or the write failed: the seed
// fails open, allowing with remaining = limit, and says so.
func ExampleLimiter_Failed() {
	l, _ := limiter.New(limiter.Config{Name: "api", Limit: 5, Window: time.Minute})
	p := l.Plan(time.Now(), "anon:unknown")
	d := l.Failed(p, kv.NewWriteRateLimited(p.Keys[0]))
	fmt.Println(d.Allowed, d.Remaining, d.FailOpen, d.Err)
	// Output: true 5 true KV PUT failed: 429 Too Many Requests
}

// The ip part follows JavaScript's ??: a present but empty header is used.
func ExampleCaller() {
	fmt.Println(limiter.Caller("tok", http.Header{"Cf-Connecting-Ip": {""}, "X-Forwarded-For": {"1.2.3.4"}}))
	fmt.Println(limiter.Caller("tok", http.Header{"X-Forwarded-For": {" 1.2.3.4 , 5.6.7.8"}}))
	fmt.Println(limiter.Caller("tok", http.Header{}))
	// Output:
	// tok:
	// tok:1.2.3.4
	// tok:unknown
}

func ExampleParseCount() {
	for _, raw := range []string{" 7", "7abc", "-3", "0x10", "1e3", "abc"} {
		fmt.Print(limiter.ParseCount(raw), " ")
	}
	fmt.Println()
	// Output: 7 7 -3 0 1 0
}
