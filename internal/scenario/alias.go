package scenario

import (
	"fmt"
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// checkAliases refuses a YAML alias (*name) anywhere in the tree, naming
// the first one's position and field. An alias's value is the anchored
// node itself, so a check of the field it is used in would see the
// anchor's position and path (an error blamed on the anchor's field), a
// value decoded through it would skip the checks made before decoding (a
// seed of 1.5 truncated to 1), and an alias inside its own anchor nests
// without end. A value written out is checked where it is written. An
// anchor that is never used is harmless and allowed.
func (d *decoder) checkAliases(body ast.Node) error {
	var found *ast.AliasNode
	var at string
	alias := findNode(body, func(n ast.Node, segs []string, _ bool) bool {
		if a, ok := unwrap(n).(*ast.AliasNode); ok {
			found, at = a, strings.Join(segs, ".")
			return true
		}
		return false
	})
	if !alias {
		return nil
	}
	name := strings.TrimPrefix(found.String(), "*")
	if found.Value != nil {
		name = found.Value.String()
	}
	where := at
	if where == "" {
		where = "the scenario"
	}
	e := &Error{File: d.file, Path: at,
		Msg: fmt.Sprintf("%s: the YAML alias *%s is not supported in a scenario file: write the value out where it is used", where, name)}
	tk := found.GetToken()
	if o := overrideFor(d.overrides, canonical(body, at)); o != nil && at != "" {
		e.Origin, e.Set = o.origin, o.set
		if o.set > 0 {
			e.Line, e.Column = o.pos(tk)
		}
		return e
	}
	e.Line, e.Column = line(tk), col(tk)
	return e
}
