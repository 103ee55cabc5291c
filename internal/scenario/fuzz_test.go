package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"0", "250ms", "60s", "5m", "2h", "1d", "1d12h", "1.5s", "-1s", "60", "1w", "9999999d", ".s", "1..s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err != nil {
			return
		}
		if d < 0 {
			t.Fatalf("ParseDuration(%q) = %v: negative", s, d)
		}
		back, err := ParseDuration(d.String())
		if err != nil || back != d {
			t.Fatalf("ParseDuration(%q) = %v; String %q reads back as %v, %v", s, int64(d), d.String(), back, err)
		}
	})
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"10/s", "600/m", "2/h", "5/d", "3", "0.25", "-1/s", "1/w", "NaN", "1e308/s", "1e-320/d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRate(s)
		if err != nil {
			return
		}
		if r < 0 {
			t.Fatalf("ParseRate(%q) = %v: negative", s, r)
		}
		back, err := ParseRate(r.String())
		if err != nil || back != r {
			t.Fatalf("ParseRate(%q) = %v; String %q reads back as %v, %v", s, float64(r), r.String(), back, err)
		}
	})
}

// FuzzParse feeds any bytes to Parse: it must not panic, and must return
// either a valid scenario or an *Error.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../../scenarios/*.yaml")
	more, _ := filepath.Glob("testdata/errors/*.yaml")
	for _, p := range append(files, more...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(minimal))
	f.Add([]byte("limiter: &a {limit: 5}\nstore: *a\n"))
	f.Add([]byte("traffic: [{name: a, closed_loop: !!str x}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.yaml", data)
		if err != nil {
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not an *Error: %v", err, err)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("Parse returned an invalid scenario: %v", err)
		}
		_ = s.Hash()
	})
}
