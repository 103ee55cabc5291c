// Package cloudflare is a kv.Store over a real Workers KV namespace, spoken to
// through the Cloudflare REST API with github.com/cloudflare/cloudflare-go/v6.
// It lets the built-in target run the limiter on the real store, so a live
// attack measures Workers KV itself rather than a model of it.
//
// Every call is one API request with retries off, so throttling shows as the
// error it is. API failures become the KV contract's typed errors: a 429 is
// kv.ErrWriteRateLimited, a TTL under 60 s kv.ErrInvalidTTL, the free plan's
// daily quota kv.ErrDailyQuota, a key over 512 bytes kv.ErrKeyTooLong; a
// refused token or a wrong account or namespace is kv.ErrUnavailable with a
// message saying what to check, whose cause (kv.Error.Err) is ErrAuth or
// ErrNamespaceNotFound.
//
// The API token is a Token: it prints as "[redacted]" in every format, and no
// error this package returns contains it.
package cloudflare

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	cfkv "github.com/cloudflare/cloudflare-go/v6/kv"
	"github.com/cloudflare/cloudflare-go/v6/option"
	"github.com/cloudflare/cloudflare-go/v6/shared"

	"github.com/overshoot-dev/overshoot/internal/escape"
	"github.com/overshoot-dev/overshoot/internal/kv"
)

// The environment variables the configuration comes from.
const (
	EnvToken   = "CLOUDFLARE_API_TOKEN"
	EnvAccount = "CLOUDFLARE_ACCOUNT_ID"
)

// DefaultBaseURL is the Cloudflare API's address.
const DefaultBaseURL = "https://api.cloudflare.com/client/v4/"

// DefaultTimeout bounds one API request when Config.Timeout is zero, so a
// hung connection becomes an error the limiter can fail open on.
const DefaultTimeout = 10 * time.Second

// maxValueBytes is the largest value Workers KV stores (kv/platform/limits);
// a longer body is not a value of ours.
const maxValueBytes = 25 << 20

// Token is a Cloudflare API token. It formats as "[redacted]" with every fmt
// verb, in JSON and in slog, so printing a Config or logging it cannot leak it.
// Only the request's Authorization header carries the real value.
type Token string

const redacted = "[redacted]"

// String returns "[redacted]", never the token.
func (Token) String() string { return redacted }

// GoString returns "[redacted]", never the token, for %#v.
func (Token) GoString() string { return redacted }

// Format writes "[redacted]" for every verb (%s, %v, %q, %x, %#v, ...).
func (Token) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, redacted) }

// MarshalText returns "[redacted]", so JSON and YAML writers never see the token.
func (Token) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// LogValue returns "[redacted]" for log/slog.
func (Token) LogValue() slog.Value { return slog.StringValue(redacted) }

// Config says which namespace to use and how to reach the API.
type Config struct {
	// AccountID is the Cloudflare account that owns the namespace.
	AccountID string
	// Token is an API token with Workers KV Storage read and write permission
	// on the account.
	Token Token
	// NamespaceID is the Workers KV namespace's ID (not its title).
	NamespaceID string
	// BaseURL is the API's address; empty means DefaultBaseURL. Tests point it
	// at the emulator (kvemu).
	BaseURL string
	// HTTPClient sends the requests; nil means a client of its own.
	HTTPClient *http.Client
	// Timeout bounds each request; zero means DefaultTimeout.
	Timeout time.Duration
}

// ConfigFromEnv builds a Config for namespaceID from CLOUDFLARE_API_TOKEN and
// CLOUDFLARE_ACCOUNT_ID. It reads nothing else: cloudflare-go's own client
// would also pick up CLOUDFLARE_API_KEY, CLOUDFLARE_EMAIL and
// CLOUDFLARE_BASE_URL, and this package deliberately does not.
func ConfigFromEnv(namespaceID string) (Config, error) {
	return ConfigFromLookup(os.LookupEnv, namespaceID)
}

// ConfigFromLookup is ConfigFromEnv with the environment given as a lookup
// function, for tests and callers that keep their own environment.
func ConfigFromLookup(lookup func(string) (string, bool), namespaceID string) (Config, error) {
	token, _ := lookup(EnvToken)
	account, _ := lookup(EnvAccount)
	var missing []string
	if strings.TrimSpace(token) == "" {
		missing = append(missing, EnvToken+" (an API token with Workers KV Storage edit permission)")
	}
	if strings.TrimSpace(account) == "" {
		missing = append(missing, EnvAccount+" (the account ID shown in the Cloudflare dashboard)")
	}
	if len(missing) > 0 {
		return Config{}, fmt.Errorf("cloudflare store: environment variable %s not set", strings.Join(missing, " and "))
	}
	cfg := Config{AccountID: strings.TrimSpace(account), Token: Token(strings.TrimSpace(token)), NamespaceID: namespaceID}
	return cfg, cfg.validate()
}

func (c Config) validate() error {
	if c.Token == "" {
		return fmt.Errorf("cloudflare store: no API token: set %s", EnvToken)
	}
	if c.AccountID == "" {
		return fmt.Errorf("cloudflare store: no account ID: set %s", EnvAccount)
	}
	if strings.ContainsAny(c.AccountID, "/?#% ") {
		return fmt.Errorf("cloudflare store: account ID %q is not an identifier: check %s", c.AccountID, EnvAccount)
	}
	if c.NamespaceID == "" {
		return errors.New("cloudflare store: no namespace ID: give the ID of a Workers KV namespace (wrangler kv namespace list)")
	}
	if strings.ContainsAny(c.NamespaceID, "/?#% ") {
		return fmt.Errorf("cloudflare store: namespace ID %q is not an identifier: give the namespace's ID, not its title", c.NamespaceID)
	}
	if c.BaseURL != "" {
		u, err := url.Parse(c.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("cloudflare store: base URL %q is not an http(s) URL", c.BaseURL)
		}
	}
	return nil
}

// Errors a refused request also matches, besides its kv kind, so callers can
// tell a misconfiguration from an outage with errors.Is.
var (
	// ErrAuth is a token the API refused, or one without access to the account.
	ErrAuth = errors.New("cloudflare: authentication refused")
	// ErrNamespaceNotFound is a namespace ID the account does not have.
	ErrNamespaceNotFound = errors.New("cloudflare: namespace not found")
	// ErrRedirect is an API answer that redirected elsewhere. The store never
	// follows one: the token would go to another server, and the run would
	// measure that server instead of the namespace it names.
	ErrRedirect = errors.New("cloudflare: the API answered with a redirect")
)

// Store is a kv.Store on one Workers KV namespace. It is safe for concurrent use.
type Store struct {
	account   string
	namespace string
	base      string
	token     Token
	values    *cfkv.NamespaceValueService
}

var _ kv.Store = (*Store)(nil)

// New returns a store for cfg. It makes no request; call Check to find out
// whether the token, account and namespace work.
func New(cfg Config) (*Store, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	base := cfg.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	client := noRedirects(cfg.HTTPClient)
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	// The service is built from explicit options only: cloudflare.NewClient
	// would add credentials and a base URL from CLOUDFLARE_* variables.
	values := cfkv.NewNamespaceValueService(
		option.WithBaseURL(base),
		option.WithAPIToken(string(cfg.Token)),
		option.WithMaxRetries(0),
		option.WithHTTPClient(client),
		option.WithRequestTimeout(timeout),
	)
	return &Store{account: cfg.AccountID, namespace: cfg.NamespaceID, base: base, token: cfg.Token, values: values}, nil
}

// noRedirects returns a copy of client (a new one when nil) that never
// follows a redirect: the token would go along to a host the user did not
// name, and the run would measure that host. The caller's client is unchanged.
func noRedirects(client *http.Client) *http.Client {
	c := &http.Client{}
	if client != nil {
		*c = *client
	}
	c.CheckRedirect = func(req *http.Request, _ []*http.Request) error {
		status := 0
		if req.Response != nil {
			status = req.Response.StatusCode
		}
		return &redirectError{status: status, to: req.URL.Scheme + "://" + req.URL.Host + req.URL.Path}
	}
	return c
}

// redirectError is a redirect the store refused to follow; it matches
// ErrRedirect. to is the target without userinfo or query.
type redirectError struct {
	status int
	to     string
}

func (e *redirectError) Error() string {
	return fmt.Sprintf("%d redirect to %s", e.status, e.to)
}

func (e *redirectError) Is(target error) bool { return target == ErrRedirect }

// String names the store without its token.
func (s *Store) String() string {
	return fmt.Sprintf("cloudflare KV namespace %s (account %s, %s)", s.namespace, s.account, s.base)
}

// Format prints String for every verb, so %#v cannot reach the token field.
func (s *Store) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, s.String()) }

// escapeKey makes key one path segment. The API decodes it again; "." and
// ".." are escaped in full so URL resolution cannot treat them as dot segments.
func escapeKey(key string) string {
	if key == "." || key == ".." {
		return strings.Repeat("%2E", len(key))
	}
	return url.PathEscape(key)
}

// Get reads key. A missing key returns found == false and no error.
func (s *Store) Get(ctx context.Context, key string) (string, bool, error) {
	if key == "" {
		return "", false, kv.NewUnavailable("get", key, "empty key: Workers KV keys are 1 to 512 bytes")
	}
	var params cfkv.NamespaceValueGetParams
	params.AccountID.Value, params.AccountID.Present = s.account, true
	res, err := s.values.Get(ctx, s.namespace, escapeKey(key), params)
	if err != nil {
		if isKeyNotFound(err) {
			return "", false, nil
		}
		return "", false, s.mapError(ctx, "get", key, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxValueBytes+1))
	if err != nil {
		return "", false, s.mapError(ctx, "get", key, err)
	}
	if len(body) > maxValueBytes {
		return "", false, kv.NewUnavailable("get", key, fmt.Sprintf("the value is over %d bytes", maxValueBytes))
	}
	return string(body), true, nil
}

// Put writes value under key with expiration_ttl = ttl in whole seconds.
// The API refuses a TTL under 60 s (kv.ErrInvalidTTL) and a second write to
// the key within a second (kv.ErrWriteRateLimited).
func (s *Store) Put(ctx context.Context, key, value string, ttl time.Duration) error {
	if key == "" {
		return kv.NewUnavailable("put", key, "empty key: Workers KV keys are 1 to 512 bytes")
	}
	// The params' fields are cloudflare-go's param.Field, set by hand: its
	// constructor F lives in the root package, which builds the whole SDK.
	var params cfkv.NamespaceValueUpdateParams
	params.AccountID.Value, params.AccountID.Present = s.account, true
	params.Value.Value, params.Value.Present = shared.UnionString(value), true
	params.ExpirationTTL.Value, params.ExpirationTTL.Present = float64(int64(ttl/time.Second)), true
	_, err := s.values.Update(ctx, s.namespace, escapeKey(key), params)
	if err != nil {
		e := s.mapError(ctx, "put", key, err)
		if e.Kind == kv.InvalidTTL && ttl < kv.MinTTL {
			// The contract's message, which names the TTL that was asked for.
			return kv.NewInvalidTTL(key, ttl)
		}
		return e
	}
	return nil
}

// Check is the preflight a live attack runs before sending load: it reads one
// key, which proves the token, the account and the namespace work, and returns
// an error saying what to fix when they do not.
func (s *Store) Check(ctx context.Context) error {
	_, _, err := s.Get(ctx, "overshoot:preflight")
	if err != nil {
		return fmt.Errorf("cloudflare store preflight on %s: %w", s, err)
	}
	return nil
}

func isKeyNotFound(err error) bool {
	var apiErr *cfkv.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound {
		return false
	}
	codes, _ := details(apiErr)
	for _, c := range codes {
		if c == codeKeyNotFound {
			return true
		}
	}
	return false
}

// The API codes the mapping looks at (see internal/kvemu for their sources).
const (
	codeAuthentication    = 10000
	codeKeyNotFound       = 10009
	codeNamespaceNotFound = 10013
	codeKeyTooLong        = 10030
	codeInvalidTTL        = 10033
)

// details returns the envelope's error codes and its messages joined.
func details(apiErr *cfkv.Error) ([]int, string) {
	var codes []int
	var msgs []string
	for _, e := range apiErr.Errors {
		codes = append(codes, int(e.Code))
		if e.Message != "" {
			msgs = append(msgs, e.Message)
		}
	}
	return codes, strings.Join(msgs, "; ")
}

func hasCode(codes []int, want int) bool {
	for _, c := range codes {
		if c == want {
			return true
		}
	}
	return false
}

// shorten keeps an API message to one readable line, with any control
// character written out so that it cannot reach a terminal raw.
func shorten(msg string) string {
	msg = escape.Line(strings.Join(strings.Fields(msg), " "))
	if len(msg) > 200 {
		msg = msg[:200] + "..."
	}
	return msg
}

// mapError turns a failed request into the KV contract's error, with the
// token scrubbed from anything that came back. A refused token or a missing
// namespace also matches ErrAuth or ErrNamespaceNotFound; a transport failure
// or a cancelled context matches its cause.
func (s *Store) mapError(ctx context.Context, op, key string, err error) *kv.Error {
	out := s.classify(ctx, op, key, err)
	if s.token != "" && strings.Contains(out.Msg, string(s.token)) {
		out.Msg = strings.ReplaceAll(out.Msg, string(s.token), redacted)
	}
	return out
}

func (s *Store) classify(ctx context.Context, op, key string, err error) *kv.Error {
	var apiErr *cfkv.Error
	if !errors.As(err, &apiErr) {
		cause := err
		var urlErr *url.Error
		if errors.As(err, &urlErr) {
			// Drop the method and URL: the key is already in the error.
			cause = urlErr.Err
		}
		if ctx.Err() != nil {
			cause = ctx.Err()
		}
		var redir *redirectError
		if errors.As(err, &redir) {
			e := kv.NewUnavailable(op, key, fmt.Sprintf("the Cloudflare API at %s answered with a %s, which overshoot never follows (the token would go with it): check the base URL", s.base, shorten(redir.Error())))
			e.Err = redir
			return e
		}
		e := kv.NewUnavailable(op, key, fmt.Sprintf("cannot reach the Cloudflare API at %s: %s", s.base, shorten(cause.Error())))
		e.Err = cause
		return e
	}
	status := apiErr.StatusCode
	codes, msg := details(apiErr)
	if msg == "" {
		msg = http.StatusText(status)
	}
	msg = shorten(msg)
	codeText := ""
	if len(codes) > 0 {
		codeText = fmt.Sprintf(", code %d", codes[0])
	}
	switch {
	case strings.Contains(msg, "limit exceeded for the day"):
		return kv.NewDailyQuota(op, key)
	case status == http.StatusTooManyRequests && op != "put":
		// Only writes have a per-key limit: a 429 on a read is the REST
		// API's own request rate limit, which a run through the API can hit
		// long before Workers KV's limits matter.
		return kv.NewUnavailable(op, key, fmt.Sprintf("429 %s%s: the Cloudflare API's request rate limit, not a Workers KV limit: make the run smaller (-max-requests, -duration) or slower", msg, codeText))
	case status == http.StatusTooManyRequests:
		e := kv.NewWriteRateLimited(key)
		e.Op = op
		return e
	case hasCode(codes, codeInvalidTTL) || (status == http.StatusBadRequest && strings.Contains(msg, "expiration_ttl")):
		e := kv.NewInvalidTTL(key, 0)
		e.Msg = "KV PUT failed: 400 " + msg
		return e
	case status == http.StatusRequestURITooLong || hasCode(codes, codeKeyTooLong):
		return kv.NewKeyTooLong(op, key)
	case status == http.StatusUnauthorized || status == http.StatusForbidden || hasCode(codes, codeAuthentication):
		e := kv.NewUnavailable(op, key, fmt.Sprintf("%d %s%s: the API refused the token: check that %s is current and has Workers KV Storage edit permission on account %s (%s)",
			status, msg, codeText, EnvToken, s.account, EnvAccount))
		e.Err = ErrAuth
		return e
	case hasCode(codes, codeNamespaceNotFound) || (status == http.StatusNotFound && strings.Contains(msg, "namespace")):
		e := kv.NewUnavailable(op, key, fmt.Sprintf("%d %s%s: namespace %s not found in account %s: check the namespace ID (wrangler kv namespace list) and %s",
			status, msg, codeText, s.namespace, s.account, EnvAccount))
		e.Err = ErrNamespaceNotFound
		return e
	case status == http.StatusNotFound:
		return kv.NewUnavailable(op, key, fmt.Sprintf("404 %s%s: no such API route at %s: check the base URL", msg, codeText, s.base))
	}
	return kv.NewUnavailable(op, key, fmt.Sprintf("%d %s%s", status, msg, codeText))
}
