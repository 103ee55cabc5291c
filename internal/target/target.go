// Package target is overshoot's built-in HTTP target: the limiter from
// internal/limiter in front of a tiny handler, over any kv.Store (memory,
// eventual, cloudflare). The attack runner loads it over loopback; -serve
// exposes it to any other load tool.
//
// Every response says what the limiter decided, in headers both machines and
// people can read:
//
//	200 allowed, 429 denied
//	RateLimit-Policy: "default";q=<limit>;w=<window seconds>
//	RateLimit: "default";r=<remaining>;t=<seconds to reset>    (not on a fail-open answer)
//	Retry-After: <seconds to reset>                            (on 429, the same instant as t)
//	X-Overshoot-Window: <window id the request was counted in>
//	X-Overshoot-Key: <caller identity: token:ip, or as the limiter keys>
//	X-Overshoot-Fail-Open: 1     (the store failed and the error policy allowed)
//	X-Overshoot-Fail-Closed: 1   (the store failed and the error policy denied)
//	X-Overshoot-Service-Us: <microseconds from taking the request to answering it>
//
// A request with X-Overshoot-Warmup: 1 (attack's warm-up, which only opens
// connections) is answered 200 at once, without the limiter: the store
// does none of the work the model's trials do not, and counts none.
//
//	X-Overshoot-Store-Us: <microseconds of it the store's modeled latencies stood for>
//	                            (only over a store that models them: eventual)
//
// The service time is the target's own: the limiter's reads and writes,
// without the HTTP hop between the attacker and the target, which is what
// the model's request latency stands for when it predicts a run of the
// built-in target. Over the eventual store the target also states how much
// of it was the model's latencies (what the store slept): the rest is the
// target's own overhead (its CPU, the timers' lateness, waiting for a
// core), which the model has no part for.
//
// RateLimit-Policy and RateLimit are the IETF draft's
// (draft-ietf-httpapi-ratelimit-headers, checked against revision 11).
// The window and key headers let the attacker count exactly which key-window
// each request landed in, instead of guessing from its own clock.
//
// The request's location (point of presence) comes from X-Overshoot-Location;
// it is handed to the store through the context (kv.WithLocation), so
// that a store with per-location caches serves it from that location.
package target

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/loopback"
)

// Header names the target reads and writes, in canonical form.
const (
	// HeaderLocation carries the point of presence a request arrives at.
	HeaderLocation = "X-Overshoot-Location"
	// HeaderWindow carries the id of the window the request was counted in.
	HeaderWindow = "X-Overshoot-Window"
	// HeaderKey carries the caller identity the limiter keyed the request by.
	HeaderKey = "X-Overshoot-Key"
	// HeaderService carries the target's own time for the request, from
	// taking it to answering it, in whole microseconds.
	HeaderService = "X-Overshoot-Service-Us"
	// HeaderStore carries how much of the service time the store's modeled
	// latencies stood for, in whole microseconds (a TimedStore only).
	HeaderStore = "X-Overshoot-Store-Us"
	// HeaderFailOpen is "1" when the store failed and the request was allowed
	// anyway (the seed's behaviour); the example Worker sets the same header.
	HeaderFailOpen = "X-Overshoot-Fail-Open"
	// HeaderFailClosed is "1" when the store failed and the request was denied.
	HeaderFailClosed = "X-Overshoot-Fail-Closed"
	// HeaderWarmup is "1" on attack's warm-up requests, which open the
	// run's connections: the target answers them without the limiter.
	HeaderWarmup = "X-Overshoot-Warmup"
	// HeaderRateLimitPolicy and HeaderRateLimit are the IETF draft
	// RateLimit header fields (draft-ietf-httpapi-ratelimit-headers).
	HeaderRateLimitPolicy = "Ratelimit-Policy"
	HeaderRateLimit       = "Ratelimit"
	// HeaderRetryAfter is on every 429: seconds until the window resets.
	HeaderRetryAfter = "Retry-After"
)

// TimedStore is a store whose operations sleep latencies it models (the
// eventual store): it says how long the operations of the request ctx
// carries stood for, and false when it does not know.
type TimedStore interface {
	StoreTime(ctx context.Context) (time.Duration, bool)
}

// PolicyName is the policy name the target uses in its RateLimit headers.
const PolicyName = "default"

// Config is what a Handler needs.
type Config struct {
	// Limiter decides; Store holds its counters.
	Limiter *limiter.Limiter
	Store   kv.Store
	// Token says where requests carry their anonymous token; the zero value
	// means limiter.DefaultTokenSource (header X-Anon-Token).
	Token limiter.TokenSource
	// Key is what the limiter keys a caller on; the zero value is the
	// seed's token and IP.
	Key limiter.KeyBy
	// Now is the clock decisions are made on; nil means time.Now.
	Now func() time.Time
	// Soak, when set, is the store warm-up requests (X-Overshoot-Warmup)
	// are decided on, with the limiter, under their own token: the same
	// servers as Store without its counting, so that warm-up traffic warms
	// the servers and their connections and is counted nowhere. Nil
	// answers them without the limiter.
	Soak kv.Store
}

// Handler is the built-in target: an http.Handler that rate limits every
// request and answers 200 or 429 with the headers above.
type Handler struct {
	l      *limiter.Limiter
	store  kv.Store
	soak   kv.Store
	token  limiter.TokenSource
	key    limiter.KeyBy
	now    func() time.Time
	policy []string // the RateLimit-Policy value, the same for every response
}

var (
	bodyAllowed = []byte("ok\n")
	bodyDenied  = []byte("Too many requests\n")
	bodyWarmup  = []byte("warm-up: not counted\n")
	one         = []string{"1"}
	textPlain   = []string{"text/plain; charset=utf-8"}
)

// New checks cfg and returns its Handler. A limiter of the atomic shape
// needs a store that applies atomic updates (kv.CanUpdate: memory, redis);
// on another it is refused, never run read-then-write.
func New(cfg Config) (*Handler, error) {
	if cfg.Limiter == nil {
		return nil, fmt.Errorf("target: no limiter given: build one with limiter.New")
	}
	if cfg.Store == nil {
		return nil, fmt.Errorf("target: no store given: use kv.NewMemory, eventual.New or the cloudflare store")
	}
	if err := cfg.Limiter.CanRun(cfg.Store); err != nil {
		return nil, fmt.Errorf("target: %w", err)
	}
	if cfg.Soak != nil {
		if err := cfg.Limiter.CanRun(cfg.Soak); err != nil {
			return nil, fmt.Errorf("target: the warm-up's store: %w", err)
		}
	}
	if cfg.Token == (limiter.TokenSource{}) {
		cfg.Token = limiter.DefaultTokenSource
	}
	if err := cfg.Token.Validate(); err != nil {
		return nil, fmt.Errorf("target: %w", err)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	c := cfg.Limiter.Config()
	policy := fmt.Sprintf("%q;q=%d;w=%s", PolicyName, c.Limit, secs(c.Window))
	return &Handler{l: cfg.Limiter, store: cfg.Store, soak: cfg.Soak, token: cfg.Token, key: cfg.Key, now: cfg.Now, policy: []string{policy}}, nil
}

// secs formats d in whole seconds when it is whole, else with the shortest
// decimal: the draft's w= is an integer, but a sub-second live window must
// still be stated truthfully.
func secs(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10)
	}
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

// ServeHTTP decides for the request's caller and answers 200 or 429.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	began := time.Now() // the service time's, on the monotonic clock, whatever h.now is
	if v := r.Header[HeaderWarmup]; len(v) > 0 && v[0] == "1" {
		if h.soak != nil {
			h.l.Check(r.Context(), h.soak, h.now(), h.key.Caller(h.token.Token(r), r.Header))
		}
		// A body, so that the connection stays the warm-up's until it is read.
		w.Header()["Content-Type"] = textPlain
		w.Write(bodyWarmup)
		return
	}
	caller := h.key.Caller(h.token.Token(r), r.Header)
	// Every request gets its own store context (location, and the reads
	// the eventual store remembers for lost-update accounting).
	loc := ""
	if v := r.Header[HeaderLocation]; len(v) > 0 {
		loc = v[0]
	}
	ctx := kv.WithLocation(r.Context(), loc)
	now := h.now()
	d := h.l.Check(ctx, h.store, now, caller)

	hdr := w.Header()
	hdr["Content-Type"] = textPlain
	hdr[HeaderRateLimitPolicy] = h.policy
	reset := resetSeconds(d.Reset().Sub(now))
	if !d.FailOpen {
		// A fail-open answer was not counted, so what remains is unknown:
		// the limiter's "remaining = limit" would invite a client to keep
		// going. The draft lets a server leave the field out of any answer.
		hdr[HeaderRateLimit] = []string{rateLimitValue(d.Remaining, reset)}
	}
	hdr[HeaderWindow] = []string{strconv.FormatInt(d.Window, 10)}
	hdr[HeaderKey] = []string{caller}
	if d.FailOpen {
		hdr[HeaderFailOpen] = one
	}
	if d.FailClosed {
		hdr[HeaderFailClosed] = one
	}
	hdr[HeaderService] = []string{strconv.FormatInt(time.Since(began).Microseconds(), 10)}
	if ts, ok := h.store.(TimedStore); ok {
		if d, ok := ts.StoreTime(ctx); ok {
			hdr[HeaderStore] = []string{strconv.FormatInt(d.Microseconds(), 10)}
		}
	}
	if !d.Allowed {
		hdr[HeaderRetryAfter] = []string{strconv.FormatInt(reset, 10)}
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write(bodyDenied)
		return
	}
	w.Write(bodyAllowed)
}

// resetSeconds is the time until a window resets in whole seconds, rounded
// up as the draft's t and Retry-After's delay-seconds need (0 when the
// reset is already past).
func resetSeconds(untilReset time.Duration) int64 {
	if untilReset <= 0 {
		return 0
	}
	return int64(math.Ceil(untilReset.Seconds()))
}

// rateLimitValue is the RateLimit field: "default";r=<remaining>;t=<secs>.
func rateLimitValue(remaining, t int64) string {
	b := make([]byte, 0, 48)
	b = append(b, `"`+PolicyName+`";r=`...)
	b = strconv.AppendInt(b, remaining, 10)
	b = append(b, ";t="...)
	b = strconv.AppendInt(b, t, 10)
	return string(b)
}

// errLoopbackRefused is the error for a listen address that is not loopback.
var errLoopbackRefused = errors.New("not a loopback address: the built-in target only listens on 127.0.0.1, ::1 or localhost")

// ListenLoopback listens on addr, which must name a loopback address
// (127.0.0.0/8, ::1 or localhost): the built-in target never listens where
// other machines could reach it. Port 0 picks a free port.
func ListenLoopback(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("listen address %q is not host:port: %v (e.g. 127.0.0.1:0 or 127.0.0.1:8080)", addr, err)
	}
	if !loopback.Host(host) {
		return nil, fmt.Errorf("listen address %q: %w", addr, errLoopbackRefused)
	}
	if host == "localhost" {
		addr = net.JoinHostPort("127.0.0.1", addr[len(host)+1:])
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s: %v (is the port in use? use port 0 for a free one)", addr, err)
	}
	return ln, nil
}

// Server is a running built-in target.
type Server struct {
	srv *http.Server
	ln  net.Listener
	// done receives Serve's error once it returns.
	done      chan error
	closeOnce sync.Once
	closeErr  error
}

// Start serves h on a loopback listener at addr until Close.
func Start(addr string, h http.Handler) (*Server, error) {
	ln, err := ListenLoopback(addr)
	if err != nil {
		return nil, err
	}
	s := &Server{
		srv:  &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second},
		ln:   ln,
		done: make(chan error, 1),
	}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// Addr returns the address the server listens on (host:port).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL returns the server's base URL, http://host:port/.
func (s *Server) URL() string { return "http://" + s.Addr() + "/" }

// Close stops the server, waiting up to a few seconds for requests in
// flight. Calling it again does nothing.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.closeErr = s.srv.Shutdown(ctx)
		if s.closeErr != nil {
			s.srv.Close()
		}
		<-s.done
	})
	return s.closeErr
}
