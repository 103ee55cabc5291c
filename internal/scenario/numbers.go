package scenario

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"
)

// checkScalars walks the AST against the schema before decoding and rejects
// what the YAML library would silently accept: a fraction in a whole-number
// field (it would truncate "limit: 5.7" to 5), a negative number in an
// unsigned field, and a start that is not a time (it would be ignored).
func (d *decoder) checkScalars(body ast.Node) error {
	var walk func(n ast.Node, t reflect.Type, segs []string, listKey string) error
	walk = func(n ast.Node, t reflect.Type, segs []string, listKey string) error {
		if n == nil {
			return nil
		}
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		path := strings.Join(segs, ".")
		n = unwrap(n)
		switch {
		case t == reflect.TypeOf(time.Time{}):
			return d.checkTime(body, n, path)
		case leafTypes[t] || t == reflect.TypeOf(Latency{}) || t == reflect.TypeOf(Sweep{}):
			return nil
		case t.Kind() == reflect.Struct:
			for _, mv := range mappingValues(n) {
				k := keyString(mv.Key)
				if ft, ok := fieldType(t, k); ok {
					if err := walk(mv.Value, ft, append(segs[:len(segs):len(segs)], k), k); err != nil {
						return err
					}
				}
			}
		case t.Kind() == reflect.Slice:
			if seq, ok := n.(*ast.SequenceNode); ok {
				for i, e := range seq.Values {
					if err := walk(e, t.Elem(), append(segs[:len(segs):len(segs)], elemName(e, i, listKey)), ""); err != nil {
						return err
					}
				}
			}
		case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
			// The library turns .nan and .inf into integers silently or
			// with a message about overflow.
			switch n.(type) {
			case *ast.NanNode, *ast.InfinityNode:
				return d.at(body, path, fmt.Sprintf("%s: %s is not a number: write a whole number, e.g. 10", path, n.GetToken().Value))
			}
			if t.Kind() >= reflect.Uint {
				return d.checkUint(body, n, path)
			}
			if f, ok := n.(*ast.FloatNode); ok && f.Value != math.Trunc(f.Value) {
				return d.at(body, path, fmt.Sprintf("%s: %s is not a whole number", path, f.GetToken().Value))
			}
		}
		return nil
	}
	return walk(body, reflect.TypeOf(Scenario{}), nil, "")
}

// checkUint rejects a negative number or a fraction in an unsigned field.
func (d *decoder) checkUint(body, n ast.Node, path string) error {
	if i, ok := n.(*ast.IntegerNode); ok {
		if v, ok := i.Value.(int64); ok && v < 0 {
			return d.at(body, path, fmt.Sprintf("%s: %d is negative: must be 0 or more", path, v))
		}
	}
	if f, ok := n.(*ast.FloatNode); ok && (f.Value != math.Trunc(f.Value) || f.Value < 0) {
		return d.at(body, path, fmt.Sprintf("%s: %s is not a whole number of 0 or more", path, f.GetToken().Value))
	}
	return nil
}

// timeLayouts are the layouts a start time may be written in.
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02"}

// checkTime checks that a time field is RFC 3339 (or a date, meaning
// midnight UTC).
func (d *decoder) checkTime(body, n ast.Node, path string) error {
	if isNull(n) {
		return nil
	}
	text, err := scalarText(n, "a time such as 2026-01-01T00:00:00Z")
	if err != nil {
		return err
	}
	for _, l := range timeLayouts {
		if _, err := time.Parse(l, text); err == nil {
			return nil
		}
	}
	return d.at(body, path, fmt.Sprintf("%s: %q is not a time: write RFC 3339, e.g. 2026-01-01T00:00:00Z", path, text))
}
