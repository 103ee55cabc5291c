package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// FuzzSet feeds any -set text to ParseWithOverrides on a small scenario:
// it must not panic, must return a valid scenario or an *Error, and an
// error about the -set must name it by number.
func FuzzSet(f *testing.F) {
	for _, s := range []string{"limiter.limit=10", "store.kv.cache_ttl=30s", "trials=-.inf", "trials=.nan",
		"traffic.bot.closed_loop={concurrency: 2, think: 5ms}", "sweep=[{path: limiter.limit, values: [1, x]}]",
		"store.kv.outages=[[[[", "limiter", "=5", "question=[a]", "traffic.0.open_loop.rate=1e9/s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, set string) {
		s, err := ParseWithOverrides("fuzz.yaml", []byte(minimal), []string{set})
		if err != nil {
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not an *Error: %v", err, err)
			}
			if se.Line > 0 && se.Set == 0 && se.Origin != "" && strings.HasPrefix(se.Origin, "-set") && overrideOnly(se) {
				t.Fatalf("an error in the -set points into the file: %v", err)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("ParseWithOverrides returned an invalid scenario: %v", err)
		}
		_ = s.Hash()
	})
}

// overrideOnly reports whether e's path is under the -set it names, so
// that its position cannot be in the file.
func overrideOnly(e *Error) bool {
	p, _, _ := strings.Cut(strings.TrimPrefix(e.Origin, "-set "), "=")
	p = strings.TrimSpace(p)
	return p != "" && (e.Path == p || strings.HasPrefix(e.Path, p+"."))
}

// FuzzSweepValue writes any text as one block-style sweep value at a path
// and expands the sweep: no panic, an *Error or valid points, and each
// point's value, set with -set at its path, gives the same scenario (the
// value's text reads back as the value).
func FuzzSweepValue(f *testing.F) {
	for _, s := range [][2]string{
		{"limiter.limit", "7"},
		{"traffic.bot.closed_loop", "concurrency: 1\nthink: 100ms"},
		{"traffic.bot.closed_loop", "{concurrency: 2}"},
		{"store.kv.cold_read", "dist: empirical\nquantiles:\n  - {p: 0.01, value: 5ms}\n  - p: 1\n    value: 50ms"},
		{"store.kv.outages", "- start: 1s\n  duration: 2s"},
		{"question", "|\n  two\n  lines"},
		{"question", "\"a: b\""},
		{"limiter.window", "NaN"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, path, value string) {
		if strings.ContainsAny(path, "\n\r\"\\") {
			return
		}
		lines := strings.Split(value, "\n")
		for i := 1; i < len(lines); i++ {
			lines[i] = "        " + lines[i]
		}
		file := minimal + "sweep:\n  - path: \"" + path + "\"\n    values:\n      - " + strings.Join(lines, "\n") + "\n"
		s, err := Parse("fuzz.yaml", []byte(file))
		if err != nil {
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not an *Error: %v", err, err)
			}
			return
		}
		pts, err := s.Expand()
		if err != nil {
			t.Fatalf("Parse succeeded but Expand failed: %v", err)
		}
		for _, p := range pts {
			if err := p.Scenario.Validate(); err != nil {
				t.Fatalf("point %s is invalid: %v", p.Label(), err)
			}
			for _, q := range p.Params {
				direct, err := ParseWithOverrides("fuzz.yaml", []byte(minimal), []string{q.Path + "=" + q.Value})
				if err != nil {
					t.Fatalf("point value %q does not read back at %s: %v", q.Value, q.Path, err)
				}
				if direct.Hash() != p.Scenario.Hash() {
					t.Fatalf("point value %q reads back as another scenario", q.Value)
				}
			}
		}
	})
}
