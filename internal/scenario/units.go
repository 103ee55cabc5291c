package scenario

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
)

// Day is the "d" unit of scenario durations: 24 hours, as a window of "1d"
// in the seed (windowSeconds: 86400).
const Day = 24 * time.Hour

// durationUnits are the units a scenario duration may use, longest first in
// the sense of size; "us" and "µs" are both microseconds.
var durationUnits = []struct {
	name string
	d    time.Duration
}{
	{"d", Day},
	{"h", time.Hour},
	{"m", time.Minute},
	{"s", time.Second},
	{"ms", time.Millisecond},
	{"us", time.Microsecond},
	{"µs", time.Microsecond},
	{"ns", time.Nanosecond},
}

// ParseDuration reads a scenario duration: one or more <number><unit> terms
// such as "250ms", "60s", "5m", "2h", "1d" or "1d12h", where the units are d
// (24 h), h, m, s, ms, us (or µs) and ns and a number may have a fraction
// ("1.5s"). "0" alone is zero. A bare number other than 0 is an error that
// asks for a unit, and a negative duration is an error: no scenario quantity
// runs backwards.
func ParseDuration(s string) (Duration, error) {
	orig := s
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New(`duration is empty: write it with a unit, e.g. "60s"`)
	}
	if s[0] == '-' {
		return 0, fmt.Errorf("duration %q is negative: durations must be 0 or more", orig)
	}
	if s[0] == '+' {
		s = s[1:]
	}
	if s == "0" {
		return 0, nil
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		// Suggest the number with a unit only when that is itself a
		// duration ("NaN", "Inf" and "1e3" parse as numbers, "NaNs" does not).
		if _, err := ParseDuration(s + "s"); err == nil {
			return 0, fmt.Errorf("duration %q has no unit: write e.g. %q or %q (units: d, h, m, s, ms, us, ns)", orig, s+"s", s+"ms")
		}
		return 0, fmt.Errorf("duration %q is not a duration: write a number of 0 or more with a unit, e.g. \"60s\" (units: d, h, m, s, ms, us, ns)", orig)
	}
	var total float64
	var exact int64 // the same sum in integer nanoseconds when every term is whole
	whole := true
	rest := s
	for rest != "" {
		i := 0
		for i < len(rest) && (rest[i] >= '0' && rest[i] <= '9' || rest[i] == '.') {
			i++
		}
		if i == 0 {
			return 0, fmt.Errorf("duration %q is not a duration: expected a number at %q, e.g. \"60s\" or \"1d12h\"", orig, rest)
		}
		num := rest[:i]
		rest = rest[i:]
		j := 0
		for j < len(rest) && !(rest[j] >= '0' && rest[j] <= '9' || rest[j] == '.') {
			j++
		}
		unit := rest[:j]
		rest = rest[j:]
		var ud time.Duration
		for _, u := range durationUnits {
			if u.name == unit {
				ud = u.d
				break
			}
		}
		if ud == 0 {
			if unit == "" {
				return 0, fmt.Errorf("duration %q: %q has no unit (units: d, h, m, s, ms, us, ns)", orig, num)
			}
			return 0, fmt.Errorf("duration %q: unknown unit %q (units: d, h, m, s, ms, us, ns)", orig, unit)
		}
		f, err := strconv.ParseFloat(num, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return 0, fmt.Errorf("duration %q: %q is not a number", orig, num)
		}
		if n, err := strconv.ParseInt(num, 10, 64); err == nil && whole {
			if n > math.MaxInt64/int64(ud) || exact > math.MaxInt64-n*int64(ud) {
				return 0, fmt.Errorf("duration %q is too long: at most about 106751d", orig)
			}
			exact += n * int64(ud)
		} else {
			whole = false
		}
		total += f * float64(ud)
	}
	if whole {
		return Duration(exact), nil
	}
	if total >= math.MaxInt64 {
		return 0, fmt.Errorf("duration %q is too long: at most about 106751d", orig)
	}
	return Duration(math.Round(total)), nil
}

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String prints d in one unit, the largest that divides it exactly: "1d",
// "2h", "5m", "250ms". Whole minutes under two minutes print in seconds
// ("60s", "90s"), the way Cloudflare documents cacheTtl and expirationTtl.
// Negative durations (which no scenario accepts) print with Go's format.
func (d Duration) String() string {
	if d == 0 {
		return "0s"
	}
	if d < 0 {
		return time.Duration(d).String()
	}
	for _, u := range durationUnits {
		if u.name == "µs" {
			continue
		}
		if u.d == time.Minute && d < 2*Duration(time.Minute) {
			continue
		}
		if int64(d)%int64(u.d) == 0 {
			return strconv.FormatInt(int64(d)/int64(u.d), 10) + u.name
		}
	}
	return strconv.FormatInt(int64(d), 10) + "ns"
}

// MarshalYAML writes d as its String form.
func (d Duration) MarshalYAML() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalYAML reads a duration from a YAML scalar; errors carry the
// scalar's position.
func (d *Duration) UnmarshalYAML(node ast.Node) error {
	v, err := durationFromNode(node)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// MarshalJSON writes d as a JSON string in its String form.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads a JSON string with units ("60s"), or the number 0.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		if string(b) == "0" {
			*d = 0
			return nil
		}
		return fmt.Errorf("duration %s must be a string with a unit, e.g. \"60s\"", b)
	}
	v, err := ParseDuration(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// durationFromNode parses a scalar node as a Duration.
func durationFromNode(node ast.Node) (Duration, error) {
	text, err := scalarText(node, "a duration such as \"60s\"")
	if err != nil {
		return 0, err
	}
	v, err := ParseDuration(text)
	if err != nil {
		return 0, nodeError(node, err.Error())
	}
	return v, nil
}

// scalarText returns the text of a scalar node, or an error at the node when
// it is a mapping or sequence.
func scalarText(node ast.Node, want string) (string, error) {
	node = unwrap(node)
	switch n := node.(type) {
	case *ast.StringNode:
		return n.Value, nil
	case *ast.NullNode:
		return "", nil
	case ast.ScalarNode:
		return n.GetToken().Value, nil
	}
	return "", nodeError(node, fmt.Sprintf("%s was given where %s is expected", node.Type().YAMLName(), want))
}

// nodeError is an error at node's position, in the library's error type so
// that Load can report its line and column and its field path.
func nodeError(node ast.Node, msg string) error {
	return &yaml.SyntaxError{Message: msg, Token: node.GetToken()}
}

// rateUnits are the units a rate may be given per.
var rateUnits = []struct {
	name string
	sec  float64
}{
	{"s", 1},
	{"m", 60},
	{"h", 3600},
	{"d", 86400},
}

// ParseRate reads a rate: "10/s", "600/m", "2/h", "5/d", a number per a
// duration ("1/10s", "30/5m", "0.5/s"), or a bare number meaning per second. The number may have a fraction; negative, infinite and
// NaN rates are errors.
func ParseRate(s string) (Rate, error) {
	orig := s
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New(`rate is empty: write e.g. "10/s" or "600/m"`)
	}
	num, unit, hasUnit := strings.Cut(s, "/")
	per := 1.0
	if hasUnit {
		unit = strings.TrimSpace(unit)
		found := false
		for _, u := range rateUnits {
			if u.name == unit {
				per, found = u.sec, true
				break
			}
		}
		if !found {
			// N per a duration: "1/10s", "30/5m", "3/100ms".
			d, err := ParseDuration(unit)
			if err != nil || d <= 0 {
				return 0, fmt.Errorf("rate %q: unknown unit %q after '/': use s, m, h or d or a duration above 0, e.g. \"10/s\" or \"1/10s\"", orig, unit)
			}
			per = d.D().Seconds()
		}
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("rate %q is not a rate: write a number per unit, e.g. \"10/s\", \"600/m\", \"5/d\"", orig)
	}
	if f < 0 {
		return 0, fmt.Errorf("rate %q is negative: rates must be 0 or more", orig)
	}
	return Rate(f / per), nil
}

// PerSecond returns r in requests per second.
func (r Rate) PerSecond() float64 { return float64(r) }

// Interval returns the gap between requests at rate r, or 0 when r is 0.
func (r Rate) Interval() time.Duration {
	if r <= 0 {
		return 0
	}
	return time.Duration(float64(time.Second) / float64(r))
}

// String prints r per the first of s, m, h, d in which it is a whole
// number of requests: "10/s", "2/h", "5/d"; otherwise per second with the
// shortest decimal that reads back the same ("0.3/s").
func (r Rate) String() string {
	if r == 0 {
		return "0/s"
	}
	for _, u := range rateUnits {
		n := math.Round(float64(r) * u.sec)
		if n >= 1 && n < 1e15 && n/u.sec == float64(r) {
			return strconv.FormatFloat(n, 'f', -1, 64) + "/" + u.name
		}
	}
	return strconv.FormatFloat(float64(r), 'g', -1, 64) + "/s"
}

// MarshalYAML writes r as its String form.
func (r Rate) MarshalYAML() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalYAML reads a rate from a YAML scalar.
func (r *Rate) UnmarshalYAML(node ast.Node) error {
	text, err := scalarText(node, "a rate such as \"10/s\"")
	if err != nil {
		return err
	}
	v, err := ParseRate(text)
	if err != nil {
		return nodeError(node, err.Error())
	}
	*r = v
	return nil
}

// MarshalJSON writes r as a JSON string in its String form.
func (r Rate) MarshalJSON() ([]byte, error) { return json.Marshal(r.String()) }

// UnmarshalJSON reads a rate from a JSON string ("10/s") or number (per second).
func (r *Rate) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		s = string(b)
	}
	v, err := ParseRate(s)
	if err != nil {
		return err
	}
	*r = v
	return nil
}
