package attack

import (
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/scenario"
	"github.com/overshoot-dev/overshoot/internal/target"
)

// Response headers the runner's own transport adds for the result consumer
// and removes again before a result is written: they never reach the
// results file.
const (
	// hdrSent is when the request was handed to the network (Unix ns)
	// after a think time: the start of its latency. Without think time
	// vegeta's own timestamp (taken just before the request is built) is
	// used.
	hdrSent = "X-Overshoot-Internal-Sent"
	// hdrSentKey is the caller identity the request carried (token:ip as
	// the limiter computes it), added only when the target does not echo
	// X-Overshoot-Key.
	hdrSentKey = "X-Overshoot-Internal-Key"
)

// newBaseTransport is the HTTP transport every population shares, set up as
// vegeta's attacker sets up its own (keep-alive, many idle connections).
func newBaseTransport() *http.Transport {
	d := &net.Dialer{KeepAlive: 30 * time.Second, Timeout: 10 * time.Second}
	return &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         d.DialContext,
		MaxIdleConnsPerHost: 10000,
		ForceAttemptHTTP2:   false,
	}
}

// transport wraps the base transport for one population: it sleeps the
// closed loop's think time before sending (a bot's pause between a response
// and its next request), notes when the request really left and which
// identity it carried, and passes both to the consumer in response headers.
type transport struct {
	base   http.RoundTripper
	think  scenario.Latency // zero: no think time
	token  limiter.TokenSource
	mu     sync.Mutex
	rng    *rand.Rand
	hasKey bool
}

func newTransport(base http.RoundTripper, think scenario.Latency, token limiter.TokenSource, seed uint64) *transport {
	return &transport{base: base, think: think, token: token, rng: rand.New(rand.NewPCG(seed, 0x5eed))}
}

// RoundTrip implements http.RoundTripper.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	var sent time.Time
	if !t.think.IsZero() {
		t.mu.Lock()
		d := t.think.Quantile(t.rng.Float64())
		t.mu.Unlock()
		if d > 0 {
			timer := time.NewTimer(d)
			select {
			case <-timer.C:
			case <-req.Context().Done():
				timer.Stop()
				return nil, req.Context().Err()
			}
			sent = time.Now()
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.Header == nil {
		resp.Header = http.Header{}
	}
	if !sent.IsZero() {
		// The request left after its think time: its latency starts here.
		resp.Header[hdrSent] = []string{strconv.FormatInt(sent.UnixNano(), 10)}
	}
	if _, ok := resp.Header[target.HeaderKey]; !ok {
		// The target does not say how it keyed the request: note the
		// identity it carried.
		resp.Header[hdrSentKey] = []string{limiter.Caller(t.token.Token(req), req.Header)}
	}
	return resp, nil
}
