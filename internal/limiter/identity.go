package limiter

import (
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"
)

// KeyBy is what a limiter keys a caller on.
type KeyBy string

// The keys limiters build.
const (
	// KeyTokenIP is the seed's: "<token>:<ip>".
	KeyTokenIP KeyBy = "token-ip"
	// KeyIP keys on the client's address alone, as most IP limiters do.
	KeyIP KeyBy = "ip"
	// KeyToken keys on the token alone: an API key.
	KeyToken KeyBy = "token"
)

// KeyModes lists every KeyBy, for error messages.
var KeyModes = []KeyBy{KeyTokenIP, KeyIP, KeyToken}

// Of returns the caller identity the key builds from a token and an
// address (ClientIP's: "unknown" when the request carries none). The
// zero KeyBy is the seed's.
func (k KeyBy) Of(token, ip string) string {
	switch k {
	case KeyIP:
		return ip
	case KeyToken:
		return token
	}
	return token + ":" + ip
}

// Caller returns the caller identity the key builds from a request: its
// token and ClientIP.
func (k KeyBy) Caller(token string, h http.Header) string { return k.Of(token, ClientIP(h)) }

// Caller returns the seed's caller identity, "<token>:<ip>". The ip is
// CF-Connecting-IP, else the first X-Forwarded-For entry trimmed, else
// "unknown", with JavaScript `??` semantics: a header that is present but
// empty is not missing, so it yields an empty ip rather than the next choice.
// Repeated header lines are joined with ", " as the Fetch API's get() does.
func Caller(token string, h http.Header) string {
	return token + ":" + ClientIP(h)
}

// ClientIP is the ip part of Caller.
func ClientIP(h http.Header) string {
	if v, ok := header(h, "CF-Connecting-IP"); ok {
		return v
	}
	if v, ok := header(h, "X-Forwarded-For"); ok {
		first, _, _ := strings.Cut(v, ",")
		return jsTrim(first)
	}
	return "unknown"
}

// jsTrim is JavaScript's String.prototype.trim: it strips the same white
// space parseInt skips, which is not strings.TrimSpace's set (JavaScript
// trims U+FEFF and keeps U+0085). It assumes the runtime hands header values
// to JavaScript as UTF-8 text.
func jsTrim(s string) string {
	s = s[skipJSSpace(s):]
	for len(s) > 0 {
		r, size := utf8.DecodeLastRuneInString(s)
		if !isJSSpace(r) {
			break
		}
		s = s[:len(s)-size]
	}
	return s
}

// header is the Fetch API's Headers.get: nil when absent, else every value
// joined with ", ".
func header(h http.Header, name string) (string, bool) {
	vs := h.Values(name)
	if len(vs) == 0 {
		return "", false
	}
	return strings.Join(vs, ", "), true
}

// TokenSource says where a request carries its anonymous token.
type TokenSource struct {
	// From is "header" or "cookie".
	From string
	// Name is the header or cookie name, e.g. X-Anon-Token.
	Name string
}

// DefaultTokenSource is the header the built-in target and the example
// Worker read the token from.
var DefaultTokenSource = TokenSource{From: "header", Name: "X-Anon-Token"}

// Validate reports a token source that cannot be used, naming the field.
func (s TokenSource) Validate() error {
	if s.From != "header" && s.From != "cookie" {
		return fmt.Errorf("token source %q is unknown: use \"header\" or \"cookie\"", s.From)
	}
	if s.Name == "" {
		return fmt.Errorf("token source %s has no name: give the %s name, e.g. X-Anon-Token", s.From, s.From)
	}
	for i := 0; i < len(s.Name); i++ {
		if !isTokenChar(s.Name[i]) {
			return fmt.Errorf("token source %s name %q has %q at byte %d: a %s name is letters, digits and !#$%%&'*+-.^_`|~ only (RFC 9110 token)",
				s.From, s.Name, s.Name[i], i, s.From)
		}
	}
	return nil
}

// NoToken is the token of a request that carries none, as the example
// Worker writes `?? "anonymous"`: every such caller at one address shares
// one counter.
const NoToken = "anonymous"

// Token returns the request's token, or NoToken when it carries none. A
// header that is present but empty is an empty token, not a missing one
// (JavaScript `??`).
func (s TokenSource) Token(r *http.Request) string {
	if s.From == "cookie" {
		c, err := r.Cookie(s.Name)
		if err != nil {
			return NoToken
		}
		return c.Value
	}
	if v, ok := header(r.Header, s.Name); ok {
		return v
	}
	return NoToken
}

// isTokenChar reports whether c may appear in an HTTP header or cookie name
// (RFC 9110 tchar).
func isTokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return c < 0x80 && strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
