package scenario

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// schemaPaths lists every field path of the schema, lists written as
// "name.*" (element by name or index).
func schemaPaths(t reflect.Type, prefix string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []string
	switch {
	case leafTypes[t] || t == reflect.TypeOf(Latency{}):
		return nil // a latency's fields are documented once, in their own section
	case t.Kind() == reflect.Slice:
		return schemaPaths(t.Elem(), prefix+".*")
	case t.Kind() != reflect.Struct:
		return nil
	}
	for i := 0; i < t.NumField(); i++ {
		n := yamlName(t.Field(i))
		if n == "" {
			continue
		}
		p := n
		if prefix != "" {
			p = prefix + "." + n
		}
		out = append(out, p)
		out = append(out, schemaPaths(t.Field(i).Type, p)...)
	}
	return out
}

// TestDocsCoverSchema checks that docs/scenarios.md names every field path
// (in backquotes) and every default of DefaultTable.
func TestDocsCoverSchema(t *testing.T) {
	data, err := os.ReadFile("../../docs/scenarios.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, p := range schemaPaths(reflect.TypeOf(Scenario{}), "") {
		if !strings.Contains(doc, "`"+p+"`") {
			t.Errorf("docs/scenarios.md does not document `%s`", p)
		}
	}
	for _, f := range fieldNames(reflect.TypeOf(Latency{})) {
		if !strings.Contains(doc, "`"+f+"`") {
			t.Errorf("docs/scenarios.md does not document the latency field `%s`", f)
		}
	}
	for _, d := range DefaultTable() {
		if !strings.Contains(doc, d.Value) {
			t.Errorf("docs/scenarios.md does not state the default of %s (%s)", d.Path, d.Value)
		}
	}
}
