package scenario

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// A path names one field of a scenario, the way -set and sweep write it:
// YAML field names joined by dots ("store.kv.cache_ttl"). A list element is
// named by its index ("traffic.0") or, for lists of named things (traffic,
// locations), by its name ("traffic.bot.closed_loop.concurrency").

// splitPath splits a path into its segments.
func splitPath(p string) []string {
	if p == "" {
		return nil
	}
	return strings.Split(p, ".")
}

// leafTypes are types that are set as one value even though Go sees a
// struct: they have no sub-paths.
var leafTypes = map[reflect.Type]bool{
	reflect.TypeOf(Duration(0)): true,
	reflect.TypeOf(Rate(0)):     true,
	reflect.TypeOf(time.Time{}): true,
	reflect.TypeOf([]string{}):  true,
}

// yamlName returns a struct field's YAML name, or "" when it has none.
func yamlName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	tag := f.Tag.Get("yaml")
	name, _, _ := strings.Cut(tag, ",")
	if name == "-" {
		return ""
	}
	if name == "" {
		return strings.ToLower(f.Name)
	}
	return name
}

// fieldNames lists the YAML field names of struct type t, in order.
func fieldNames(t reflect.Type) []string {
	var names []string
	for i := 0; i < t.NumField(); i++ {
		if n := yamlName(t.Field(i)); n != "" {
			names = append(names, n)
		}
	}
	return names
}

// fieldType returns the type of t's field named name in YAML.
func fieldType(t reflect.Type, name string) (reflect.Type, bool) {
	for i := 0; i < t.NumField(); i++ {
		if yamlName(t.Field(i)) == name {
			return t.Field(i).Type, true
		}
	}
	return nil, false
}

// hasName reports whether struct type t has a "name" field, so that its
// list elements may be named by it in paths.
func hasName(t reflect.Type) bool {
	_, ok := fieldType(t, "name")
	return ok
}

// typeAt returns the type a path leads to in the schema. names returns the
// names of the list elements under a path prefix (from the file), which a
// segment may use instead of an index; nil accepts no names. It reports the
// first bad segment with the nearest valid alternative.
func typeAt(path string, names func(prefix []string) []string) (reflect.Type, error) {
	segs := splitPath(path)
	if len(segs) == 0 {
		return nil, fmt.Errorf("path is empty: name a field, e.g. limiter.limit")
	}
	t := reflect.TypeOf(Scenario{})
	for i, seg := range segs {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		prefix := strings.Join(segs[:i], ".")
		switch {
		case leafTypes[t] || (t.Kind() != reflect.Struct && t.Kind() != reflect.Slice):
			return nil, fmt.Errorf("unknown path %q: %s is a single value with no fields; did you mean %q?", path, prefix, prefix)
		case t.Kind() == reflect.Slice:
			elem := t.Elem()
			if _, err := strconv.Atoi(seg); err == nil {
				t = elem
				continue
			}
			var valid []string
			if hasName(elem) && names != nil {
				valid = names(segs[:i])
				if slices.Contains(valid, seg) {
					t = elem
					continue
				}
			}
			if hasName(elem) {
				return nil, fmt.Errorf("unknown path %q: no element named %q in %s%s", path, seg, prefix, suggestPath(segs, i, valid))
			}
			return nil, fmt.Errorf("unknown path %q: %s is a list: name its elements by index, e.g. %s.0", path, prefix, prefix)
		default:
			ft, ok := fieldType(t, seg)
			if !ok {
				where := prefix
				if where == "" {
					where = "the scenario"
				}
				return nil, fmt.Errorf("unknown path %q: no field %q in %s%s", path, seg, where, suggestPath(segs, i, fieldNames(t)))
			}
			t = ft
		}
	}
	return t, nil
}

// suggestPath returns "; did you mean "<path>"?" with segment i replaced by
// the nearest of valid, or "" when nothing is near.
func suggestPath(segs []string, i int, valid []string) string {
	best := nearest(segs[i], valid)
	if best == "" {
		if len(valid) > 0 {
			return fmt.Sprintf(" (valid: %s)", strings.Join(valid, ", "))
		}
		return ""
	}
	fixed := append(append(append([]string(nil), segs[:i]...), best), segs[i+1:]...)
	full := strings.Join(fixed, ".")
	// Keep the rest of the path when it is valid after the fix (element
	// names are not checked here), else stop at the fixed segment.
	if _, err := typeAt(full, nil); err != nil && !strings.Contains(err.Error(), "no element named") {
		full = strings.Join(fixed[:i+1], ".")
	}
	return fmt.Sprintf("; did you mean %q?", full)
}

// nearest returns the name in valid closest to s by edit distance, or ""
// when none is within about half of s's length.
func nearest(s string, valid []string) string {
	best, bestD := "", 1<<30
	for _, v := range valid {
		d := editDistance(s, v)
		if d < bestD {
			best, bestD = v, d
		}
	}
	if best == "" || bestD > max(2, (len(s)+1)/2) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, by bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// elemName returns the name of a list element in the AST, defaulting as
// SetDefaults does for unnamed ones.
func elemName(n ast.Node, i int, listKey string) string {
	if m, ok := unwrap(n).(*ast.MappingNode); ok {
		for _, mv := range m.Values {
			if keyString(mv.Key) == "name" {
				if t, err := scalarText(mv.Value, "a name"); err == nil && t != "" {
					return t
				}
			}
		}
	}
	return defaultElemName(listKey, i)
}

// defaultElemName is the name SetDefaults gives an unnamed list element.
func defaultElemName(listKey string, i int) string {
	switch listKey {
	case "locations":
		return "loc" + strconv.Itoa(i)
	case "traffic":
		return "pop" + strconv.Itoa(i)
	}
	return strconv.Itoa(i)
}

// keyString returns a mapping key's text.
func keyString(k ast.MapKeyNode) string {
	if k == nil {
		return ""
	}
	if s, ok := k.(*ast.StringNode); ok {
		return s.Value
	}
	return k.GetToken().Value
}

// mappingValues returns the key/value pairs of a mapping node (or of the
// single pair a MappingValueNode is), or nil for any other node.
func mappingValues(n ast.Node) []*ast.MappingValueNode {
	switch m := unwrap(n).(type) {
	case *ast.MappingNode:
		return m.Values
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{m}
	}
	return nil
}

// child returns the node under n for one path segment, or nil.
func child(n ast.Node, seg, listKey string) ast.Node {
	if n == nil {
		return nil
	}
	switch v := unwrap(n).(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		for _, mv := range mappingValues(v) {
			if keyString(mv.Key) == seg {
				return mv.Value
			}
		}
	case *ast.SequenceNode:
		for i, e := range v.Values {
			if elemName(e, i, listKey) == seg {
				return e
			}
		}
		if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < len(v.Values) {
			return v.Values[i]
		}
	}
	return nil
}

// find returns the deepest node of body along path and how many segments
// it covers.
func find(body ast.Node, path string) (ast.Node, int) {
	n := body
	segs := splitPath(path)
	listKey := ""
	for i, seg := range segs {
		c := child(n, seg, listKey)
		if c == nil {
			return n, i
		}
		n, listKey = c, seg
	}
	return n, len(segs)
}

// listNames returns, for a path prefix naming a list in body, the names of
// its elements.
func listNames(body ast.Node) func(prefix []string) []string {
	return func(prefix []string) []string {
		p := strings.Join(prefix, ".")
		n, k := find(body, p)
		if k != len(prefix) || n == nil {
			return nil
		}
		seq, ok := unwrap(n).(*ast.SequenceNode)
		if !ok {
			return nil
		}
		var out []string
		for i, e := range seq.Values {
			out = append(out, elemName(e, i, prefix[len(prefix)-1]))
		}
		return out
	}
}

// pathOf returns the path of the node whose token is tk, and whether tk is
// a key's token (then the path is the mapping's and key the key).
func pathOf(body ast.Node, tk *token.Token, keyOnly bool) (path, key string, found bool) {
	found = findNode(body, func(n ast.Node, segs []string, isKey bool) bool {
		switch {
		case isKey && n.GetToken() == tk:
			k, _ := n.(ast.MapKeyNode)
			path, key = strings.Join(segs, "."), keyString(k)
			return true
		case !isKey && !keyOnly && (n.GetToken() == tk || unwrap(n).GetToken() == tk):
			path = strings.Join(segs, ".")
			return true
		}
		return false
	})
	return path, key, found
}

// findNode walks body depth first, a mapping's keys before their values,
// and reports whether stop returned true for some node, stopping there.
// stop is given each node with the path of the field it is, and, for a
// mapping's key (isKey), the mapping's path.
func findNode(body ast.Node, stop func(n ast.Node, segs []string, isKey bool) bool) bool {
	var walk func(n ast.Node, segs []string, listKey string) bool
	walk = func(n ast.Node, segs []string, listKey string) bool {
		if n == nil {
			return false
		}
		if stop(n, segs, false) {
			return true
		}
		switch v := unwrap(n).(type) {
		case *ast.MappingNode, *ast.MappingValueNode:
			for _, mv := range mappingValues(v) {
				k := keyString(mv.Key)
				if mv.Key != nil && stop(mv.Key, segs, true) {
					return true
				}
				if walk(mv.Value, append(segs[:len(segs):len(segs)], k), k) {
					return true
				}
			}
		case *ast.SequenceNode:
			for i, e := range v.Values {
				if walk(e, append(segs[:len(segs):len(segs)], elemName(e, i, listKey)), "") {
					return true
				}
			}
		}
		return false
	}
	return walk(body, nil, "")
}

// canonical rewrites a path so that list elements are named as in errors
// (by name where they have one), so that "traffic.0.clients" and
// "traffic.bot.clients" compare equal.
func canonical(body ast.Node, path string) string {
	segs := splitPath(path)
	n := body
	listKey := ""
	for i, seg := range segs {
		if seq, ok := unwrap(n).(*ast.SequenceNode); ok {
			for j, e := range seq.Values {
				if elemName(e, j, listKey) == seg || strconv.Itoa(j) == seg {
					segs[i] = elemName(e, j, listKey)
					break
				}
			}
		}
		n = child(n, seg, listKey)
		if n == nil {
			break
		}
		listKey = seg
	}
	return strings.Join(segs, ".")
}

// origin returns the override a path's value came from, if any: the last
// override whose path is a prefix of path or equal to it.
func (d *decoder) origin(path string) string {
	if o := overrideFor(d.overrides, path); o != nil {
		return o.origin
	}
	return ""
}

// overrideFor returns the last of overrides whose canonical path is path
// or a prefix of it: the one whose value holds path's node. nil when none.
func overrideFor(overrides []override, path string) *override {
	for i := len(overrides) - 1; i >= 0; i-- {
		o := &overrides[i]
		if path == o.canon || strings.HasPrefix(path, o.canon+".") {
			return o
		}
	}
	return nil
}

// related returns an override whose path lies under path, so that an error
// about a whole section names the override that changed part of it.
func (d *decoder) related(path string) string {
	if o := d.relatedOverride(path); o != nil {
		return o.origin
	}
	return ""
}

// relatedOverride is the override related names, or nil.
func (d *decoder) relatedOverride(path string) *override {
	for i := len(d.overrides) - 1; i >= 0; i-- {
		if o := &d.overrides[i]; path == "" || strings.HasPrefix(o.canon, path+".") {
			return o
		}
	}
	return nil
}

// at returns an *Error for a field path, positioned at the deepest node of
// the path the file has. A value that came from an override has no line in
// the file: the error names the override instead.
func (d *decoder) at(body ast.Node, path, msg string) *Error {
	e := &Error{File: d.file, Path: path, Msg: msg}
	if o := overrideFor(d.overrides, path); o != nil {
		e.Origin, e.Set = o.origin, o.set
		return e
	}
	if o := d.valueOverride(body, path); o != nil {
		// The node is in an override's value, not in the file: a -set
		// positions it in its own text; a sweep point's value is
		// positioned in the file by Expand.
		e.Origin, e.Set = o.origin, o.set
		if n, _ := find(body, path); n != nil && o.set > 0 {
			e.Line, e.Column = o.pos(n.GetToken())
		}
		return e
	}
	e.Origin = d.related(path)
	if n, _ := find(body, path); n != nil && n != body && !d.created[n] {
		tk := n.GetToken()
		// A block mapping's token is its first colon: point at its first key.
		if m, ok := unwrap(n).(*ast.MappingNode); ok && len(m.Values) > 0 && !m.IsFlowStyle && m.Values[0].Key != nil {
			tk = m.Values[0].Key.GetToken()
		}
		e.Line, e.Column = line(tk), col(tk)
	}
	return e
}

// valueOverride returns the override whose value holds the node at path
// (the value itself or a node on the way to path), or nil when the node is
// the file's.
func (d *decoder) valueOverride(body ast.Node, path string) *override {
	n, listKey := body, ""
	for _, seg := range append([]string{""}, splitPath(path)...) {
		if seg != "" {
			if n = child(n, seg, listKey); n == nil {
				return nil
			}
			listKey = seg
		}
		if i, ok := d.values[n]; ok {
			return &d.overrides[i]
		}
	}
	return nil
}

// yamlError converts an error of the YAML library into an *Error with the
// position, the field path and, for an unknown field, the nearest valid
// name.
func (d *decoder) yamlError(body ast.Node, err error, prefix string) *Error {
	var ye yaml.Error
	if !errors.As(err, &ye) {
		return &Error{File: d.file, Msg: prefix + err.Error()}
	}
	tk := ye.GetToken()
	e := &Error{File: d.file, Line: line(tk), Column: col(tk)}
	msg := ye.GetMessage()
	var uf *yaml.UnknownFieldError
	if errors.As(err, &uf) {
		p, key, ok := pathOf(body, tk, true)
		if ok {
			e.Path = p
			where := p
			if where == "" {
				where = "the scenario"
			}
			msg = fmt.Sprintf("unknown field %q in %s", key, where)
			if t, err := typeAt(p, listNames(body)); err == nil || p == "" {
				if p == "" {
					t = reflect.TypeOf(Scenario{})
				}
				for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
					t = t.Elem()
				}
				if t.Kind() == reflect.Struct {
					names := fieldNames(t)
					if best := nearest(key, names); best != "" {
						msg += fmt.Sprintf("; did you mean %q?", best)
					} else {
						msg += fmt.Sprintf("; valid fields: %s", strings.Join(names, ", "))
					}
				}
			}
		}
	} else if body != nil {
		if p, _, ok := pathOf(body, tk, false); ok && p != "" {
			e.Path = p
			msg = p + ": " + tidyTypeError(err, msg)
		}
	}
	e.Msg = prefix + msg
	if o := overrideFor(d.overrides, e.Path); o != nil && e.Path != "" {
		// The token is in the override's value, not in the file: a -set
		// is positioned in its own text; a sweep point's value is
		// positioned in the file by Expand.
		e.Origin, e.Line, e.Column = o.origin, 0, 0
		if o.set > 0 && tk != nil {
			e.Set = o.set
			e.Line, e.Column = o.pos(tk)
		}
	}
	return e
}

// typeHints say what to write instead of a value of the wrong type.
var typeHints = map[reflect.Kind]string{
	reflect.Int:     "write a whole number, e.g. 10",
	reflect.Int64:   "write a whole number, e.g. 10",
	reflect.Uint64:  "write a whole number, e.g. 10",
	reflect.Float64: "write a number, e.g. 0.5",
	reflect.Bool:    "write true or false",
	reflect.String:  "write one line of text, in quotes if it holds [ ] { } , : or #",
}

// tidyTypeError rewrites the library's Go-flavoured type errors in the
// scenario's terms.
func tidyTypeError(err error, msg string) string {
	var te *yaml.TypeError
	if errors.As(err, &te) && te.DstType != nil {
		want := te.DstType.Kind().String()
		switch te.DstType.Kind() {
		case reflect.Int, reflect.Int64, reflect.Uint64:
			want = "a whole number"
		case reflect.Float64:
			want = "a number"
		case reflect.Bool:
			want = "true or false"
		case reflect.String:
			want = "a string"
		case reflect.Slice:
			want = "a list"
		case reflect.Struct:
			want = "a mapping of fields"
		}
		got := "a value"
		if tk := te.Token; tk != nil {
			switch tk.Type {
			case token.SequenceStartType, token.SequenceEntryType:
				got = "a list"
			case token.MappingStartType, token.MappingValueType:
				got = "a mapping"
			default:
				got = fmt.Sprintf("%q", tk.Value)
			}
		}
		msg := fmt.Sprintf("%s is not %s", got, want)
		if hint := typeHints[te.DstType.Kind()]; hint != "" && (got == "a list" || got == "a mapping" || want == "a string") {
			msg += ": " + hint
		}
		return msg
	}
	var ov *yaml.OverflowError
	if errors.As(err, &ov) {
		if f, err := strconv.ParseFloat(ov.SrcNum, 64); err == nil && (math.IsNaN(f) || math.IsInf(f, 0)) {
			return fmt.Sprintf("%s is not a number: write a whole number, e.g. 10", ov.SrcNum)
		}
		if strings.HasPrefix(ov.SrcNum, "-") {
			return fmt.Sprintf("%s is negative: must be 0 or more", ov.SrcNum)
		}
		return fmt.Sprintf("%s is too large", ov.SrcNum)
	}
	return msg
}

// apply sets one override on the AST: it checks the path against the schema
// (naming the nearest valid path when it is unknown), parses the value as
// YAML and puts it at the path, creating missing mappings on the way.
func (d *decoder) apply(body ast.Node, o override) (ast.Node, error) {
	o.canon = canonical(body, o.path)
	d.overrides = append(d.overrides, o)
	if _, err := typeAt(o.path, listNames(body)); err != nil {
		return nil, d.overrideError(o, err.Error())
	}
	// The same limits as a file's, before the parser spends memory on
	// deep nesting.
	if err := checkSize(d.file, []byte(o.value)); err != nil {
		return nil, overrideSizeError(o, err.(*Error))
	}
	value, err := d.parseOverride(o)
	if err != nil {
		return nil, err
	}
	if d.values == nil {
		d.values = map[ast.Node]int{}
	}
	d.values[value] = len(d.overrides) - 1
	if body == nil {
		body = newMapping()
		d.created[body] = true
	}
	return d.setAt(body, o, value)
}

// overrideError is an error in override o, at its path and origin.
func (d *decoder) overrideError(o override, msg string) *Error {
	return &Error{File: d.file, Path: o.path, Origin: o.origin, Set: o.set, Msg: msg}
}

// overrideSizeError turns checkSize's error e about a file into one about
// override o's value, positioned in the -set text (or, for a sweep value,
// left for Expand to position in the file).
func overrideSizeError(o override, e *Error) *Error {
	e.Path, e.Origin, e.Set = o.path, o.origin, o.set
	if e.Set > 0 && e.Line == 1 {
		e.Column += o.at
	}
	if e.Set == 0 { // a sweep value: Expand positions it in the file
		e.Line, e.Column = 0, 0
	}
	e.Msg = strings.Replace(e.Msg, "the file is", "the value is", 1)
	return e
}

// parseOverride parses override o's value as YAML; an empty value is null.
func (d *decoder) parseOverride(o override) (ast.Node, error) {
	vf, err := parser.ParseBytes([]byte(o.value), 0)
	if err != nil {
		var ye yaml.Error
		if errors.As(err, &ye) {
			e := d.overrideError(o, fmt.Sprintf("value %q is not valid YAML: %s", shorten(o.value), ye.GetMessage()))
			if o.set > 0 && ye.GetToken() != nil {
				e.Line, e.Column = o.pos(ye.GetToken())
			}
			return nil, e
		}
		return nil, d.overrideError(o, fmt.Sprintf("value %q is not valid YAML: %v", shorten(o.value), err))
	}
	var value ast.Node
	if len(vf.Docs) > 0 {
		value = vf.Docs[0].Body
	}
	if value == nil {
		value = newNull()
	}
	return value, nil
}

// setAt puts value at override o's path in body, walking list elements
// by name or index and creating missing mappings on the way. It returns
// the body, which is new when a one-pair body had to become a mapping.
func (d *decoder) setAt(body ast.Node, o override, value ast.Node) (ast.Node, error) {
	segs := splitPath(o.path)
	n := body
	listKey := ""
	for i, seg := range segs {
		last := i == len(segs)-1
		switch v := unwrap(n).(type) {
		case *ast.SequenceNode:
			found := elemIndex(v, seg, listKey)
			if found < 0 {
				return nil, d.overrideError(o, fmt.Sprintf("unknown path %q: %s has no element %q (it has %d)", o.path, strings.Join(segs[:i], "."), seg, len(v.Values)))
			}
			if last {
				v.Values[found] = value
			} else {
				n = v.Values[found]
			}
		case *ast.MappingNode, *ast.MappingValueNode:
			var hit *ast.MappingValueNode
			hit, body = d.pairFor(body, n, v, seg)
			if last {
				hit.Value = value
			} else {
				if hit.Value == nil || isNull(hit.Value) {
					hit.Value = newMapping()
					d.created[hit.Value] = true
				}
				n = hit.Value
			}
		default:
			return nil, d.overrideError(o, fmt.Sprintf("cannot set %q: %s is a single value in the file, not a mapping; set %s as a whole", o.path, strings.Join(segs[:i], "."), strings.Join(segs[:i], ".")))
		}
		listKey = seg
	}
	return body, nil
}

// elemIndex is the index of seq's element named seg (the name it has in
// list listKey), else the element at index seg, else -1.
func elemIndex(seq *ast.SequenceNode, seg, listKey string) int {
	for j, e := range seq.Values {
		if elemName(e, j, listKey) == seg {
			return j
		}
	}
	if j, err := strconv.Atoi(seg); err == nil && j >= 0 && j < len(seq.Values) {
		return j
	}
	return -1
}

// pairFor returns the last pair keyed seg of mapping n (v unwrapped),
// adding one when there is none; a one-pair node is turned into a mapping
// first, and when it was body the new mapping is returned as the body.
func (d *decoder) pairFor(body, n, v ast.Node, seg string) (*ast.MappingValueNode, ast.Node) {
	var hit *ast.MappingValueNode
	for _, mv := range mappingValues(v) {
		if keyString(mv.Key) == seg {
			hit = mv
		}
	}
	if hit != nil {
		return hit, body
	}
	m, ok := unwrap(n).(*ast.MappingNode)
	if !ok {
		// A one-pair MappingValueNode: turn it into a mapping.
		m = newMapping()
		m.Values = append(m.Values, v.(*ast.MappingValueNode))
		if n == body {
			body = m
		}
	}
	hit = newPair(seg)
	m.Values = append(m.Values, hit)
	d.created[hit.Value] = true
	return hit, body
}

// shorten cuts a value an error quotes to maxOrigin bytes.
func shorten(v string) string {
	if len(v) > maxOrigin {
		return strings.ToValidUTF8(v[:maxOrigin], "") + "..."
	}
	return v
}

// isNull reports whether n is a YAML null.
func isNull(n ast.Node) bool {
	_, ok := unwrap(n).(*ast.NullNode)
	return ok
}

// newMapping returns an empty block mapping with a real token (the library
// treats token-less mappings as inline and skips unknown-field checks).
func newMapping() *ast.MappingNode {
	f, err := parser.ParseBytes([]byte("x: 1\n"), 0)
	if err != nil {
		panic(err) // a fixed, valid document
	}
	m := f.Docs[0].Body.(*ast.MappingNode)
	m.Values = nil
	return m
}

// newPair returns a key: null pair with real tokens.
func newPair(key string) *ast.MappingValueNode {
	f, err := parser.ParseBytes([]byte(strconv.Quote(key)+": null\n"), 0)
	if err != nil {
		panic(err) // a quoted key always parses
	}
	return mappingValues(f.Docs[0].Body)[0]
}

// newNull returns a null node.
func newNull() ast.Node {
	return newPair("x").Value
}

// checkSweepPaths checks every sweep path against the schema and the
// file's list names, and that no path is swept twice.
func (d *decoder) checkSweepPaths(body ast.Node, s *Scenario) error {
	seen := map[string]bool{}
	for i, sw := range s.Sweep {
		p := fmt.Sprintf("sweep.%d.path", i)
		if sw.Path == "" {
			return d.at(body, p, p+": is empty: name the parameter to vary, e.g. traffic.bot.closed_loop.concurrency")
		}
		if strings.HasPrefix(sw.Path, "sweep") {
			return d.at(body, p, fmt.Sprintf("%s: %q: a sweep cannot vary the sweep", p, sw.Path))
		}
		if _, err := typeAt(sw.Path, listNames(body)); err != nil {
			return d.at(body, p, p+": "+err.Error())
		}
		if seen[sw.Path] {
			return d.at(body, p, fmt.Sprintf("%s: %q is swept twice: give all its values in one sweep entry", p, sw.Path))
		}
		seen[sw.Path] = true
		if len(sw.Values) == 0 {
			return d.at(body, fmt.Sprintf("sweep.%d.values", i), fmt.Sprintf("sweep.%d.values: is empty: give the values of %s to try", i, sw.Path))
		}
	}
	return nil
}
