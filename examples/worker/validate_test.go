package worker_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestValidateWorker runs a reduced validation matrix of issue 10 against
// the example Worker under wrangler dev: limit 5, one caller at C = 1, 2, 8
// and 32 requests in flight, five runs each; the model is calibrated on
// C = 1 and 8 and must predict C = 2 and 32 within 40% of the live median
// (scripts/validate-worker.sh -max-error 40). Over seven runs of the full
// matrix with this model the C = 32 error was 1-26% (6-9% at limit 5 in the
// three with warmed-up connections); the same fitted values without the
// proxy thread predict 16x there where 9.8x was measured, 63% off. Whether
// the live median falls inside the predicted band is logged, not asserted:
// 16 of 18 held-out cells were in the three warmed-up matrices, short of
// issue 10's 90% in two of them (README). It starts and stops
// Workers of its own, so it runs only when OVERSHOOT_VALIDATE=1 (.ci/run
// sets it and runs this test alone, with nothing else loading the cores:
// the Worker's throughput is what is measured).
func TestValidateWorker(t *testing.T) {
	if os.Getenv("OVERSHOOT_VALIDATE") != "1" {
		t.Skip("OVERSHOOT_VALIDATE not set: this runs wrangler dev and takes about two minutes; .ci/run runs it alone")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if dir := os.Getenv("OVERSHOOT_E2E_REPORTS"); dir != "" {
		out = filepath.Join(dir, "validate-worker")
	}
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "validate-worker.sh"),
		"-limits", "5", "-c", "1,2,8,32", "-fit", "1,8", "-repeat", "5", "-max-error", "40", "-out", out)
	cmd.Dir = root
	b, err := cmd.CombinedOutput()
	t.Logf("scripts/validate-worker.sh:\n%s", b)
	if err != nil {
		t.Fatalf("a held-out cell missed by more than 40%% (or the script failed: %v); the matrix and every run are in %s (set OVERSHOOT_E2E_REPORTS to keep them)", err, out)
	}
}
