package attack

import (
	"context"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/target"
)

// Response headers the runner's own transport adds for the result consumer
// and removes again before a result is written: they never reach the
// results file.
const (
	// hdrSentKey is the caller identity the request carried (token:ip as
	// the limiter computes it), added only when the target does not echo
	// X-Overshoot-Key.
	hdrSentKey = "X-Overshoot-Internal-Key"
	// hdrSentClient is the HeaderClient the request carried.
	hdrSentClient = "X-Overshoot-Internal-Client"
)

// HeaderClient is sent with every request: the index of the client that
// sends it, counted across the run's populations as the simulator counts
// them. Targets may ignore it; the runner reads it back (through its
// transport) to count false denials against each client's own allowed
// requests, since several clients can share one limiter key.
const HeaderClient = "X-Overshoot-Client"

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

// transport wraps the base transport for one population: it reads at most
// MaxBody of each response body, and hands the client index each request
// carried, and for targets that do not echo X-Overshoot-Key the identity
// it carried, to the result consumer in response headers. It also bounds
// each request, response body included, by timeout (0: no bound), which an
// http.Client's Timeout would do at a higher price: for a RoundTripper it
// does not know, the client starts a goroutine and a timer per request,
// about a fifth of the runner's CPU per request beyond vegeta's against the
// built-in target.
type transport struct {
	base    http.RoundTripper
	token   limiter.TokenSource
	key     limiter.KeyBy // what the limiter keys on, for the identity noted
	timeout time.Duration
	// echoClient says whether to hand on the client index; when the
	// consumer knows it already, leaving it out spares the response's
	// header map a growth (an allocation) and a delete per request.
	echoClient bool
}

func newTransport(base http.RoundTripper, token limiter.TokenSource, key limiter.KeyBy, timeout time.Duration) *transport {
	return &transport{base: base, token: token, key: key, timeout: timeout, echoClient: true}
}

// cancelBody ends its request's context when the body is closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// MaxBody is how much of a response body attack reads and keeps in its
// results: a limiter's answer is its status and headers, and a target that
// answers with a huge or endless body must not fill memory or the results
// file, nor hold a request open until its timeout. The rest of a longer
// body is not read (its connection is closed, not reused).
const MaxBody = 4 << 10

// boundedBody reads at most left bytes of a body, then reports its end.
type boundedBody struct {
	io.ReadCloser
	left int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// RoundTrip implements http.RoundTripper.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	var resp *http.Response
	var err error
	if t.timeout > 0 {
		ctx, cancel := context.WithTimeout(req.Context(), t.timeout)
		if resp, err = t.base.RoundTrip(req.WithContext(ctx)); err != nil {
			cancel()
			return nil, err
		}
		resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	} else if resp, err = t.base.RoundTrip(req); err != nil {
		return nil, err
	}
	resp.Body = &boundedBody{ReadCloser: resp.Body, left: MaxBody}
	if resp.Header == nil {
		resp.Header = http.Header{}
	}
	if c, ok := req.Header[HeaderClient]; ok && t.echoClient {
		resp.Header[hdrSentClient] = c
	}
	if _, ok := resp.Header[target.HeaderKey]; !ok {
		// The target does not say how it keyed the request: note the
		// identity it carried.
		resp.Header[hdrSentKey] = []string{t.key.Caller(t.token.Token(req), req.Header)}
	}
	return resp, nil
}

// NoRedirects is an HTTP client that returns a redirect as the response
// instead of following it: a limiter answers 2xx or 429 itself, and a
// followed redirect (to a login page, say) would be counted as allowed.
func NoRedirects(tr http.RoundTripper, timeout time.Duration) *http.Client {
	return &http.Client{Transport: tr, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}
