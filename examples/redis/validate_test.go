// Package redis_test runs the reduced validation matrix of issue 29 against
// real Redis servers (scripts/validate-redis.sh).
package redis_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestValidateRedis runs a reduced validation matrix of issue 29 against
// servers attack starts (-redis-harness: a primary, two replicas, three
// sentinels on loopback), calibrated on this machine as the full matrix
// is: the three fitted cells (lag 0, primary reads, C = 1 and 8; the links
// 200 ms behind, replica reads, C = 1), then three held out: the replicas'
// links 20 ms behind, reads from the primary and from a replica at C = 8,
// and one failover (the primary killed 1 s in, fail-open,
// read-then-write), three runs each; then the fitted cells again, all of
// whose runs the calibration fits. A calibration committed from another
// machine predicted this one's runs up to twice too high (2026-12-04:
// lag20ms-replica-C8 278 against 133 live): a live host's speed moves
// between machines and hours. It asserts that the calibration ran, that
// every cell is measured and predicted and that the failover cell's
// mechanism is there (the live ledger counted lost updates, fewer than the
// writes); the model's predictions are logged, not asserted: the full
// matrix met issue 29's bar in one of the last eight fresh matrices
// (docs/validation.md, "Where a command takes effect"), and three cells
// are too few for a share, so a bound here would be one chosen to pass.
// It starts servers and measures throughput, so it runs only when
// OVERSHOOT_VALIDATE=1 (.ci/run sets it and runs this test alone).
func TestValidateRedis(t *testing.T) {
	if os.Getenv("OVERSHOOT_VALIDATE") != "1" {
		t.Skip("OVERSHOOT_VALIDATE not set: this starts Redis servers and takes about twelve minutes; .ci/run runs it alone")
	}
	for _, b := range []string{"redis-server", "redis-sentinel"} {
		if _, err := exec.LookPath(b); err != nil {
			if os.Getenv("OVERSHOOT_REQUIRE_REDIS") == "1" {
				t.Fatalf("%s not found, and OVERSHOOT_REQUIRE_REDIS=1: apt-get install -y redis-server redis-sentinel", b)
			}
			t.Skipf("%s not found: apt-get install -y redis-server redis-sentinel", b)
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if dir := os.Getenv("OVERSHOOT_E2E_REPORTS"); dir != "" {
		out = filepath.Join(dir, "validate-redis")
	}
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "validate-redis.sh"),
		"-lags", "0,20ms,200ms", "-reads", "primary,replica", "-c", "1,8", "-policies", "fail-open", "-updates", "read-then-write",
		"-cells", "lag20ms-primary-C8,lag20ms-replica-C8,kill-fail-open-read-then-write", "-out", out)
	cmd.Dir = root
	b, err := cmd.CombinedOutput()
	t.Logf("scripts/validate-redis.sh:\n%s", b)
	if err != nil {
		t.Fatalf("scripts/validate-redis.sh failed: %v; its runs are in %s (set OVERSHOOT_E2E_REPORTS to keep them)", err, out)
	}
	if _, err := os.Stat(filepath.Join(out, "cal", "calibrated.yaml")); err != nil {
		t.Errorf("no calibration on this machine's runs: %v", err)
	}
	// Each fitted cell is run again after the others, and the
	// calibration fits both runs: its misfit then holds how far the
	// host's speed moved over the matrix.
	for _, cell := range []string{"lag0-primary-C1", "lag0-primary-C8", "lag200ms-replica-C1"} {
		if _, err := os.Stat(filepath.Join(out, cell+".end.json")); err != nil {
			t.Errorf("fitted cell %s was not run again at the end: %v", cell, err)
		}
	}
	for _, cell := range []string{"lag20ms-primary-C8", "lag20ms-replica-C8", "kill-fail-open-read-then-write"} {
		raw, err := os.ReadFile(filepath.Join(out, cell+".cmp.json"))
		if err != nil {
			t.Fatal(err)
		}
		var c struct {
			NotYet          string  `json:"not_yet"`
			PredictedMedian float64 `json:"predicted_median"`
		}
		if err := json.Unmarshal(raw, &c); err != nil || c.NotYet != "" || c.PredictedMedian < 1 {
			t.Errorf("cell %s: prediction %s (%v): want a predicted max ratio of at least 1", cell, raw, err)
		}
	}
	raw, err := os.ReadFile(filepath.Join(out, "kill-fail-open-read-then-write.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		KV struct {
			Writes      int64 `json:"writes"`
			LostUpdates int64 `json:"lost_updates"`
		} `json:"kv"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	if s.KV.LostUpdates == 0 || s.KV.LostUpdates >= s.KV.Writes {
		t.Errorf("the failover cell: %d lost updates of %d writes; want some, with the replicas 200 ms behind at the kill", s.KV.LostUpdates, s.KV.Writes)
	}
}
