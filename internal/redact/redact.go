// Package redact hides the secrets a target URL may carry (userinfo, query
// values, a fragment) wherever overshoot shows or stores the URL: the
// terminal, summary.json, the reports and the results file. What is left
// (scheme, host, path and the query's keys) still names the target.
package redact

import (
	"net/url"
	"sort"
	"strings"
)

// Mark replaces each secret.
const Mark = "REDACTED"

// minSecret is the shortest secret Text replaces on its own, wherever it
// occurs: a shorter one ("1", "on") would also blot out ordinary words and
// numbers, and is no secret worth the name.
const minSecret = 4

// URL returns raw with its userinfo, each query value and its fragment
// replaced by Mark. It works on the text, so it also hides the secrets of a
// URL that does not parse; it is idempotent, and a URL without secrets comes
// back unchanged.
func URL(raw string) string {
	rest, frag, hasFrag := strings.Cut(raw, "#")
	rest, query, hasQuery := strings.Cut(rest, "?")
	out := userinfo(rest)
	if hasQuery {
		out += "?" + queryValues(query)
	}
	if hasFrag {
		if frag != "" {
			frag = Mark
		}
		out += "#" + frag
	}
	return out
}

// userinfo replaces the user and password before the host of s (a URL
// without its query and fragment).
func userinfo(s string) string {
	scheme, after, ok := strings.Cut(s, "//")
	if !ok {
		return s
	}
	authority, path := after, ""
	if i := strings.Index(after, "/"); i >= 0 {
		authority, path = after[:i], after[i:]
	}
	at := strings.LastIndex(authority, "@")
	if at < 0 {
		return s
	}
	return scheme + "//" + Mark + authority[at:] + path
}

// queryValues replaces every value of q (a raw query) and every bare part
// without "=", which may itself be a token.
func queryValues(q string) string {
	parts := strings.Split(q, "&")
	for i, p := range parts {
		key, value, ok := strings.Cut(p, "=")
		switch {
		case !ok && p != "":
			parts[i] = Mark
		case ok && value != "":
			parts[i] = key + "=" + Mark
		}
	}
	return strings.Join(parts, "&")
}

// Text returns s with the secrets of the URL raw hidden: every spelling of
// the URL a Go error may print replaced by URL(raw), then each secret of
// minSecret bytes or more, encoded or decoded, replaced by Mark. It is for
// messages that may quote the URL, such as a transport error.
func Text(raw, s string) string {
	if raw == "" || s == "" {
		return s
	}
	red := URL(raw)
	if red == raw {
		return s
	}
	forms := []string{raw}
	if u, err := url.Parse(raw); err == nil {
		forms = append(forms, u.String(), u.Redacted())
	}
	for _, f := range forms {
		s = strings.ReplaceAll(s, f, red)
	}
	for _, secret := range secrets(raw) {
		s = strings.ReplaceAll(s, secret, Mark)
	}
	return s
}

// secrets returns what URL hides in raw, as written and decoded, longest
// first so that a secret containing another is replaced whole.
func secrets(raw string) []string {
	var out []string
	add := func(v string) {
		for _, s := range []string{v, unescape(v)} {
			if len(s) >= minSecret && s != Mark {
				out = append(out, s)
			}
		}
	}
	rest, frag, _ := strings.Cut(raw, "#")
	add(frag)
	rest, query, _ := strings.Cut(rest, "?")
	for _, p := range strings.Split(query, "&") {
		if _, v, ok := strings.Cut(p, "="); ok {
			add(v)
		} else {
			add(p)
		}
	}
	if _, after, ok := strings.Cut(rest, "//"); ok {
		authority, _, _ := strings.Cut(after, "/")
		if at := strings.LastIndex(authority, "@"); at >= 0 {
			user, pass, _ := strings.Cut(authority[:at], ":")
			add(authority[:at])
			add(user)
			add(pass)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// unescape decodes a URL component, or returns it as it is when it does not
// decode.
func unescape(s string) string {
	if d, err := url.QueryUnescape(s); err == nil {
		return d
	}
	return s
}
