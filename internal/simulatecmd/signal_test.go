package simulatecmd

import (
	"encoding/json"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// TestStopSignals sends the process each signal that should stop a run
// (SIGTERM as Ctrl-C) while Main runs many trials, and checks that Main
// exits 1 and writes the trials that finished in a summary marked
// incomplete. The test catches the signals itself too, so one sent before
// Main listens is harmless: it is sent again until Main returns.
func TestStopSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			own := make(chan os.Signal, 1)
			signal.Notify(own, sig)
			defer signal.Stop(own)
			out := t.TempDir()
			done := make(chan int)
			var stderr string
			go func() {
				code, _, e := runMain(t, "-out", out, "-trials", "100000", "-workers", "1")
				stderr = e
				done <- code
			}()
			var code int
		wait:
			for {
				select {
				case code = <-done:
					break wait
				case <-time.After(20 * time.Millisecond): // pacing, not a deadline
					syscall.Kill(os.Getpid(), sig)
				}
			}
			if code != ExitFailure {
				t.Fatalf("exit %d, want %d: %s", code, ExitFailure, stderr)
			}
			files, _ := filepath.Glob(filepath.Join(out, "default", "*", "summary.json"))
			if len(files) != 1 {
				t.Fatalf("%d summary.json written under %s, want 1 (%v); stderr: %s", len(files), out, entries(t, out), stderr)
			}
			b, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			var s measure.Summary
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			if s.Complete || s.Trials >= 100000 {
				t.Errorf("summary complete %v with %d trials, want incomplete", s.Complete, s.Trials)
			}
		})
	}
}
