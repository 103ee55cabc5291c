package escape

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTerminal(t *testing.T) {
	for _, c := range []struct{ in, term, line string }{
		{"plain name", "plain name", "plain name"},
		{"two\nlines\tand tab", "two\nlines\tand tab", `two\nlines\tand tab`},
		{"red\x1b[31mtext\x1b[0m", `red\x1b[31mtext\x1b[0m`, `red\x1b[31mtext\x1b[0m`},
		{"title\x1b]0;pwned\x07", `title\x1b]0;pwned\x07`, `title\x1b]0;pwned\x07`},
		{"csi\u009b2J", `csi\x9b2J`, `csi\x9b2J`},
		{"bad\x9bbyte", `bad\x9bbyte`, `bad\x9bbyte`},
		{"back\rspace\b", `back\rspace\x08`, `back\rspace\x08`},
		{"rtl\u202eevil", `rtl\u202eevil`, `rtl\u202eevil`},
		{"café ✅", "café ✅", "café ✅"},
	} {
		if got := Terminal(c.in); got != c.term {
			t.Errorf("Terminal(%q) = %q, want %q", c.in, got, c.term)
		}
		if got := Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
		}
	}
}

func TestMarkdown(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"fixed-window, 5 per 500ms (1.00x)", "fixed-window, 5 per 500ms (1.00x)"},
		{"evil\n# Injected heading", "evil # Injected heading"},
		{`<img src=x onerror="alert(1)">`, `\<img src=x onerror="alert(1)"\>`},
		{"# heading", `\# heading`},
		{"  - item", `\- item`},
		{"1. item", `1\. item`},
		{"2024 run", "2024 run"},
		{"0.5x of the limit", "0.5x of the limit"},
		{"a|b", `a\|b`},
		{"[click](http://x)", `\[click\](http://x)`},
		{"**bold** _it_ `code` ~~s~~ &amp;", `\*\*bold\*\* \_it\_ \` + "`code\\`" + ` \~\~s\~\~ \&amp;`},
		{"esc\x1b[2J", `esc\\x1b\[2J`}, // renders as esc\x1b[2J
		{"", ""},
	} {
		if got := Markdown(c.in); got != c.want {
			t.Errorf("Markdown(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func FuzzMarkdown(f *testing.F) {
	f.Add("name\n# h <b>x</b>")
	f.Add("\x1b[31m|`")
	f.Fuzz(func(t *testing.T, s string) {
		got := Markdown(s)
		if strings.ContainsAny(got, "\n\r") || !utf8.ValidString(got) {
			t.Fatalf("Markdown(%q) = %q: a line break or invalid UTF-8", s, got)
		}
		for i := 0; i < len(got); i++ {
			if strings.IndexByte("<>|`*_[]&~", got[i]) >= 0 && (i == 0 || got[i-1] != '\\') {
				t.Fatalf("Markdown(%q) = %q: %q at %d unescaped", s, got, got[i], i)
			}
			if got[i] < 0x20 || got[i] == 0x7f {
				t.Fatalf("Markdown(%q) = %q: a control byte", s, got)
			}
		}
		if Line(got) != got {
			t.Fatalf("Markdown(%q) = %q is not terminal-safe", s, got)
		}
	})
}
