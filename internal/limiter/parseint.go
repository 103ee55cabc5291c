package limiter

import (
	"math"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// jsCountLimit bounds the counts the port keeps exactly. JavaScript holds a
// parsed count as a float64, so beyond this the two differ only in rounding;
// Go saturates here instead of overflowing, which keeps every comparison with
// a limit (at most MaxLimit) the same as JavaScript's, and leaves room for
// limit - count - 1 to fit in an int64.
const jsCountLimit = 1 << 62

// ParseCount is the seed's `raw ? parseInt(raw, 10) || 0 : 0` ported exactly:
// skip JavaScript white space, take an optional sign, then the longest prefix
// of ASCII digits; no digits (NaN), an empty string and minus zero all give 0.
// Counts beyond ±2^62 saturate there rather than overflow (JavaScript would
// keep an approximation that compares with any limit the same way).
func ParseCount(raw string) int64 {
	if len(raw) == 1 && raw[0] >= '0' && raw[0] <= '9' {
		return int64(raw[0] - '0') // the usual stored count, a digit
	}
	i := skipJSSpace(raw)
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

// parseIntFloat is `parseInt(raw, 10) || 0` as the float64 JavaScript
// computes: the digit prefix correctly rounded, ±Infinity past the float64
// range (as V8 gives for a few hundred digits). ParseCount is the exact,
// saturating integer view of the same prefix.
func parseIntFloat(raw string) float64 {
	start := skipJSSpace(raw)
	i := start
	if i < len(raw) && (raw[i] == '+' || raw[i] == '-') {
		i++
	}
	j := i
	for j < len(raw) && raw[j] >= '0' && raw[j] <= '9' {
		j++
	}
	if j == i {
		return 0
	}
	// Only a sign and ASCII digits: ParseFloat's sole failure is the
	// range, where it returns ±Inf as JavaScript does.
	f, _ := strconv.ParseFloat(raw[start:j], 64)
	if f == 0 {
		return 0 // -0 || 0 is 0
	}
	return f
}

// jsNumberString is JavaScript's String(f) for an integral float64 or an
// infinity: plain digits below 1e21, exponent notation ("1e+21") from there.
func jsNumberString(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case math.IsNaN(f):
		return "NaN"
	case math.Abs(f) < 1e21:
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'e', -1, 64)
}

// skipJSSpace returns the index of the first rune of raw that is not
// JavaScript white space.
func skipJSSpace(raw string) int {
	i := 0
	for i < len(raw) {
		if c := raw[i]; c < utf8.RuneSelf {
			if c != ' ' && (c < '\t' || c > '\r') {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(raw[i:])
		if !isJSSpace(r) {
			break
		}
		i += size
	}
	return i
}

// isJSSpace reports whether r is StrWhiteSpaceChar in ECMAScript (§7.1.4.1.1,
// used by parseInt and String.prototype.trim): the WhiteSpace code points
// (TAB, VT, FF, ZWNBSP U+FEFF, and every Zs) and the LineTerminators (LF, CR,
// LS U+2028, PS U+2029). It differs from unicode.IsSpace: U+0085 (NEL) is
// not white space to JavaScript, U+FEFF is. U+180E has not been Zs since
// Unicode 6.3, in Go's tables as in V8's.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\v', '\f', '\uFEFF', '\n', '\r', '\u2028', '\u2029':
		return true
	}
	return unicode.Is(unicode.Zs, r)
}
