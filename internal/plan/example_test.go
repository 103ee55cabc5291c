package plan_test

import (
	"fmt"

	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// A scenario is parsed and validated once, then compiled into a plan that
// both drivers run. A population says who sends each request: the token
// and address of client k's request n, and the caller the limiter keys it
// by.
func Example() {
	sc, err := scenario.Parse("office.yaml", []byte(`
name: office
limiter: {name: api, limit: 10, window: 1m}
locations: [{name: lhr}, {name: ams}]
traffic:
  - name: staff
    clients: 3
    identity: {token: per-client, ip: nat, nat_pool: 2}
    arrive: {mode: alternate}
    open_loop: {rate: 1/s}
  - name: bot
    clients: 1
    identity: {token: rotating, rotate_every: 2}
    closed_loop: {concurrency: 1, think: 100ms}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	pl, err := plan.Compile(sc)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range pl.Populations {
		for k := range p.Clients {
			for n := range int64(2) {
				fmt.Printf("%s client %d request %d: %s at %s\n", p.Name, p.First+k, n,
					p.Caller(k, n), pl.Locations[p.Location(plan.Draws{}, n)])
			}
		}
	}
	bot := pl.Populations[1]
	fmt.Println("bot request 4:", bot.Caller(0, 4))
	// Output:
	// staff client 0 request 0: anon-p0-c0:100.64.0.0 at lhr
	// staff client 0 request 1: anon-p0-c0:100.64.0.0 at ams
	// staff client 1 request 0: anon-p0-c1:100.64.0.1 at lhr
	// staff client 1 request 1: anon-p0-c1:100.64.0.1 at ams
	// staff client 2 request 0: anon-p0-c2:100.64.0.0 at lhr
	// staff client 2 request 1: anon-p0-c2:100.64.0.0 at ams
	// bot client 3 request 0: anon-p1-c0-r0:10.0.0.3 at lhr
	// bot client 3 request 1: anon-p1-c0-r0:10.0.0.3 at lhr
	// bot request 4: anon-p1-c0-r2:10.0.0.3
}
