package attackcmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/cli"
	"github.com/overshoot-dev/overshoot/internal/measure"
)

// TestMainAtomic runs a scenario of the atomic shape: on -store memory the
// summary says limiter.update atomic and no window passes the limit; on
// the eventual store (the Workers KV model, which has no atomic update) the
// command refuses it, saying what to use, and writes nothing.
func TestMainAtomic(t *testing.T) {
	sc := cliScenario(t, strings.Replace(strings.Replace(sequentialYAML, "1600ms", "400ms", 1), "limiter: {name: t,", "limiter: {name: t, update: atomic,", 1))
	code, stdout, stderr := runMain(t, Env{}, "-json", "-store", "memory", "-out", t.TempDir(), sc)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s measure.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("stdout is not the summary: %v", err)
	}
	if s.Limiter.Update != "atomic" || s.Overshoot.MaxAllowed > 5 || s.Totals.Allowed == 0 {
		t.Errorf("limiter %+v, max allowed %d, %d allowed; want update atomic and at most the limit 5", s.Limiter, s.Overshoot.MaxAllowed, s.Totals.Allowed)
	}
	out := t.TempDir()
	code, _, stderr = runMain(t, Env{}, "-store", "eventual", "-out", out, sc)
	if code != cli.ExitBadInput || !strings.Contains(stderr, "use limiter.update read-then-write") {
		t.Errorf("atomic on the eventual store: exit %d, %q; want exit %d and the refusal", code, stderr, cli.ExitBadInput)
	}
	if f := files(t, out); len(f) != 0 {
		t.Errorf("a refused run wrote %v", f)
	}
}
