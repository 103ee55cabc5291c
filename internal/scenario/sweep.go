package scenario

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// UnmarshalYAML reads one sweep entry: {path: ..., values: [...]}. Each
// value is kept as the YAML text it was written as ("4", "kv",
// "{dist: constant, value: 5ms}"), so that a sweep point decodes it exactly
// as if it had been written at the path.
func (sw *Sweep) UnmarshalYAML(node ast.Node) error {
	pairs := mappingValues(node)
	if pairs == nil {
		return nodeError(node, fmt.Sprintf("a sweep entry is a mapping {path: ..., values: [...]}, not a %s", unwrap(node).Type().YAMLName()))
	}
	var out Sweep
	for _, mv := range pairs {
		switch k := keyString(mv.Key); k {
		case "path":
			t, err := scalarText(mv.Value, "a path such as limiter.limit")
			if err != nil {
				return err
			}
			out.Path = t
		case "values":
			seq, ok := unwrap(mv.Value).(*ast.SequenceNode)
			if !ok {
				return nodeError(mv.Value, "values is a list of the values to try, e.g. [1, 2, 4]")
			}
			for _, v := range seq.Values {
				out.Values = append(out.Values, valueText(v))
			}
		default:
			return &yaml.UnknownFieldError{Message: fmt.Sprintf("unknown field %q", k), Token: mv.Key.GetToken()}
		}
	}
	*sw = out
	return nil
}

// valueText returns a node as YAML text that parses back to the same value:
// a scalar's own text (quoted strings keep their quotes), a collection in
// flow style, so that a value written as a block (a "- concurrency: 1"
// entry with "think: 100ms" on the next line) reads back as one value.
func valueText(n ast.Node) string {
	if s, ok := unwrap(n).(*ast.StringNode); ok {
		if tk := s.GetToken(); tk != nil && (tk.Type == token.DoubleQuoteType || tk.Type == token.SingleQuoteType) {
			return fmt.Sprintf("%q", s.Value)
		}
		return s.Value
	}
	block := dedent(n.String())
	if flow, ok := flowText(block); ok {
		return flow
	}
	if strings.Contains(block, "\n") {
		// A block ends with a line break: a literal string keeps it.
		return block + "\n"
	}
	return block
}

// flowText returns block, a YAML collection, rewritten in flow style, and
// whether the rewrite reads back as the same value (a multi-line literal
// string, for one, has no flow form).
func flowText(block string) (string, bool) {
	f, err := parser.ParseBytes([]byte(block), 0)
	if err != nil || len(f.Docs) != 1 || f.Docs[0].Body == nil {
		return "", false
	}
	body := f.Docs[0].Body
	fs, ok := unwrap(body).(interface{ SetIsFlowStyle(bool) })
	if !ok {
		return "", false
	}
	fs.SetIsFlowStyle(true)
	flow := strings.TrimSpace(body.String())
	var a, b any
	if yaml.Unmarshal([]byte(block), &a) != nil || yaml.Unmarshal([]byte(flow), &b) != nil || !reflect.DeepEqual(a, b) {
		return "", false
	}
	return flow, true
}

// dedent removes the indentation every non-blank line of s shares, and
// surrounding blank space.
func dedent(s string) string {
	lines := strings.Split(strings.TrimRight(s, " \t\n"), "\n")
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if n := len(l) - len(strings.TrimLeft(l, " ")); common < 0 || n < common {
			common = n
		}
	}
	for i, l := range lines {
		if len(l) >= common && common > 0 {
			lines[i] = l[common:]
		}
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// Param is one swept parameter's value at a sweep point.
type Param struct {
	Path  string `json:"path"`
	Value string `json:"value"`
}

// Point is one point of a sweep grid: its parameter values, in the order
// the sweep lists them, and the scenario decoded with them applied (its
// Sweep emptied: a point is a single scenario).
type Point struct {
	// Index is the point's place in the grid, from 0.
	Index int `json:"index"`
	// Params are the swept values at this point, in sweep order.
	Params []Param `json:"params"`
	// Scenario is the decoded, defaulted, validated scenario at the point.
	Scenario *Scenario `json:"-"`
}

// Label returns the point as "path=value" pairs joined by commas, or
// "base" for a scenario with no sweep.
func (p Point) Label() string {
	if len(p.Params) == 0 {
		return "base"
	}
	parts := make([]string, len(p.Params))
	for i, q := range p.Params {
		parts[i] = q.Path + "=" + q.Value
	}
	return strings.Join(parts, ",")
}

// Expand returns the grid of s's sweep: the cartesian product of every
// sweep entry's values, the last entry varying fastest. Each point's
// scenario is decoded from s's YAML with the point's values set at their
// paths (after any -set overrides), so each value is typed, defaulted and
// validated as if written in the file; a bad value is an error naming the
// point. A scenario without a sweep expands to one point, itself.
func (s *Scenario) Expand() ([]Point, error) {
	if len(s.Sweep) == 0 {
		return []Point{{Scenario: s}}, nil
	}
	src, err := s.sourceOrMarshal()
	if err != nil {
		return nil, err
	}
	total := 1
	for _, sw := range s.Sweep {
		total *= max(len(sw.Values), 1)
		if total > MaxSweepPoints {
			return nil, &Error{File: src.file, Path: "sweep", Msg: fmt.Sprintf("sweep: the grid has more than %d points: sweep fewer values", MaxSweepPoints)}
		}
	}
	data := src.data
	if d, ok := sweepless(src); ok {
		data = d
	}
	points := make([]Point, 0, total)
	base := s.BaseHash()
	idx := make([]int, len(s.Sweep))
	for n := 0; n < total; n++ {
		params := make([]Param, len(s.Sweep))
		sets := append([]override(nil), src.sets...)
		var label []string
		for i, sw := range s.Sweep {
			params[i] = Param{Path: sw.Path, Value: sw.Values[idx[i]]}
			label = append(label, sw.Path+"="+sw.Values[idx[i]])
		}
		for _, q := range params {
			sets = append(sets, override{path: q.Path, value: q.Value,
				origin: "sweep point " + strings.Join(label, ",")})
		}
		ps, _, err := decode(src.file, data, sets)
		if err != nil {
			return nil, s.pointError(err, idx)
		}
		ps.Sweep = nil
		ps.seal()
		ps.src.base = base
		ps.src.dropTree()
		points = append(points, Point{Index: n, Params: params, Scenario: ps})
		for i := len(idx) - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(s.Sweep[i].Values) {
				break
			}
			idx[i] = 0
		}
	}
	return points, nil
}

// sweepless returns src's text with the lines of its top-level sweep entry
// blanked, for decoding a sweep's points: a point does not sweep, and
// decoding the whole grid again for every point would make a sweep's time
// and memory grow with the square of its points. The lines are blanked, not
// removed, so that every position an error names is still the file's. ok
// is false (decode the whole text) when the entry cannot be told apart
// safely: a sweep given or changed with -set, a top level in flow style, an
// anchor or alias in the entry.
func sweepless(src *source) ([]byte, bool) {
	if src.body == nil {
		return nil, false
	}
	for _, o := range src.sets {
		if o.path == "sweep" || strings.HasPrefix(o.path, "sweep.") || strings.HasPrefix(o.path, "sweep[") {
			return nil, false
		}
	}
	m, ok := unwrap(src.body).(*ast.MappingNode)
	if !ok || m.IsFlowStyle {
		return nil, false
	}
	lines := strings.SplitAfter(string(src.data), "\n")
	from, to := 0, len(lines)+1 // the entry's lines, 1-based: [from, to)
	for _, v := range m.Values {
		if tk := v.Key.GetToken(); tk != nil && tk.Value == "sweep" {
			from = line(tk)
		}
	}
	if from <= 0 || from > len(lines) {
		return nil, false
	}
	for _, v := range m.Values {
		if l := line(v.Key.GetToken()); l > from {
			to = min(to, l)
		} else if l == from && v.Key.GetToken().Value != "sweep" {
			return nil, false
		}
	}
	var out strings.Builder
	for i, l := range lines {
		if n := i + 1; n >= from && n < to {
			if strings.ContainsAny(l, "&*") {
				return nil, false
			}
			if strings.HasSuffix(l, "\n") {
				out.WriteByte('\n')
			}
			continue
		}
		out.WriteString(l)
	}
	return []byte(out.String()), true
}

// pointError positions an error of a sweep point at the swept value in the
// file that caused it (the value whose path the error is under, else the
// first of the point's values).
func (s *Scenario) pointError(err error, idx []int) error {
	e, ok := err.(*Error)
	if !ok || e.Line != 0 || e.Set != 0 || s.src == nil || s.src.body == nil {
		return err
	}
	at := 0
	for i, sw := range s.Sweep {
		c := canonical(s.src.body, sw.Path)
		if e.Path == c || strings.HasPrefix(e.Path, c+".") {
			at = i
			break
		}
	}
	path := fmt.Sprintf("sweep.%d.values.%d", at, idx[at])
	if n, k := find(s.src.body, path); k == 4 {
		e.Line, e.Column = line(n.GetToken()), col(n.GetToken())
		// A sweep given with -set has its values in that -set's text.
		sets := make([]override, len(s.src.sets))
		for i, o := range s.src.sets {
			o.canon = canonical(s.src.body, o.path)
			sets[i] = o
		}
		if o := overrideFor(sets, path); o != nil && o.set > 0 {
			e.Set = o.set
			e.Line, e.Column = o.pos(n.GetToken())
		}
	}
	return e
}

// Canonical returns the canonical form of s: its JSON encoding with every
// default filled in, fields in schema order and durations and rates in
// their String form. Two files that differ only in layout, comments or
// defaults written out have the same canonical form.
func (s *Scenario) Canonical() []byte {
	b, err := json.Marshal(s)
	if err != nil {
		// Every field of Scenario marshals; a failure is a bug here.
		panic(fmt.Sprintf("scenario: canonical form: %v", err))
	}
	return b
}

// Hash returns the first 12 hex digits of the SHA-256 of s's canonical
// form, for summary.json: equal hashes mean equal scenarios.
func (s *Scenario) Hash() string {
	return shortHash(s.Canonical())
}

// shortHash returns the first 12 hex digits of the SHA-256 of b: the form
// of Hash and BaseHash.
func shortHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:12]
}

// BaseHash returns the hash (as Hash gives it) of the scenario s was
// derived from: its file or text as written, before the -set overrides
// and, for a sweep point, before the point's values. For a scenario decoded
// with no overrides it is s.Hash(); for one built in Go, too. Live runs of
// one file with different -set values share it. When the text is not a
// valid scenario without its overrides, it is the first 12 hex digits of
// the SHA-256 of the text itself.
func (s *Scenario) BaseHash() string {
	if s.src == nil || s.src.base == "" {
		return s.Hash()
	}
	return s.src.base
}

// Source returns the file name s was decoded from, or "" for a Scenario
// built in Go.
func (s *Scenario) Source() string {
	if s.src == nil {
		return ""
	}
	return s.src.file
}

// SourceName names where s was read from, for messages: its file, or "the
// embedded default".
func (s *Scenario) SourceName() string {
	if f := s.Source(); f != "" {
		return f
	}
	return "the embedded default"
}

// Overrides returns the -set overrides applied to s, as path=value.
func (s *Scenario) Overrides() []string {
	if s.src == nil {
		return nil
	}
	var out []string
	for _, o := range s.src.sets {
		out = append(out, o.path+"="+o.value)
	}
	return out
}
