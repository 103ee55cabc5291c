package scenario

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/overshoot-dev/overshoot/internal/bounded"
	"github.com/overshoot-dev/overshoot/scenarios"
)

// Error is a problem with a scenario: where it is (file, line, column, when
// the YAML has them), which field (its path, e.g. "store.kv.cache_ttl"), and
// what is wrong and what to do. Every error Load, Parse, With and Expand
// return is an *Error.
type Error struct {
	// File is the scenario file's name as given to Load or Parse.
	File string
	// Line and Column are 1-based; 0 when the position is unknown (a
	// missing file, or a default that was never written in the file).
	// When Set is not 0 they are a position in that -set override instead
	// of in the file: the column counts from the start of its path=value
	// on its first line, from the start of the line on later lines.
	Line, Column int
	// Set is the 1-based number of the -set override, in the order they
	// were given, whose text holds the position; 0 for the file.
	Set int
	// Path is the field path in -set syntax, "" for the whole file.
	Path string
	// Origin names the override the bad value came from
	// ("-set limiter.limit=0" or "sweep point store.kind=foo"), or "".
	Origin string
	// Msg says what is wrong and what to do; it names the path.
	Msg string
}

// Error formats the error as file:line:col: message, or for a -set as
// file: -set #N path=value, column C: message.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	origin := e.Origin
	switch {
	case e.Set > 0:
		fmt.Fprintf(&b, ": -set #%d", e.Set)
		if kv, ok := strings.CutPrefix(origin, "-set "); ok {
			b.WriteString(" " + kv)
			origin = ""
		}
		if e.Line > 1 {
			fmt.Fprintf(&b, ", line %d", e.Line)
		}
		if e.Column > 0 {
			fmt.Fprintf(&b, ", column %d", e.Column)
		}
	case e.Line > 0:
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	b.WriteString(": ")
	if origin != "" {
		b.WriteString(origin + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// override is one path=value applied to the YAML before decoding.
type override struct {
	path, value string
	origin      string // how the user wrote it, for errors
	canon       string // path with list elements by name, for matching errors
	// set is the override's 1-based number among the -set overrides, 0
	// for a sweep point's; at is the column its value starts at in the
	// path=value text, less one.
	set, at int
}

// pos returns the position of tk, a token of o's value, as Error gives it
// for a -set: columns on the first line count from the start of path=value.
func (o *override) pos(tk *token.Token) (int, int) {
	l, c := line(tk), col(tk)
	if l == 1 {
		c += o.at
	}
	return l, c
}

// maxOrigin is the most of a -set's text an error repeats.
const maxOrigin = 80

// shortOrigin returns "-set " + kv, cut to maxOrigin bytes with "..." so
// that an error about a huge value does not repeat it whole.
func shortOrigin(kv string) string {
	if len(kv) > maxOrigin {
		kv = strings.ToValidUTF8(kv[:maxOrigin], "") + "..."
	}
	return "-set " + kv
}

// source is what a Scenario was decoded from, kept so that overrides and
// sweep points can be decoded again from the same text.
type source struct {
	file string
	data []byte
	sets []override
	body ast.Node // the AST after the overrides, for given and positions
	// dropped says body was let go (dropTree) and is parsed again from
	// data and sets when asked for (tree).
	// sum is the hash of the scenario as decoded, so that a Scenario
	// changed in Go afterwards is marshalled rather than re-read from a
	// text that no longer describes it.
	sum     string
	dropped bool
	// base is the hash of the scenario data decodes to with no overrides
	// (BaseHash): the file as written, before -set and sweep points.
	base string
}

// dropTree lets go of the syntax tree. A sweep point's tree is rarely needed
// after decoding (only to ask whether a field was given, then parsed again),
// and 10,000 points' trees would hold over 300 MB.
func (src *source) dropTree() {
	src.body, src.dropped = nil, true
}

// tree returns the syntax tree after the overrides, parsing it again when
// dropTree let it go.
func (src *source) tree() ast.Node {
	if !src.dropped {
		return src.body
	}
	d := &decoder{file: src.file, created: map[ast.Node]bool{}}
	body, err := d.tree(src.data, src.sets)
	if err != nil {
		// The same text and overrides decoded before; they parse again.
		return nil
	}
	return body
}

// seal records s as decoded from its source.
func (s *Scenario) seal() {
	if s.src != nil {
		s.src.sum = s.Hash()
	}
}

// Load reads, decodes, fills defaults in and validates the scenario file at
// path.
func Load(path string) (*Scenario, error) {
	return LoadWithOverrides(path, nil)
}

// LoadWithOverrides is Load with -set overrides applied to the YAML before
// decoding, each "path=value" (e.g. "limiter.limit=10",
// "store.kv.cache_ttl=30s"), so that a value is typed and checked exactly as
// if it had been written in the file.
func LoadWithOverrides(path string, sets []string) (*Scenario, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return parse(path, data, nil, sets, "")
}

// readFile reads the scenario file at path, at most MaxFileSize bytes: a
// file's size as stat gives it is not what a read returns (/dev/zero, a
// pipe, a file still growing), so the limit is on what is read.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		msg := err.Error()
		if errors.Is(err, os.ErrNotExist) {
			msg = "no such scenario file: check the path, or run with no argument for the default scenario"
		}
		return nil, &Error{File: path, Msg: msg}
	}
	defer f.Close()
	data, err := bounded.ReadAll(f, path, MaxFileSize, "a scenario file")
	if errors.Is(err, bounded.ErrTooLarge) {
		return nil, &Error{File: path, Msg: fmt.Sprintf("the file is over %d bytes (1 MiB), the most a scenario file may be: give a scenario file, not a device or a stream", MaxFileSize)}
	}
	if err != nil {
		return nil, &Error{File: path, Msg: "cannot read the scenario file: " + err.Error()}
	}
	return data, nil
}

// Parse decodes data as the scenario file name (used in errors and as the
// default scenario name), fills defaults in and validates it.
func Parse(name string, data []byte) (*Scenario, error) {
	return parse(name, data, nil, nil, "")
}

// ParseWithOverrides is Parse with -set overrides, as LoadWithOverrides.
func ParseWithOverrides(name string, data []byte, sets []string) (*Scenario, error) {
	return parse(name, data, nil, sets, "")
}

// With returns a copy of s with more -set overrides ("path=value") applied
// to its YAML and decoded again; s is unchanged.
func (s *Scenario) With(sets ...string) (*Scenario, error) {
	src, err := s.sourceOrMarshal()
	if err != nil {
		return nil, err
	}
	return parse(src.file, src.data, src.sets, sets, src.base)
}

// sourceOrMarshal returns the text s was decoded from, or for a Scenario
// built or changed in Go, its YAML marshalling (then errors have no lines).
func (s *Scenario) sourceOrMarshal() (*source, error) {
	if s.src != nil && s.src.sum == s.Hash() {
		return s.src, nil
	}
	data, err := yaml.Marshal(s)
	if err != nil {
		return nil, &Error{File: s.Name, Msg: "cannot marshal the scenario to YAML: " + err.Error()}
	}
	name := s.Name
	if name == "" {
		name = "scenario"
	}
	file := name + ".yaml"
	if s.src != nil {
		file = s.src.file
	}
	return &source{file: file, data: data}, nil
}

// parseSets turns "path=value" strings into overrides, numbered from
// prior+1.
func parseSets(file string, sets []string, prior int) ([]override, error) {
	out := make([]override, 0, len(sets))
	for i, kv := range sets {
		p, v, ok := strings.Cut(kv, "=")
		p = strings.TrimSpace(p)
		if !ok || p == "" {
			return nil, &Error{File: file, Set: prior + i + 1, Origin: shortOrigin(kv), Msg: "an override is path=value, e.g. -set limiter.limit=10"}
		}
		out = append(out, override{path: p, value: v, origin: shortOrigin(kv), set: prior + i + 1, at: len(kv) - len(v)})
	}
	return out, nil
}

// parse is the pipeline under every entry point: YAML -> AST, overrides
// applied, strict decoding, defaults, validation, sweep points checked.
func parse(file string, data []byte, prior []override, sets []string, base string) (*Scenario, error) {
	// Overrides are numbered after those s was decoded with (With).
	more, err := parseSets(file, sets, len(prior))
	if err != nil {
		return nil, err
	}
	all := append(append([]override(nil), prior...), more...)
	s, _, err := decode(file, data, all)
	if err != nil {
		return nil, err
	}
	if base == "" {
		base = baseHash(file, data, all, s)
	}
	s.src.base = base
	if len(s.Sweep) > 0 {
		if _, err := s.Expand(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// baseHash is the hash of the scenario data decodes to with no overrides,
// s being what it decodes to with sets: s's own hash when there are none,
// else the hash of a second decoding without them, or, when data is no
// valid scenario without its overrides, the same digits of the SHA-256 of
// data itself.
func baseHash(file string, data []byte, sets []override, s *Scenario) string {
	if len(sets) == 0 {
		return s.Hash()
	}
	if b, _, err := decode(file, data, nil); err == nil {
		return b.Hash()
	}
	return shortHash(data)
}

// decode decodes one scenario (one sweep point, when overrides say so)
// without expanding its sweep. It returns the AST body as well, for
// positions.
func decode(file string, data []byte, sets []override) (*Scenario, ast.Node, error) {
	d := &decoder{file: file, created: map[ast.Node]bool{}}
	if err := checkSize(file, data); err != nil {
		return nil, nil, err
	}
	body, err := d.tree(data, sets)
	if err != nil {
		return nil, nil, err
	}
	s := &Scenario{}
	if err := d.checkScalars(body); err != nil {
		var ye yaml.Error
		if errors.As(err, &ye) {
			return nil, nil, d.yamlError(body, err, "")
		}
		return nil, nil, err
	}
	if body != nil {
		if err := yaml.NodeToValue(body, s, yaml.DisallowUnknownField()); err != nil {
			return nil, nil, d.yamlError(body, err, "")
		}
	}
	s.src = &source{file: file, data: data, sets: sets, body: body}
	if s.Name == "" {
		s.Name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	if s.Question == "" {
		s.Question = leadingComment(data)
	}
	s.SetDefaults()
	if err := s.Validate(); err != nil {
		return nil, nil, d.validationError(body, file, data, err)
	}
	if err := d.checkSweepPaths(body, s); err != nil {
		return nil, nil, err
	}
	s.seal()
	return s, body, nil
}

// validationError positions Validate's problems in the file (or in the
// -set that made a field wrong): one *Error, or Errors for several.
func (d *decoder) validationError(body ast.Node, file string, data []byte, err error) error {
	var fes fieldErrors
	var fe *fieldError
	switch {
	case errors.As(err, &fes):
	case errors.As(err, &fe):
		fes = fieldErrors{fe}
	default:
		return &Error{File: file, Msg: err.Error()}
	}
	var out Errors
	for _, fe := range fes {
		if fe.path == "" {
			out = append(out, &Error{File: file, Msg: fe.msg})
			continue
		}
		e := d.at(body, canonical(body, fe.path), fe.msg)
		if o := d.relatedOverride(e.Path); o != nil && o.set > 0 && e.Set == 0 {
			// A -set under the field made it wrong when the file
			// alone is valid: the error is the -set's, not the
			// file's line.
			if _, _, ferr := decode(file, data, nil); ferr == nil {
				e.Set, e.Line, e.Column = o.set, 0, 0
			}
		}
		out = append(out, e)
	}
	if len(out) == 1 {
		return out[0]
	}
	return out
}

// Errors are several problems of one scenario, each with its position,
// in the order Validate found them.
type Errors []*Error

// Error formats each problem on a line of its own.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns each problem, so that errors.As finds the first *Error.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// tree parses data and applies the overrides sets to it: the syntax tree a
// scenario is decoded from.
func (d *decoder) tree(data []byte, sets []override) (ast.Node, error) {
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, d.yamlError(nil, err, "malformed YAML: ")
	}
	var body ast.Node
	switch len(f.Docs) {
	case 0:
	case 1:
		body = f.Docs[0].Body
	default:
		return nil, &Error{File: d.file, Line: line(f.Docs[1].GetToken()), Column: col(f.Docs[1].GetToken()),
			Msg: "a scenario file holds one YAML document: remove the second '---'"}
	}
	if body != nil {
		if _, ok := unwrap(body).(*ast.NullNode); ok {
			body = nil
		}
	}
	if body != nil {
		switch unwrap(body).(type) {
		case *ast.MappingNode, *ast.MappingValueNode:
		default:
			return nil, &Error{File: d.file, Line: line(body.GetToken()), Column: col(body.GetToken()),
				Msg: fmt.Sprintf("a scenario is a mapping of fields (name:, limiter:, traffic:, ...), not a %s", unwrap(body).Type().YAMLName())}
		}
	}
	if body == nil && len(sets) == 0 {
		return nil, &Error{File: d.file, Msg: "the file is empty: a scenario needs at least limiter.limit, limiter.window and traffic (see docs/scenarios.md)"}
	}
	for _, o := range sets {
		body, err = d.apply(body, o)
		if err != nil {
			return nil, err
		}
	}
	if err := d.checkAliases(body); err != nil {
		return nil, err
	}
	return body, nil
}

// leadingComment returns the first paragraph of the comment lines that
// open a file, joined into one line: the scenario's question when it sets
// none.
func leadingComment(data []byte) string {
	var parts []string
	for _, l := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "#") {
			break
		}
		t = strings.TrimSpace(strings.TrimLeft(t, "#"))
		if t == "" {
			if len(parts) > 0 {
				break
			}
			continue
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, " ")
}

// decoder turns library errors and field paths into *Error with positions.
type decoder struct {
	file      string
	overrides []override
	// created holds the mappings overrides added, which have no line in
	// the file.
	created map[ast.Node]bool
	// values holds each override's value node, with the override's index
	// in overrides: its positions are in the override's text.
	values map[ast.Node]int
}

// line returns a token's 1-based line, or 0 without a token.
func line(tk *token.Token) int {
	if tk == nil || tk.Position == nil {
		return 0
	}
	return tk.Position.Line
}

// col returns a token's 1-based column, or 0 without a token.
func col(tk *token.Token) int {
	if tk == nil || tk.Position == nil {
		return 0
	}
	return tk.Position.Column
}

// unwrap returns the node under anchors and tags.
func unwrap(n ast.Node) ast.Node {
	for {
		switch v := n.(type) {
		case *ast.AnchorNode:
			n = v.Value
		case *ast.TagNode:
			n = v.Value
		default:
			return n
		}
	}
}

// Default returns the embedded scenarios/default.yaml (the seed's endpoint
// and one bot loop) with the given -set overrides: what commands run when
// given no scenario file. Errors name the file as scenarios/default.yaml.
func Default(sets ...string) (*Scenario, error) {
	data, err := scenarios.FS.ReadFile(scenarios.DefaultFile)
	if err != nil {
		return nil, &Error{File: "scenarios/" + scenarios.DefaultFile, Msg: "the embedded default scenario is missing: " + err.Error()}
	}
	return parse("scenarios/"+scenarios.DefaultFile, data, nil, sets, "")
}

// Set applies one override to s in place, as -set path=value would: the
// value is YAML, typed and validated as if written in the file. On error s
// is unchanged.
func (s *Scenario) Set(path, value string) error {
	n, err := s.With(path + "=" + value)
	if err != nil {
		return err
	}
	*s = *n
	return nil
}

// Limits on what Parse reads, so that a hostile or broken file fails fast
// (the YAML parser's time grows faster than linearly with nesting).
const (
	// MaxFileSize is the largest scenario file accepted, in bytes.
	MaxFileSize = 1 << 20
	// MaxFlowDepth is the deepest nesting of [ ] and { }, or of "- "
	// on one line, accepted.
	MaxFlowDepth = 64
)

// checkSize rejects files over MaxFileSize and nesting deeper than
// MaxFlowDepth (brackets inside quotes and comments do not count).
func checkSize(file string, data []byte) error {
	if len(data) > MaxFileSize {
		return &Error{File: file, Msg: fmt.Sprintf("the file is %d bytes: a scenario file is at most %d", len(data), MaxFileSize)}
	}
	depth, line, col := 0, 1, 0
	var quote byte
	for _, l := range strings.Split(string(data), "\n") {
		// Compact nested block sequences ("- - - x") nest without brackets.
		t := strings.TrimLeft(l, " ")
		n := 0
		for strings.HasPrefix(t, "- ") || t == "-" {
			n++
			t = strings.TrimLeft(t[1:], " ")
		}
		if n > MaxFlowDepth {
			return &Error{File: file, Line: line, Column: 1, Msg: fmt.Sprintf("malformed YAML: sequences nested deeper than %d", MaxFlowDepth)}
		}
		line++
	}
	line = 1
	for i := 0; i < len(data); i++ {
		c := data[i]
		col++
		switch {
		case c == '\n':
			line, col = line+1, 0
			if quote == '\'' || quote == '"' {
				continue // quoted scalars may span lines
			}
		case quote != 0:
			if c == quote {
				if quote == '\'' && i+1 < len(data) && data[i+1] == '\'' {
					i++ // '' is an escaped quote
				} else {
					quote = 0
				}
			} else if c == '\\' && quote == '"' {
				i++
			}
		case c == '\'' || c == '"':
			if i == 0 || strings.IndexByte(" \t[{,:-\n", data[i-1]) >= 0 {
				quote = c
			}
		case c == '#' && (i == 0 || data[i-1] == ' ' || data[i-1] == '\t' || data[i-1] == '\n'):
			for i+1 < len(data) && data[i+1] != '\n' {
				i++
			}
		case c == '[' || c == '{':
			depth++
			if depth > MaxFlowDepth {
				return &Error{File: file, Line: line, Column: col, Msg: fmt.Sprintf("malformed YAML: brackets nested deeper than %d", MaxFlowDepth)}
			}
		case c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}
