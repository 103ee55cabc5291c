package simulatecmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiff: two runs before and after a limiter change, side by side, with
// which is better; the files are written under -out; bad input is refused.
func TestDiff(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, args ...string) string {
		code, out, stderr := runMain(t, append([]string{"-json", "-no-report", "-trials", "2", "-sensitivity=false"}, args...)...)
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := write("a.json"), write("b.json", "-set", "store.kv.write_limit.per_second=0")
	out := filepath.Join(dir, "reports")
	code, stdout, stderr := runMain(t, "-diff", "-out", out, a, b)
	if code != ExitOK || !strings.Contains(stdout, "ratio.max") || !strings.Contains(stdout, "A is "+a) {
		t.Fatalf("exit %d, stdout:\n%s\nstderr: %s", code, stdout, stderr)
	}
	// Without the write limit the bot gets just the limit: B is better.
	var line string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "ratio.max ") {
			line = l
		}
	}
	if !strings.HasSuffix(strings.TrimSpace(line), "B") {
		t.Errorf("ratio.max line %q: want B better", line)
	}
	matches, _ := filepath.Glob(filepath.Join(out, "*", "*", "diff.json"))
	if len(matches) != 1 {
		t.Fatalf("diff.json files: %v", matches)
	}
	var doc diffJSON
	bs, _ := os.ReadFile(matches[0])
	if err := json.Unmarshal(bs, &doc); err != nil || len(doc.Metrics) == 0 || doc.A.File != a {
		t.Errorf("diff.json: %v, %+v", err, doc.A)
	}
	for _, args := range [][]string{{"-diff", a}, {"-diff", a, filepath.Join(dir, "nope.json")}, {"-diff", a, "../../scenarios/default.yaml"}} {
		if code, _, _ := runMain(t, args...); code != ExitBadInput {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
