package measure

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestSummaryDocumented checks that docs/summary.md names every field of
// summary.json, so the reference cannot fall behind the schema.
func TestSummaryDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/summary.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type, string)
	walk = func(ty reflect.Type, path string) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Map {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] {
			return
		}
		seen[ty] = true
		for i := 0; i < ty.NumField(); i++ {
			f := ty.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			if !strings.Contains(string(doc), "`"+name+"`") {
				t.Errorf("docs/summary.md does not name %s.%s (`%s`)", path, f.Name, name)
			}
			walk(f.Type, path+"."+f.Name)
		}
	}
	walk(reflect.TypeOf(Summary{}), "Summary")
}
