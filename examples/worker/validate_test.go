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
// C = 1 and 8, and a held-out cell (C = 2 and 32) whose live median falls
// outside its predicted band must be within 40% of it
// (scripts/validate-worker.sh -max-error 40; a cell inside its band passes
// however far its median is: on 2026-12-03 the C = 2 cell, live 1 in all
// five runs, was 80% off a predicted 1.8 inside a band of 1 to 2). Over the five full matrices
// measured after the threads' wake-up was added, the limit 5, C = 32 error
// was 4-16%, and 40.5% (above this bar) in the one measured with the machine loaded (load
// average 3.7-5), where the live median fell to 7.4x: the live medians of
// that cell ranged 7.4-13x across matrices. Whether the live median falls
// inside the predicted band is logged, not asserted: 28 of 30 held-out
// cells were, in four of the five matrices all six (docs/validation.md). It starts and stops
// Workers of its own, so it runs only when OVERSHOOT_VALIDATE=1 (.ci/run
// sets it and runs this test alone, with nothing else loading the cores:
// the Worker's throughput is what is measured).
func TestValidateWorker(t *testing.T) {
	if os.Getenv("OVERSHOOT_VALIDATE") != "1" {
		t.Skip("OVERSHOOT_VALIDATE not set: this runs wrangler dev and takes about three minutes; .ci/run runs it alone")
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
		t.Fatalf("a held-out cell outside its band missed by more than 40%% (or the script failed: %v); the matrix and every run are in %s (set OVERSHOOT_E2E_REPORTS to keep them)", err, out)
	}
}
