package attackcmd

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/cli"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/simulatecmd"
)

// TestDefaultFlowLikeForLike runs the README's own flow from the
// repository's top: `attack` with no arguments (the default scenario, its
// live profile, the built-in eventual target), then `simulate -compare` of
// its summary. The comparison must be like for like: the live run sees as
// many key-windows as a trial of the model (one), whole, so that the
// verdict judges instead of saying it cannot. It takes the live run's 10 s
// (and up to 11 s more when the run waits for a window it fits in).
func TestDefaultFlowLikeForLike(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the default 10 s attack")
	}
	t.Chdir("../..")
	out := t.TempDir()
	code, stdout, stderr := runMain(t, Env{}, "-json", "-out", out)
	if code != cli.ExitOK {
		t.Fatalf("attack: exit %d: %s", code, stderr)
	}
	var live measure.Summary
	if err := json.Unmarshal([]byte(stdout), &live); err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join(out, "default", "*", "summary.json"))
	if len(paths) != 1 {
		t.Fatalf("attack wrote %v, want one summary.json", paths)
	}
	var sout, serr bytes.Buffer
	if code := simulatecmd.Main([]string{"-json", "-no-report", "-trials", "50", "-compare", paths[0]}, &sout, &serr); code != cli.ExitOK {
		t.Fatalf("simulate -compare: exit %d: %s", code, serr.String())
	}
	var pred measure.Summary
	if err := json.Unmarshal(sout.Bytes(), &pred); err != nil || pred.Comparison == nil {
		t.Fatalf("no comparison (%v): %s", err, sout.String())
	}
	c := pred.Comparison
	if !c.LikeForLike || c.Verdict == measure.VerdictCannotJudge || c.KeyWindows != pred.Overshoot.KeyWindows/int64(pred.Trials) {
		t.Errorf("the default flow is not like for like: verdict %q (%s), the live run saw %d key-windows, the model %d in %d trials; attack said: %s",
			c.Verdict, c.Why, c.KeyWindows, pred.Overshoot.KeyWindows, pred.Trials, stderr)
	}
	if _, ok := c.RelErr(); !ok || len(c.Checks) == 0 {
		t.Errorf("relative error given %v, %d checks: want both", ok, len(c.Checks))
	}
	t.Logf("verdict %s: %s", c.Verdict, c.Why)
}

// TestCompareAnotherWriteLimit: a live run whose store had another write
// limit than the model predicts with (none, against KV's 1 write per
// second per key) is never said to hold: -compare lists the 429 rate
// outside its band. Predicted with the run's own write limit, the 429
// rate is inside.
func TestCompareAnotherWriteLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a 3 s attack")
	}
	t.Chdir("../..")
	out := t.TempDir()
	code, _, stderr := runMain(t, Env{}, "-json", "-out", out, "-duration", "3s", "-set", "store.kv.write_limit.per_second=0")
	if code != cli.ExitOK {
		t.Fatalf("attack: exit %d: %s", code, stderr)
	}
	paths, _ := filepath.Glob(filepath.Join(out, "default", "*", "summary.json"))
	if len(paths) != 1 {
		t.Fatalf("attack wrote %v, want one summary.json", paths)
	}
	compare := func(sets ...string) *measure.Comparison {
		t.Helper()
		var sout, serr bytes.Buffer
		args := append([]string{"-json", "-no-report", "-trials", "50", "-compare", paths[0]}, sets...)
		if code := simulatecmd.Main(args, &sout, &serr); code != cli.ExitOK {
			t.Fatalf("simulate %v: exit %d: %s", args, code, serr.String())
		}
		var pred measure.Summary
		if err := json.Unmarshal(sout.Bytes(), &pred); err != nil || pred.Comparison == nil {
			t.Fatalf("no comparison (%v): %s", err, sout.String())
		}
		return pred.Comparison
	}
	c := compare("-set", "store.kv.write_limit.per_second=1")
	if c.Verdict == measure.VerdictHolds || !slices.Contains(c.Outside, measure.CheckRateLimited) {
		t.Errorf("another write limit live: verdict %q, outside %v (%s); want the 429 rate outside and no holds", c.Verdict, c.Outside, c.Why)
	}
	if c := compare(); slices.Contains(c.Outside, measure.CheckRateLimited) {
		t.Errorf("the run's own write limit: the 429 rate is outside (%s)", c.Why)
	}
}
