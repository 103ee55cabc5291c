package limiter

import (
	"encoding/json"
	"math"
	"math/big"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// parseCases is ParseCount against JavaScript. js is String(parseInt(raw,
// 10) || 0) as V8 prints it, derived from ECMAScript §19.2.5 (parseInt:
// strip StrWhiteSpaceChar, optional sign, longest prefix of radix-10 digits,
// NaN when empty) and §7.1.4.1.1 (StrWhiteSpaceChar = WhiteSpace and
// LineTerminator: TAB VT FF ZWNBSP Zs LF CR LS PS); TestParseCountAgainstNode
// checks it with node when node is installed. want is the Go count: the
// same value, saturated at ±2^62 where JavaScript goes past what int64 holds.
var parseCases = []struct {
	raw  string
	js   string
	want int64
}{
	{"", "0", 0},
	{"7", "7", 7},
	{" 7", "7", 7},
	{"7abc", "7", 7},
	{"-3", "-3", -3},
	{"+2", "2", 2},
	{"abc", "0", 0},
	{"0x10", "0", 0}, // radix 10: no hex prefix
	{"1e3", "1", 1},  // no exponent
	{"3.9", "3", 3},
	{"-3.9", "-3", -3},
	{"\t12 ", "12", 12},
	{"\v\f\r\n 5", "5", 5},
	{"007", "7", 7},
	{"12 34", "12", 12},
	{"1_000", "1", 1},
	{"Infinity", "0", 0},
	{"-0", "0", 0}, // -0 || 0 is 0
	{"+0", "0", 0},
	{"-", "0", 0},
	{"+", "0", 0},
	{"   ", "0", 0},
	{"+-1", "0", 0},
	{"  -  1", "0", 0},
	{"- 1", "0", 0},
	{"\u00a07", "7", 7}, // NBSP is Zs
	{"\ufeff7", "7", 7}, // ZWNBSP is WhiteSpace
	{"\u20287", "7", 7}, // LS is a LineTerminator
	{"\u20297", "7", 7}, // PS too
	{"\u30008", "8", 8}, // ideographic space is Zs
	{"\u16809", "9", 9}, // ogham space mark is Zs
	{"\u00857", "0", 0}, // NEL is not JavaScript white space
	{"\u180e7", "0", 0}, // Mongolian vowel separator: Cf since Unicode 6.3
	{"\u200b7", "0", 0}, // zero width space is Cf
	{"\x1c7", "0", 0},   // information separators are not white space
	{"\x007", "0", 0},   // NUL
	{"5\x00", "5", 5},   // a digit prefix stops anywhere
	{"\u0663", "0", 0},  // Arabic-Indic three: not an ASCII digit
	{"\uff11", "0", 0},  // fullwidth one
	{"\xff5", "0", 0},   // invalid UTF-8 reads as U+FFFD
	{"9007199254740991", "9007199254740991", 9007199254740991},
	{"9007199254740993", "9007199254740992", 9007199254740993}, // JS rounds to even
	{"4611686018427387904", "4611686018427388000", 1 << 62},
	{"9223372036854775808", "9223372036854776000", 1 << 62},
	{"99999999999999999999", "100000000000000000000", 1 << 62},
	{"-99999999999999999999", "-100000000000000000000", -1 << 62},
	{"1000000000000000000000", "1e+21", 1 << 62},
	{"1" + strings.Repeat("0", 400), "Infinity", 1 << 62},
	{"-" + strings.Repeat("9", 400), "-Infinity", -1 << 62},
}

func TestParseCount(t *testing.T) {
	for _, c := range parseCases {
		if got := ParseCount(c.raw); got != c.want {
			t.Errorf("ParseCount(%q) = %d, want %d", c.raw, got, c.want)
		}
		if got := jsNumberString(parseIntFloat(c.raw)); got != c.js {
			t.Errorf("String(parseInt(%q, 10) || 0) = %s in the port, want %s", c.raw, got, c.js)
		}
	}
}

// nextCases is the seed's String(count + 1) for stored values, including
// those past 2^53 where JavaScript's float arithmetic shows.
var nextCases = []struct{ raw, js string }{
	{"", "1"},
	{"4", "5"},
	{"-3", "-2"},
	{"-1", "0"},
	{"98", "99"},
	{"99", "100"},
	{"9999", "10000"},
	{"-9007199254740991", "-9007199254740990"},
	{"-9007199254740992", "-9007199254740991"},
	{"-9007199254740993", "-9007199254740991"},
	{"-99999999999999999999", "-100000000000000000000"},
	{"-1000000000000000000000", "-1e+21"},
	{"-" + strings.Repeat("9", 400), "-Infinity"},
}

func TestNextCount(t *testing.T) {
	for _, c := range nextCases {
		if got := nextCount(c.raw, ParseCount(c.raw)); got != c.js {
			t.Errorf("String(count + 1) for stored %q = %s, want %s", c.raw, got, c.js)
		}
	}
}

// TestParseCountAgainstNode runs the tables above through node (see
// nodeBinary: required in CI), so the expected JavaScript values are not only
// derived by hand.
func TestParseCountAgainstNode(t *testing.T) {
	node := nodeBinary(t)
	var in []string
	for _, c := range parseCases {
		in = append(in, c.raw)
	}
	for _, c := range nextCases {
		in = append(in, c.raw)
	}
	src, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	const script = `const a = JSON.parse(require("fs").readFileSync(0, "utf8"));
console.log(JSON.stringify(a.map(raw => { const c = raw ? parseInt(raw, 10) || 0 : 0; return [String(c), String(c + 1)]; })));`
	cmd := exec.Command(node, "-e", script)
	cmd.Stdin = strings.NewReader(string(src))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var got [][2]string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("node output %q: %v", out, err)
	}
	for i, c := range parseCases {
		if got[i][0] != c.js {
			t.Errorf("node: parseInt(%q, 10) || 0 = %s, the table says %s", c.raw, got[i][0], c.js)
		}
	}
	for i, c := range nextCases {
		if g := got[len(parseCases)+i][1]; g != c.js {
			t.Errorf("node: String(count + 1) for %q = %s, the table says %s", c.raw, g, c.js)
		}
	}
}

// jsSpace lists ECMAScript's StrWhiteSpaceChar code points one by one, apart
// from the Unicode tables isJSSpace uses.
const jsSpace = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`

var refPrefix = regexp.MustCompile(`^[` + jsSpace + `]*([+-]?[0-9]+)`)

// refParse is a second, plain implementation of parseInt(raw, 10) || 0:
// the exact integer (nil for NaN or zero) and the float64 JavaScript holds.
func refParse(raw string) (*big.Int, float64) {
	m := refPrefix.FindStringSubmatch(raw)
	if m == nil {
		return nil, 0
	}
	n, ok := new(big.Int).SetString(strings.TrimPrefix(m[1], "+"), 10)
	if !ok || n.Sign() == 0 {
		return nil, 0
	}
	f, _ := new(big.Float).SetInt(n).Float64()
	return n, f
}

// refCount is refParse saturated at ±2^62, as ParseCount promises.
func refCount(raw string) int64 {
	n, _ := refParse(raw)
	if n == nil {
		return 0
	}
	lim := big.NewInt(jsCountLimit)
	switch {
	case n.Cmp(lim) > 0:
		return jsCountLimit
	case n.Cmp(new(big.Int).Neg(lim)) < 0:
		return -jsCountLimit
	}
	return n.Int64()
}

func FuzzParseCount(f *testing.F) {
	for _, c := range parseCases {
		f.Add(c.raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if got, want := ParseCount(raw), refCount(raw); got != want {
			t.Fatalf("ParseCount(%q) = %d, reference %d", raw, got, want)
		}
		_, wantF := refParse(raw)
		if got := parseIntFloat(raw); got != wantF && !(math.IsNaN(got) && math.IsNaN(wantF)) {
			t.Fatalf("parseIntFloat(%q) = %v, reference %v", raw, got, wantF)
		}
		// The written text must read back as the number JavaScript holds.
		if s := jsNumberString(wantF + 1); !math.IsInf(wantF, 0) && math.Abs(wantF+1) < 1e21 {
			if back, err := strconv.ParseFloat(s, 64); err != nil || back != wantF+1 {
				t.Fatalf("String(%v + 1) = %q does not read back", wantF, s)
			}
		}
	})
}
