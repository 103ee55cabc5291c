// Package kv is the contract between the limiter and the key-value stores it
// can run on: Workers KV as simulated, an in-memory reference, and the real
// Cloudflare REST API. It holds the interface and the typed errors that carry
// the real messages Workers KV throws (see docs/facts.md),
// so a limiter driven over any store sees the same failures, and Updater,
// the optional interface of a store that applies the limiter's atomic
// update in one step (the memory store, Redis; never Workers KV).
package kv

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// MinTTL is the smallest expirationTtl Workers KV accepts (kv/api/write-key-value-pairs).
const MinTTL = 60 * time.Second

// MaxKeyBytes is the longest key Workers KV accepts (kv/platform/limits).
const MaxKeyBytes = 512

// Store is what a limiter needs from a key-value store: read a value, and
// write one with a time to live. A missing key is not an error: Get reports it
// with found == false. Implementations must be safe for concurrent use.
type Store interface {
	// Get returns the value stored under key and whether the key exists.
	Get(ctx context.Context, key string) (value string, found bool, err error)
	// Put stores value under key; the key expires ttl after this write.
	Put(ctx context.Context, key, value string, ttl time.Duration) error
}

// Value is what a key held when an atomic update read it: its value, and
// whether it existed.
type Value struct {
	Value string
	Found bool
}

// Put is a write an atomic update makes: value under key, expiring after
// TTL; with KeepTTL a key that holds a live value keeps its expiry, and TTL
// applies only when the write creates it (Redis's INCR, then EXPIRE on the
// first increment). An empty Key writes nothing.
type Put struct {
	Key, Value string
	TTL        time.Duration
	KeepTTL    bool
}

// Update is one atomic read-modify-write of up to two keys: the limiter's
// pure update, which a store applies at its primary in one step.
type Update struct {
	// Keys are the keys the update reads; only the first NKeys are used.
	Keys  [2]string
	NKeys int
	// Apply is the update: given what the keys hold, the write to make and
	// whether the request is allowed. It is pure, and a store that runs Go
	// where its data is (the memory stores) calls it under its lock.
	Apply func(cur [2]Value) (w Put, allowed bool)
	// Script names the same update for a store that runs it where the
	// data is in a language of its own (Redis: a Lua script), with its
	// arguments: the limiter's algorithm and what it needs (limit, window,
	// now, ...), as the store's documentation lists them.
	Script string
	Args   []int64
}

// Updater is a Store that applies atomic updates: the optional interface
// of the limiter's atomic shape. A store that is not one refuses that shape.
type Updater interface {
	Store
	// Update applies u in one step and returns what the keys held before
	// it, which u.Apply was given. A store error means the update may not
	// have been applied; the limiter's error policy decides.
	Update(ctx context.Context, u *Update) (cur [2]Value, err error)
}

// Wrapper is a Store over another store that can say whether the store
// beneath applies atomic updates (a wrapper that adds latency or counts
// work has an Update method that passes the update on, or fails).
type Wrapper interface {
	CanUpdate() bool
}

// CanUpdate reports whether s applies atomic updates: it is an Updater,
// and a Wrapper among them says the store beneath is one too.
func CanUpdate(s Store) bool {
	if w, ok := s.(Wrapper); ok {
		return w.CanUpdate()
	}
	_, ok := s.(Updater)
	return ok
}

// ErrNoUpdate is the error of an atomic update through a wrapper whose
// store cannot apply one (CanUpdate is false); a driver checks CanUpdate
// first and refuses the limiter instead.
var ErrNoUpdate = errors.New("kv: the store cannot apply an atomic update: use limiter.update read-then-write, or a store that can (memory, redis)")

// UpdateThrough is a wrapper's Update: u applied by s when s is an
// Updater, else ErrNoUpdate.
func UpdateThrough(ctx context.Context, s Store, u *Update) ([2]Value, error) {
	if up, ok := s.(Updater); ok && CanUpdate(s) {
		return up.Update(ctx, u)
	}
	return [2]Value{}, ErrNoUpdate
}

// Kind says which of the published failure modes an Error is.
type Kind int

// The failure kinds a store reports. Their messages are the ones Workers KV
// really throws, so logs from a simulation read like logs from production.
const (
	// Unavailable is any failure of the store itself: an outage, a network
	// error, an injected error rate.
	Unavailable Kind = iota + 1
	// WriteRateLimited is the per-key write limit (1 write/s): HTTP 429.
	WriteRateLimited
	// InvalidTTL is an expirationTtl under 60 seconds: HTTP 400.
	InvalidTTL
	// DailyQuota is the free plan's daily read or write quota running out.
	DailyQuota
	// KeyTooLong is a key over 512 bytes.
	KeyTooLong
)

// String names the kind as summaries and logs print it.
func (k Kind) String() string {
	switch k {
	case Unavailable:
		return "unavailable"
	case WriteRateLimited:
		return "write-rate-limited"
	case InvalidTTL:
		return "invalid-ttl"
	case DailyQuota:
		return "daily-quota"
	case KeyTooLong:
		return "key-too-long"
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Error is a store failure of a known kind. Msg is the message Workers KV
// gives for it, so a caller can log exactly what a Worker would have caught.
type Error struct {
	Kind Kind
	Op   string // "get" or "put"
	Key  string
	Msg  string
	// Err is the cause, when there is one beneath the store's message (a
	// cancelled context, a network error); errors.Is and errors.As see it.
	Err error
}

// Error returns the store's message, as a Worker's catch block would see it.
// A sentinel, which has no message, names its kind.
func (e *Error) Error() string {
	if e.Msg == "" {
		return "kv: " + e.Kind.String()
	}
	return e.Msg
}

// Unwrap returns the cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// Is lets errors.Is match an Error against the sentinel of its kind.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Msg == "" && t.Kind == e.Kind
}

// Sentinels for errors.Is: errors.Is(err, kv.ErrWriteRateLimited) is true for
// every 429 whatever its key.
var (
	ErrUnavailable      = &Error{Kind: Unavailable}
	ErrWriteRateLimited = &Error{Kind: WriteRateLimited}
	ErrInvalidTTL       = &Error{Kind: InvalidTTL}
	ErrDailyQuota       = &Error{Kind: DailyQuota}
	ErrKeyTooLong       = &Error{Kind: KeyTooLong}
)

// NewWriteRateLimited is the error a second write to one key within a second
// raises: the message Workers KV throws in a Worker.
func NewWriteRateLimited(key string) *Error {
	return &Error{Kind: WriteRateLimited, Op: "put", Key: key, Msg: "KV PUT failed: 429 Too Many Requests"}
}

// NewInvalidTTL is the error a put with an expirationTtl under 60 s raises;
// the text is the one Miniflare mirrors from production.
func NewInvalidTTL(key string, ttl time.Duration) *Error {
	return &Error{Kind: InvalidTTL, Op: "put", Key: key,
		Msg: fmt.Sprintf("Invalid expiration_ttl of %d. Expiration TTL must be at least 60.", int64(ttl/time.Second))}
}

// NewDailyQuota is the error the free plan raises once the day's quota of op
// ("get" or "put") is spent; it resets at 00:00 UTC.
func NewDailyQuota(op, key string) *Error {
	return &Error{Kind: DailyQuota, Op: op, Key: key, Msg: fmt.Sprintf("KV %s() limit exceeded for the day.", op)}
}

// NewKeyTooLong is the error for a key over 512 bytes, with the text Workers
// report for it (e.g. "KV GET failed: 414 UTF-8 encoded length of 737
// exceeds key length limit of 512.", as seen in a Worker's error body).
func NewKeyTooLong(op, key string) *Error {
	return &Error{Kind: KeyTooLong, Op: op, Key: key,
		Msg: fmt.Sprintf("KV %s failed: 414 UTF-8 encoded length of %d exceeds key length limit of %d.", strings.ToUpper(op), len(key), MaxKeyBytes)}
}

// NewUnavailable is a generic store failure (outage, injected error), in the
// shape of the runtime's messages: "KV GET failed: <why>".
func NewUnavailable(op, key, why string) *Error {
	return &Error{Kind: Unavailable, Op: op, Key: key, Msg: fmt.Sprintf("KV %s failed: %s", strings.ToUpper(op), why)}
}

// WrapUnavailable is NewUnavailable for a failure with a Go cause (a
// cancelled context, a network error): the message carries the cause's text
// and errors.Is still finds the cause.
func WrapUnavailable(op, key string, cause error) *Error {
	e := NewUnavailable(op, key, cause.Error())
	e.Err = cause
	return e
}

// KindOf returns the kind of a store error, or 0 when err is nil or not a
// store error.
func KindOf(err error) Kind {
	if e, ok := err.(*Error); ok { // the usual case, without errors.As's allocation
		return e.Kind
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return 0
}

// CheckPut applies the rules every Workers KV put obeys before it reaches
// storage: key length and minimum TTL. Stores call it so the rules live in
// one place.
func CheckPut(key string, ttl time.Duration) error {
	if len(key) > MaxKeyBytes {
		return NewKeyTooLong("put", key)
	}
	if ttl < MinTTL {
		return NewInvalidTTL(key, ttl)
	}
	return nil
}
