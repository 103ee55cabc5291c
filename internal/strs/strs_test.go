package strs

import (
	"strings"
	"testing"
)

func TestSame(t *testing.T) {
	a := "anon:1.2.3.4"
	b := strings.Clone(a)
	for _, c := range []struct {
		x, y string
		want bool
	}{
		{a, a, true}, {a, b, true}, {a, a[:4], false}, {a[:4], b[:4], true},
		{a, "anon:1.2.3.5", false}, {"", "", true}, {"", a, false}, {a[:0], b[:0], true},
	} {
		if got := Same(c.x, c.y); got != c.want {
			t.Errorf("Same(%q, %q) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
}
