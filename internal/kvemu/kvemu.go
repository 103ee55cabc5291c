// Package kvemu emulates the part of the Cloudflare REST API that a Workers KV
// store uses: reading, writing and deleting values in a namespace. It exists so
// the cloudflare store can be tested, and tried by hand, without an account.
//
// The emulator serves
//
//	GET    /client/v4/accounts/{account_id}/storage/kv/namespaces/{namespace_id}/values/{key_name}
//	PUT    /client/v4/accounts/{account_id}/storage/kv/namespaces/{namespace_id}/values/{key_name}?expiration_ttl=N
//	DELETE /client/v4/accounts/{account_id}/storage/kv/namespaces/{namespace_id}/values/{key_name}
//
// with the envelopes the real API answers with ({"success":false,"errors":
// [{"code":...,"message":...}],"messages":[],"result":null}) and enforces the
// published rules of Workers KV (docs/facts.md): at most one
// write per second to a key (429), expiration_ttl of at least 60 seconds (400),
// keys of at most 512 bytes (414), expiry, and optionally the free plan's daily
// quotas. Time comes from an injected clock, so tests can step over a second or
// a TTL without sleeping.
//
// The error codes are listed with the constants below, each with where it comes
// from; where Cloudflare publishes no code the constant says it was chosen here.
package kvemu

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/loopback"
)

// Prefix is the path under which the emulator serves the API, as
// api.cloudflare.com does: a client's base URL is the server's address
// followed by Prefix.
const Prefix = "/client/v4/"

// MaxValueBytes is the largest value Workers KV stores: 25 MiB (kv/platform/limits).
const MaxValueBytes = 25 << 20

// maxMetadataBytes is the largest metadata Workers KV stores with a key:
// 1024 bytes (kv/platform/limits).
const maxMetadataBytes = 1024

// API error codes the emulator answers with.
//
// Sources: the Workers KV error table of the v4 API documentation as wrangler
// 1 (cloudflare/wrangler-legacy, src/commands/kv/mod.rs) groups it: 10009 key
// errors; 10010-10014 and 10018 namespace errors; 10022, 10024, 10030 limit
// errors. The general codes 7000, 7001 and 10000 are the ones every v4 endpoint
// uses. Codes marked "chosen here" are not published for this case.
const (
	// CodeNoRoute is the v4 API's "No route for that URI" (404).
	CodeNoRoute = 7000
	// CodeMethodNotAllowed is the v4 API's "Method not allowed for this API" (405).
	CodeMethodNotAllowed = 7001
	// CodeAuthentication is "Authentication error": a missing, wrong or
	// insufficient token (403), also for an account the token cannot reach.
	CodeAuthentication = 10000
	// CodeKeyNotFound is "key not found" (404 on GET or DELETE of a missing key).
	CodeKeyNotFound = 10009
	// CodeNamespaceNotFound is "namespace not found" (404).
	CodeNamespaceNotFound = 10013
	// CodeMalformedValue is "malformed value" (400): a body that cannot be read.
	CodeMalformedValue = 10012
	// CodeTooManyRequests is the v4 table's "too many requests": the second
	// write to one key within a second (429). The table names no separate code
	// for the per-key write limit.
	CodeTooManyRequests = 10022
	// CodePayloadTooLarge is "payload too large": a value over 25 MiB (413).
	CodePayloadTooLarge = 10024
	// CodeKeyTooLong is "key too long": a key over 512 bytes (414).
	CodeKeyTooLong = 10030
	// CodeInvalidExpirationTTL is "invalid expiration ttl" (400), with the
	// message the runtime throws ("Invalid expiration_ttl of N. Expiration TTL
	// must be at least 60.").
	CodeInvalidExpirationTTL = 10033
	// CodeInvalidExpiration is "invalid expiration" (400) for an absolute
	// expiration that is malformed or less than 60 s in the future.
	CodeInvalidExpiration = 10032
	// CodeBadURI is the v4 API's "Could not route to ..., perhaps your object
	// identifier is invalid?" (400). Used here, through Listener, with a
	// message saying what was wrong, for a request net/http refuses before the
	// emulator sees it: most often a key holding a '%' not followed by two
	// hex digits.
	CodeBadURI = 7003
	// CodeIllegalKeyName is "illegal key name" (400): the keys "." and "..".
	CodeIllegalKeyName = 10042
	// CodeDailyQuota is the free plan's daily quota running out (429). Chosen
	// here: Cloudflare publishes the message ("KV put() limit exceeded for the
	// day.") but no code; clients should match the message.
	CodeDailyQuota = 10048
)

// Config says which account, token and namespaces the emulator knows, and
// which optional limits it enforces.
type Config struct {
	// AccountID is the only account the emulator serves; other account IDs
	// get 403 Authentication error, as a token scoped to one account does.
	AccountID string
	// Token is the API token requests must carry as "Authorization: Bearer <Token>".
	Token string
	// Namespaces are the namespace IDs that exist; others get 404 namespace not found.
	Namespaces []string
	// Now is the clock; nil means time.Now. Tests inject a fake clock to step
	// over the write limit and TTLs without sleeping.
	Now func() time.Time
	// DailyWrites, when positive, is the free plan's daily write quota for the
	// account (1,000 on the free plan); writes and deletes past it fail until
	// 00:00 UTC. Zero means no quota.
	DailyWrites int
	// DailyReads, when positive, is the daily read quota (100,000 on the free
	// plan). Zero means no quota.
	DailyReads int
	// BodyTimeout bounds how long a put's body may take to arrive, on the
	// wall clock (a request served over a connection); zero means
	// DefaultBodyTimeout. A body still arriving then is answered 408.
	BodyTimeout time.Duration
}

// DefaultBodyTimeout is Config.BodyTimeout's default: a 25 MiB value
// arrives in well under it over loopback.
const DefaultBodyTimeout = 10 * time.Second

// Stats counts what the emulator has served, for tests and the command's log.
type Stats struct {
	Reads, Writes, Deletes int // successful operations
	RateLimited            int // writes refused by the 1 write/s per-key limit
	Rejected               int // every other refused request
}

// Emulator is an http.Handler serving the Workers KV values endpoints from
// memory. It is safe for concurrent use.
type Emulator struct {
	account    string
	token      string
	now        func() time.Time
	dailyRead  int
	dailyWrite int
	bodyWait   time.Duration

	mu         sync.Mutex
	namespaces map[string]map[string]*entry
	day        string // the UTC date the quota counters belong to
	readsToday int
	writeToday int
	stats      Stats
	// writes counts puts and deletes since the last sweep, and kept the
	// entries that sweep kept (sweep).
	writes, kept int
}

type entry struct {
	value     []byte
	expires   time.Time // zero: never
	lastWrite time.Time
	deleted   bool // a deleted key keeps its last write time for the rate limit
}

// New returns an emulator for cfg. It fails when the account, the token or
// the namespaces are missing, since a client could never reach it then.
func New(cfg Config) (*Emulator, error) {
	if cfg.AccountID == "" || strings.Contains(cfg.AccountID, "/") {
		return nil, fmt.Errorf("kvemu: account ID %q is empty or contains '/': give a plain identifier", cfg.AccountID)
	}
	if cfg.Token == "" {
		return nil, fmt.Errorf("kvemu: empty token: give the token clients must send")
	}
	if len(cfg.Namespaces) == 0 {
		return nil, fmt.Errorf("kvemu: no namespaces: give at least one namespace ID")
	}
	e := &Emulator{
		account:    cfg.AccountID,
		token:      cfg.Token,
		now:        cfg.Now,
		dailyRead:  cfg.DailyReads,
		dailyWrite: cfg.DailyWrites,
		bodyWait:   cfg.BodyTimeout,
		namespaces: make(map[string]map[string]*entry),
	}
	if e.now == nil {
		e.now = time.Now
	}
	if e.bodyWait <= 0 {
		e.bodyWait = DefaultBodyTimeout
	}
	for _, ns := range cfg.Namespaces {
		if ns == "" || strings.Contains(ns, "/") {
			return nil, fmt.Errorf("kvemu: namespace ID %q is empty or contains '/': give a plain identifier", ns)
		}
		e.namespaces[ns] = make(map[string]*entry)
	}
	return e, nil
}

// Stats returns the counts so far.
func (e *Emulator) Stats() Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stats
}

// apiError is one failure: the HTTP status and the envelope's code and message.
type apiError struct {
	status  int
	code    int
	message string
}

type responseInfo struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type envelope struct {
	Success  bool           `json:"success"`
	Errors   []responseInfo `json:"errors"`
	Messages []responseInfo `json:"messages"`
	Result   any            `json:"result"`
}

func writeEnvelope(w http.ResponseWriter, status int, env envelope) {
	if env.Errors == nil {
		env.Errors = []responseInfo{}
	}
	if env.Messages == nil {
		env.Messages = []responseInfo{}
	}
	body, _ := json.Marshal(env) // cannot fail: plain strings and numbers
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func writeError(w http.ResponseWriter, err *apiError) {
	writeEnvelope(w, err.status, envelope{Errors: []responseInfo{{Code: err.code, Message: err.message}}})
}

// ServeHTTP answers one API request.
func (e *Emulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := e.serve(w, r); err != nil {
		e.mu.Lock()
		if err.status == http.StatusTooManyRequests && err.code == CodeTooManyRequests {
			e.stats.RateLimited++
		} else {
			e.stats.Rejected++
		}
		e.mu.Unlock()
		writeError(w, err)
	}
}

// route is a parsed values URL.
type route struct {
	account, namespace, key string
}

// parsePath splits an escaped request path into account, namespace and key.
// The key is everything after "/values/", percent-decoded, as the API does for
// namespaces that support URL encoding (all namespaces created since 2022).
func parsePath(escaped string) (route, bool) {
	rest, ok := strings.CutPrefix(escaped, Prefix+"accounts/")
	if !ok {
		return route{}, false
	}
	account, rest, ok := strings.Cut(rest, "/")
	if !ok {
		return route{}, false
	}
	rest, ok = strings.CutPrefix(rest, "storage/kv/namespaces/")
	if !ok {
		return route{}, false
	}
	namespace, rawKey, ok := strings.Cut(rest, "/values/")
	if !ok || namespace == "" || strings.Contains(namespace, "/") || rawKey == "" {
		return route{}, false
	}
	acct, err1 := url.PathUnescape(account)
	ns, err2 := url.PathUnescape(namespace)
	key, err3 := url.PathUnescape(rawKey)
	if err1 != nil || err2 != nil || err3 != nil || acct == "" || key == "" {
		return route{}, false
	}
	return route{account: acct, namespace: ns, key: key}, true
}

// badEscapeHint says what makes a request path undecodable and what to do
// (net/http refuses such a request before ServeHTTP; see Listener).
const badEscapeHint = "a '%' in the path must start an escape of two hex digits: " +
	"write '%' in a key as %25 (url.PathEscape, encodeURIComponent)"

func (e *Emulator) serve(w http.ResponseWriter, r *http.Request) *apiError {
	rt, ok := parsePath(r.URL.EscapedPath())
	if !ok {
		return &apiError{http.StatusNotFound, CodeNoRoute, "No route for that URI"}
	}
	if !e.authorized(r.Header.Get("Authorization")) || rt.account != e.account {
		return &apiError{http.StatusForbidden, CodeAuthentication, "Authentication error"}
	}
	var op string
	switch r.Method {
	case http.MethodGet:
		op = "get"
	case http.MethodPut:
		op = "put"
	case http.MethodDelete:
		op = "delete"
	default:
		return &apiError{http.StatusMethodNotAllowed, CodeMethodNotAllowed, "Method not allowed for this API"}
	}
	if len(rt.key) > kv.MaxKeyBytes {
		return &apiError{http.StatusRequestURITooLong, CodeKeyTooLong,
			fmt.Sprintf("UTF-8 encoded length of %d exceeds key length limit of %d.", len(rt.key), kv.MaxKeyBytes)}
	}
	if rt.key == "." || rt.key == ".." {
		return &apiError{http.StatusBadRequest, CodeIllegalKeyName, fmt.Sprintf("Illegal key name %q: \".\" and \"..\" are not allowed.", rt.key)}
	}
	switch op {
	case "get":
		return e.get(w, rt)
	case "put":
		return e.put(w, r, rt)
	default:
		return e.delete(w, rt)
	}
}

// authorized compares the bearer token in constant time. The scheme is
// case-insensitive and may be followed by more than one space (RFC 9110,
// section 11.1 and 11.4).
func (e *Emulator) authorized(header string) bool {
	scheme, got, ok := strings.Cut(header, " ")
	got = strings.TrimLeft(got, " ")
	return ok && strings.EqualFold(scheme, "Bearer") && subtle.ConstantTimeCompare([]byte(got), []byte(e.token)) == 1
}

// rollDay resets the daily quota counters at 00:00 UTC. Callers hold e.mu.
func (e *Emulator) rollDay(now time.Time) {
	if day := now.UTC().Format(time.DateOnly); day != e.day {
		e.day, e.readsToday, e.writeToday = day, 0, 0
	}
}

// lookup returns the live entry for key, dropping it when it has expired.
// Callers hold e.mu.
func lookup(ns map[string]*entry, key string, now time.Time) *entry {
	ent := ns[key]
	if ent == nil || ent.deleted {
		return nil
	}
	if !ent.expires.IsZero() && !now.Before(ent.expires) {
		// Keep the write time: the write limit outlives the value.
		ent.deleted, ent.value = true, nil
		return nil
	}
	return ent
}

func (e *Emulator) get(w http.ResponseWriter, rt route) *apiError {
	now := e.now()
	e.mu.Lock()
	ns, ok := e.namespaces[rt.namespace]
	if !ok {
		e.mu.Unlock()
		return &apiError{http.StatusNotFound, CodeNamespaceNotFound, "get: 'namespace not found'"}
	}
	e.rollDay(now)
	if e.dailyRead > 0 && e.readsToday >= e.dailyRead {
		e.mu.Unlock()
		return &apiError{http.StatusTooManyRequests, CodeDailyQuota, "KV get() limit exceeded for the day."}
	}
	e.readsToday++ // reads of missing keys are billed too
	ent := lookup(ns, rt.key, now)
	if ent == nil {
		e.mu.Unlock()
		return &apiError{http.StatusNotFound, CodeKeyNotFound, "get: 'key not found'"}
	}
	value, expires := ent.value, ent.expires
	e.stats.Reads++
	e.mu.Unlock()

	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.Itoa(len(value)))
	if !expires.IsZero() {
		w.Header().Set("Expiration", strconv.FormatInt(expires.Unix(), 10))
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(value)
	return nil
}

// expiry works out when a put expires from its query: expiration_ttl wins over
// expiration, as the API documents. Zero means never.
func expiry(q url.Values, now time.Time) (time.Time, *apiError) {
	if raw, ok := q["expiration_ttl"]; ok && len(raw) > 0 {
		s := raw[0]
		n, ok := integer(s)
		if !ok || n <= 0 || n > math.MaxInt32 {
			return time.Time{}, &apiError{http.StatusBadRequest, CodeInvalidExpirationTTL,
				fmt.Sprintf("Invalid expiration_ttl of %s. Please specify integer greater than 0.", s)}
		}
		if n < int64(kv.MinTTL.Seconds()) {
			return time.Time{}, &apiError{http.StatusBadRequest, CodeInvalidExpirationTTL,
				fmt.Sprintf("Invalid expiration_ttl of %d. Expiration TTL must be at least 60.", n)}
		}
		return now.Add(time.Duration(n) * time.Second), nil
	}
	if raw, ok := q["expiration"]; ok && len(raw) > 0 {
		s := raw[0]
		n, ok := integer(s)
		if !ok || n <= now.Unix() || n > math.MaxInt64/2 {
			return time.Time{}, &apiError{http.StatusBadRequest, CodeInvalidExpiration,
				fmt.Sprintf("Invalid expiration of %s. Please specify integer greater than the current number of seconds since the UNIX epoch.", s)}
		}
		at := time.Unix(n, 0)
		if at.Sub(now) < kv.MinTTL {
			return time.Time{}, &apiError{http.StatusBadRequest, CodeInvalidExpiration,
				fmt.Sprintf("Invalid expiration of %s. Expiration times must be at least 60 seconds in the future.", s)}
		}
		return at, nil
	}
	return time.Time{}, nil
}

// integer reads a query's integer field: decimal digits only, as the API
// documents them, so that 1e2, 60.0, +60 and 0x10 are refused rather than
// read as numbers.
func integer(s string) (int64, bool) {
	if s == "" || len(s) > 18 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// maxBodyBytes bounds how much of a put's body is read: enough to count the
// length of a value or metadata part somewhat over its limit, for the message.
const maxBodyBytes = 4 * MaxValueBytes

// readValue reads the value of a put: the "value" part of a multipart form
// (what cloudflare-go v6 sends, with an optional "metadata" part) or else the
// raw body.
func readValue(r *http.Request) ([]byte, *apiError) {
	body := &io.LimitedReader{R: r.Body, N: maxBodyBytes + 1}
	// tooLarge reads what is left of rest to report the real length of what
	// was too large (a lower bound when the body goes past maxBodyBytes).
	tooLarge := func(what string, data []byte, rest io.Reader, limit int) *apiError {
		more, _ := io.Copy(io.Discard, rest)
		n := fmt.Sprint(int64(len(data)) + more)
		if body.N == 0 {
			n = fmt.Sprint("more than ", int64(len(data))+more-1)
		}
		return &apiError{http.StatusRequestEntityTooLarge, CodePayloadTooLarge,
			fmt.Sprintf("%s length of %s exceeds limit of %d.", what, n, limit)}
	}
	mediaType, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mediaType != "multipart/form-data" {
		value, err := io.ReadAll(io.LimitReader(body, MaxValueBytes+1))
		if err != nil {
			return nil, &apiError{http.StatusBadRequest, CodeMalformedValue, "malformed value: " + err.Error()}
		}
		if len(value) > MaxValueBytes {
			return nil, tooLarge("Value", value, body, MaxValueBytes)
		}
		return value, nil
	}
	mr := multipart.NewReader(body, params["boundary"])
	var value []byte
	found := false
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &apiError{http.StatusBadRequest, CodeMalformedValue, "malformed multipart body: " + err.Error()}
		}
		data, err := io.ReadAll(io.LimitReader(part, MaxValueBytes+1))
		if err != nil {
			return nil, &apiError{http.StatusBadRequest, CodeMalformedValue, "malformed multipart body: " + err.Error()}
		}
		switch part.FormName() {
		case "value":
			if len(data) > MaxValueBytes {
				return nil, tooLarge("Value", data, part, MaxValueBytes)
			}
			value, found = data, true
		case "metadata":
			if len(data) > maxMetadataBytes {
				return nil, tooLarge("Metadata", data, part, maxMetadataBytes)
			}
		}
	}
	if !found {
		return nil, &apiError{http.StatusBadRequest, CodeMalformedValue, "malformed value: the multipart form has no \"value\" part"}
	}
	return value, nil
}

// admitWrite applies the daily quota and the per-key write limit to a write
// at now. Callers hold e.mu.
func (e *Emulator) admitWrite(ns map[string]*entry, key, op string, now time.Time) *apiError {
	e.rollDay(now)
	if e.dailyWrite > 0 && e.writeToday >= e.dailyWrite {
		return &apiError{http.StatusTooManyRequests, CodeDailyQuota, fmt.Sprintf("KV %s() limit exceeded for the day.", op)}
	}
	// At most one write per second to one key (kv/platform/limits); a refused
	// write does not move the window.
	if ent := ns[key]; ent != nil && now.Sub(ent.lastWrite) < time.Second {
		return &apiError{http.StatusTooManyRequests, CodeTooManyRequests,
			"KV PUT failed: 429 Too Many Requests: at most one write per second to the same key"}
	}
	return nil
}

func (e *Emulator) put(w http.ResponseWriter, r *http.Request, rt route) *apiError {
	e.mu.Lock()
	_, ok := e.namespaces[rt.namespace]
	e.mu.Unlock()
	if !ok {
		return &apiError{http.StatusNotFound, CodeNamespaceNotFound, "put: 'namespace not found'"}
	}
	// A body that trickles in must not hold the connection for ever. The
	// deadline is on the wall clock; a ResponseWriter without a
	// connection (a test's recorder) has none to set.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(e.bodyWait))
	value, aerr := readValue(r)
	_ = rc.SetReadDeadline(time.Time{})
	if aerr != nil {
		if aerr.code == CodeMalformedValue && strings.Contains(aerr.message, os.ErrDeadlineExceeded.Error()) {
			w.Header().Set("Connection", "close")
			return &apiError{http.StatusRequestTimeout, CodeMalformedValue, fmt.Sprintf("malformed value: the body did not arrive within %v", e.bodyWait)}
		}
		return aerr
	}
	now := e.now()
	expires, aerr := expiry(r.URL.Query(), now)
	if aerr != nil {
		return aerr
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	ns := e.namespaces[rt.namespace]
	if aerr := e.admitWrite(ns, rt.key, "put", now); aerr != nil {
		return aerr
	}
	e.writeToday++
	e.stats.Writes++
	ns[rt.key] = &entry{value: value, expires: expires, lastWrite: now}
	e.sweep(now)
	writeEnvelope(w, http.StatusOK, envelope{Success: true, Result: struct{}{}})
	return nil
}

func (e *Emulator) delete(w http.ResponseWriter, rt route) *apiError {
	now := e.now()
	e.mu.Lock()
	defer e.mu.Unlock()
	ns, ok := e.namespaces[rt.namespace]
	if !ok {
		return &apiError{http.StatusNotFound, CodeNamespaceNotFound, "delete: 'namespace not found'"}
	}
	// A delete is billed and limited as a write; deleting a missing key succeeds.
	if aerr := e.admitWrite(ns, rt.key, "delete", now); aerr != nil {
		return aerr
	}
	e.writeToday++
	e.stats.Deletes++
	ns[rt.key] = &entry{lastWrite: now, deleted: true}
	e.sweep(now)
	writeEnvelope(w, http.StatusOK, envelope{Success: true, Result: struct{}{}})
	return nil
}

// minSweep is the fewest writes between two sweeps.
const minSweep = 1024

// sweep frees the deleted and expired entries whose last write is a second
// old or more (the write limit needs nothing older), once the writes since
// the last sweep reach the entries it kept (and minSweep): the cost of a
// sweep is spread over at least as many writes as it looks at entries, and
// at most about twice what is live is held. Callers hold e.mu.
func (e *Emulator) sweep(now time.Time) {
	e.writes++
	if e.writes < max(minSweep, e.kept) {
		return
	}
	e.writes, e.kept = 0, 0
	for _, ns := range e.namespaces {
		for k, ent := range ns {
			gone := ent.deleted || !ent.expires.IsZero() && !now.Before(ent.expires)
			if gone && now.Sub(ent.lastWrite) >= time.Second {
				delete(ns, k)
			}
		}
		e.kept += len(ns)
	}
}

// CheckLoopback returns an error unless addr (host:port) names a loopback
// address: the emulator is for local tests and must not be reachable from
// other machines. "localhost" counts as loopback; an empty host (all
// interfaces) does not.
func CheckLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("kvemu: address %q is not host:port (e.g. 127.0.0.1:8787): %v", addr, err)
	}
	if !loopback.Host(host) {
		return fmt.Errorf("kvemu: address %q is not a loopback address: use 127.0.0.1, ::1 or localhost", addr)
	}
	return nil
}
