package limiter

import (
	"unicode"
	"unicode/utf8"
)

// jsCountLimit bounds the counts the port keeps exactly. JavaScript holds a
// parsed count as a float64, so beyond this the two differ only in rounding;
// Go saturates here instead of overflowing, which keeps every comparison with
// a limit (at most maxLimit) the same as JavaScript's.
const jsCountLimit = 1 << 62

// ParseCount is the seed's `raw ? parseInt(raw, 10) || 0 : 0` ported exactly:
// skip JavaScript white space, take an optional sign, then the longest prefix
// of ASCII digits; no digits (NaN), an empty string and minus zero all give 0.
// Counts beyond ±2^62 saturate there rather than overflow (JavaScript would
// keep an approximation that compares with any limit the same way).
func ParseCount(raw string) int64 {
	i := 0
	for i < len(raw) {
		r, size := utf8.DecodeRuneInString(raw[i:])
		if !isJSSpace(r) {
			break
		}
		i += size
	}
	neg := false
	if i < len(raw) && (raw[i] == '+' || raw[i] == '-') {
		neg = raw[i] == '-'
		i++
	}
	var n int64
	for ; i < len(raw) && raw[i] >= '0' && raw[i] <= '9'; i++ {
		if n > jsCountLimit/10 {
			n = jsCountLimit
			continue
		}
		n = min(n*10+int64(raw[i]-'0'), jsCountLimit)
	}
	if neg {
		return -n
	}
	return n
}

// isJSSpace reports whether r is StrWhiteSpaceChar in ECMAScript: the
// WhiteSpace and LineTerminator code points. It differs from unicode.IsSpace:
// U+0085 (NEL) is not white space to JavaScript, U+FEFF is.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\v', '\f', '\uFEFF', '\n', '\r', '\u2028', '\u2029':
		return true
	}
	return unicode.Is(unicode.Zs, r)
}
