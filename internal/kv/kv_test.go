package kv

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestErrorMessagesAndKinds(t *testing.T) {
	cases := []struct {
		err      error
		msg      string
		sentinel error
		kind     Kind
	}{
		{NewWriteRateLimited("k"), "KV PUT failed: 429 Too Many Requests", ErrWriteRateLimited, WriteRateLimited},
		{NewInvalidTTL("k", 59*time.Second), "Invalid expiration_ttl of 59. Expiration TTL must be at least 60.", ErrInvalidTTL, InvalidTTL},
		{NewInvalidTTL("k", 0), "Invalid expiration_ttl of 0. Expiration TTL must be at least 60.", ErrInvalidTTL, InvalidTTL},
		{NewDailyQuota("put", "k"), "KV put() limit exceeded for the day.", ErrDailyQuota, DailyQuota},
		{NewDailyQuota("get", "k"), "KV get() limit exceeded for the day.", ErrDailyQuota, DailyQuota},
		{NewKeyTooLong("get", strings.Repeat("k", 513)), "KV GET failed: 414 UTF-8 encoded length of 513 exceeds key length limit of 512.", ErrKeyTooLong, KeyTooLong},
		{NewUnavailable("put", "k", "503 Service Unavailable"), "KV PUT failed: 503 Service Unavailable", ErrUnavailable, Unavailable},
		{fmt.Errorf("limiter: %w", NewWriteRateLimited("k")), "limiter: KV PUT failed: 429 Too Many Requests", ErrWriteRateLimited, WriteRateLimited},
	}
	all := []error{ErrUnavailable, ErrWriteRateLimited, ErrInvalidTTL, ErrDailyQuota, ErrKeyTooLong}
	for _, c := range cases {
		if c.err.Error() != c.msg {
			t.Errorf("message %q, want %q", c.err, c.msg)
		}
		if KindOf(c.err) != c.kind {
			t.Errorf("%q: KindOf = %v, want %v", c.err, KindOf(c.err), c.kind)
		}
		for _, s := range all {
			if got := errors.Is(c.err, s); got != (s == c.sentinel) {
				t.Errorf("errors.Is(%q, %v) = %v", c.err, s, got)
			}
		}
	}
	if KindOf(nil) != 0 || KindOf(errors.New("other")) != 0 {
		t.Errorf("KindOf of a nil or foreign error is not 0")
	}
	if ErrWriteRateLimited.Error() != "kv: write-rate-limited" || Kind(99).String() != "kind(99)" {
		t.Errorf("sentinel message %q, unknown kind %q", ErrWriteRateLimited, Kind(99))
	}
	wrapped := WrapUnavailable("get", "k", context.DeadlineExceeded)
	if !errors.Is(wrapped, context.DeadlineExceeded) || !errors.Is(wrapped, ErrUnavailable) || wrapped.Error() != "KV GET failed: context deadline exceeded" {
		t.Errorf("WrapUnavailable: %q does not keep its cause and kind", wrapped)
	}
}

func TestCheckPut(t *testing.T) {
	for _, c := range []struct {
		key  string
		ttl  time.Duration
		kind Kind
	}{
		{"k", 60 * time.Second, 0},
		{"k", 59 * time.Second, InvalidTTL},
		{"k", 59999 * time.Millisecond, InvalidTTL},
		{strings.Repeat("k", 512), time.Hour, 0},
		{strings.Repeat("k", 513), time.Hour, KeyTooLong},
		{strings.Repeat("é", 257), time.Hour, KeyTooLong}, // 514 bytes of UTF-8
	} {
		if got := KindOf(CheckPut(c.key, c.ttl)); got != c.kind {
			t.Errorf("CheckPut(%d-byte key, %v) = %v, want %v", len(c.key), c.ttl, got, c.kind)
		}
	}
}
