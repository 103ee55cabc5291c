package redact

import (
	"net/http"
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"http://127.0.0.1:8787/", "http://127.0.0.1:8787/"},
		{"https://api.example.com/v1/check?x=", "https://api.example.com/v1/check?x="},
		{"https://user:pa55word@api.example.com/v1?api_key=s3cret&mode=2", "https://REDACTED@api.example.com/v1?api_key=REDACTED&mode=REDACTED"},
		{"http://tok@host:1/", "http://REDACTED@host:1/"},
		{"http://host/p?s3cretTOKEN", "http://host/p?REDACTED"},
		{"http://host/p?a=1&&b", "http://host/p?a=REDACTED&&REDACTED"},
		{"http://host/p#frag", "http://host/p#REDACTED"},
		{"http://u:p@host/a@b", "http://REDACTED@host/a@b"},
		{"http://u:p@h ost/?k=v", "http://REDACTED@h ost/?k=REDACTED"}, // does not parse
		{"", ""},
	} {
		got := URL(c.in)
		if got != c.want {
			t.Errorf("URL(%q) = %q, want %q", c.in, got, c.want)
		}
		if again := URL(got); again != got {
			t.Errorf("URL(%q) = %q, not idempotent", got, again)
		}
	}
}

// TestText covers the messages a failed request prints: Go's own error
// (which hides only the password) must come out with no secret in it.
func TestText(t *testing.T) {
	raw := "http://alice:pa55word@127.0.0.1:1/check?api_key=s3cr%2Bet-KEY&n=1"
	_, err := http.Get(raw)
	if err == nil {
		t.Fatal("a request to port 1 succeeded")
	}
	msgs := []string{err.Error(), "-url " + raw + " answered 500", "the key s3cr+et-KEY was refused"}
	for _, m := range msgs {
		got := Text(raw, m)
		for _, secret := range []string{"alice", "pa55word", "s3cr%2Bet-KEY", "s3cr+et-KEY"} {
			if strings.Contains(got, secret) {
				t.Errorf("Text(%q) = %q: %q is still there", m, got, secret)
			}
		}
		if !strings.Contains(got, "127.0.0.1") && strings.Contains(m, "127.0.0.1") {
			t.Errorf("Text(%q) = %q: the host is gone", m, got)
		}
	}
	if got := Text("http://h/?n=1", "1 of 10 failed"); got != "1 of 10 failed" {
		t.Errorf("a one-byte value was replaced in ordinary text: %q", got)
	}
	if got := Text("http://h/", "http://h/ failed"); got != "http://h/ failed" {
		t.Errorf("a URL without secrets changed the text: %q", got)
	}
}

func FuzzURL(f *testing.F) {
	f.Add("https://u:p@h/p?k=v#f")
	f.Add("http://h/?a&b=&=c")
	f.Fuzz(func(t *testing.T, raw string) {
		got := URL(raw)
		if URL(got) != got {
			t.Fatalf("URL(%q) = %q, not idempotent", raw, got)
		}
		if _, q, ok := strings.Cut(strings.SplitN(got, "#", 2)[0], "?"); ok {
			for _, p := range strings.Split(q, "&") {
				if _, v, ok := strings.Cut(p, "="); ok && v != "" && v != Mark {
					t.Fatalf("URL(%q) = %q keeps the value %q", raw, got, v)
				}
			}
		}
	})
}
