package simulatecmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// TestSensitivity: a single run re-predicts its headline with each of the
// model's assumptions at its alternatives, after a reference with as few
// trials; the default scenario's headline rests on the 1 write/s limit
// being enforced (without it, a bot back to back gets the limit: 1x).
// -sensitivity=false and a scenario that sets an assumption itself leave
// it out.
func TestSensitivity(t *testing.T) {
	code, out, stderr := runMain(t, "-json", "-no-report", "-trials", "2")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s measure.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Sensitivity) < 8 || s.Sensitivity[0].Path != "" || s.Sensitivity[0].Trials != 2 {
		t.Fatalf("sensitivity %+v", s.Sensitivity)
	}
	for _, x := range s.Sensitivity {
		if x.Path == "store.kv.write_limit.per_second" && (!x.Measured || x.Headline != 1) {
			t.Errorf("without the write limit the bot gets %v, want 1x the limit", x.Headline)
		}
	}
	code, out, _ = runMain(t, "-json", "-no-report", "-trials", "2", "-sensitivity=false")
	if code != ExitOK || strings.Contains(out, `"sensitivity"`) {
		t.Errorf("-sensitivity=false: exit %d, and the summary has a sensitivity", code)
	}
	code, out, _ = runMain(t, "-json", "-no-report", "-trials", "2", "-set", "store.kv.write_limit.per_second=1")
	if err := json.Unmarshal([]byte(out), &s); err != nil || code != ExitOK {
		t.Fatal(code, err)
	}
	for _, x := range s.Sensitivity {
		if x.Path == "store.kv.write_limit.per_second" {
			t.Errorf("a write limit the scenario sets is still varied as an assumption")
		}
	}
}
