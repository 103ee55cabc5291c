package cli

import (
	"flag"
	"slices"
	"testing"
)

// TestPermute: flags after the arguments move before them, each with its
// value when it takes one; -name=value, "-", "--" and unknown flags are
// handled as the flag package would read them.
func TestPermute(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.Bool("json", false, "")
	fs.String("out", "", "")
	fs.Var(new(Sets), "set", "")
	for _, tc := range []struct{ in, want []string }{
		{[]string{"DIR", "-json"}, []string{"-json", "DIR"}},
		{[]string{"x.yaml", "-out", "r", "-json"}, []string{"-out", "r", "-json", "x.yaml"}},
		{[]string{"x.yaml", "-out=r"}, []string{"-out=r", "x.yaml"}},
		{[]string{"-set", "a=1", "x.yaml", "-set", "b=2"}, []string{"-set", "a=1", "-set", "b=2", "x.yaml"}},
		{[]string{"a", "-", "-json"}, []string{"-json", "a", "-"}},
		{[]string{"a", "--", "-json"}, []string{"--", "a", "-json"}},
		{[]string{"a", "-json", "--", "-b"}, []string{"-json", "--", "a", "-b"}},
		{[]string{"a", "-nosuch", "b"}, []string{"-nosuch", "a", "b"}},
		{[]string{"a", "-out"}, []string{"-out", "a"}},
	} {
		if got := Permute(fs, tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Permute(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzPermute: Permute keeps every word, and puts no argument before a
// flag it did not consume.
func FuzzPermute(f *testing.F) {
	f.Add("x.yaml -json -out r -set a=1 -- -z")
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.Bool("json", false, "")
	fs.String("out", "", "")
	f.Fuzz(func(t *testing.T, line string) {
		in := splitWords(line)
		got := Permute(fs, in)
		a, b := slices.Clone(in), slices.Clone(got)
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			t.Fatalf("Permute(%q) = %q: words lost or added", in, got)
		}
	})
}

func splitWords(s string) []string {
	var out []string
	w := ""
	for _, r := range s {
		if r == ' ' {
			if w != "" {
				out = append(out, w)
			}
			w = ""
			continue
		}
		w += string(r)
	}
	if w != "" {
		out = append(out, w)
	}
	return out
}
