// Package escape makes text from outside the program (a scenario's name and
// question, a population's name, a remote server's status line or message)
// safe for the medium it is written to: Terminal and Line for a terminal,
// where an ESC sequence could rewrite the screen, and Markdown and
// MarkdownCell for report.md, advice and a GitHub job summary, where a
// newline could start a heading and HTML would be rendered. HTML needs
// nothing here: html/template escapes it.
package escape

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Terminal returns s with every control character except newline and tab,
// every byte that is not UTF-8 and every bidirectional override written
// out as a Go escape (\x1b, \u202e), so that printing it cannot move the
// cursor, change colours or reorder what is shown. Text without them comes
// back unchanged.
func Terminal(s string) string { return visible(s, "\n\t") }

// Line is Terminal for text that must stay on one line: newlines and tabs
// are written out as \n and \t too.
func Line(s string) string { return visible(s, "") }

func visible(s, keep string) string {
	if clean(s, keep) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case strings.ContainsRune(keep, r):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case unsafe(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafe(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// clean reports whether s needs no escaping.
func clean(s, keep string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || unsafe(r) && !strings.ContainsRune(keep, r) {
			return false
		}
		i += size
	}
	return true
}

// unsafe reports whether a terminal or a reader could be misled by r: a
// control character, or one that changes the direction of what follows.
func unsafe(r rune) bool {
	return unicode.IsControl(r) || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x2028 || r == 0x2029
}

// markdownSpecial are the characters that start Markdown or HTML inside a
// line: emphasis, code, links and images, raw HTML, entities, GitHub's
// strikethrough and table cells. A backslash before any of them makes it
// literal in CommonMark and GitHub Flavored Markdown.
const markdownSpecial = "\\`*_[]<>&~|"

// Markdown returns s as literal Markdown text on one line: line breaks
// become spaces, control characters are written out as by Line, the
// characters that start emphasis, code, links, HTML or entities get a
// backslash, and a leading character that would start a heading, a list,
// a quote or a code block is made literal. Rendered, it reads as s.
func Markdown(s string) string {
	t := MarkdownCell(s)
	if t == "" {
		return t
	}
	switch t[0] {
	case '#', '-', '+', '=', '>':
		return `\` + t
	}
	if i := strings.IndexFunc(t, func(r rune) bool { return r < '0' || r > '9' }); i > 0 && (t[i] == '.' || t[i] == ')') && (i+1 == len(t) || t[i+1] == ' ' || t[i+1] == '\t') {
		return t[:i] + `\` + t[i:]
	}
	return t
}

// MarkdownCell is Markdown for a table cell, or any place that is not the
// start of a line: a leading character needs no escape there.
func MarkdownCell(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\u2028", " ", "\u2029", " ").Replace(s)
	s = Line(s)
	if strings.IndexAny(s, markdownSpecial) >= 0 {
		var b strings.Builder
		for _, r := range s {
			if strings.ContainsRune(markdownSpecial, r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		s = b.String()
	}
	return strings.TrimLeft(s, " \t")
}
