package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// goTool finds the go command that runs this test.
func goTool(t *testing.T) string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(p); err != nil {
		t.Skip("no go command to build the binary with")
	}
	return p
}

// TestInterruptSubprocess builds the command, starts a 60 s attack, sends
// it a real SIGINT once it runs, and checks that it exits 1 soon after with
// a summary marked incomplete and a results file.
func TestInterruptSubprocess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "attack")
	build := exec.Command(goTool(t), "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	sc := filepath.Join(dir, "s.yaml")
	os.WriteFile(sc, []byte(`
name: sigint
limiter: {name: t, limit: 5, window: 1s}
traffic:
  - name: bot
    closed_loop: {concurrency: 2}
live: {duration: 60s}
`), 0o644)
	out := filepath.Join(dir, "reports")
	cmd := exec.Command(bin, "-store", "memory", "-out", out, sc)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	lines := bufio.NewScanner(stdout)
	var text strings.Builder
	started := false
	for lines.Scan() {
		text.WriteString(lines.Text() + "\n")
		if strings.Contains(lines.Text(), "Ctrl-C stops") && !started {
			started = true
			time.AfterFunc(500*time.Millisecond, func() { cmd.Process.Signal(syscall.SIGINT) })
			go func() {
				for lines.Scan() {
					text.WriteString(lines.Text() + "\n")
				}
				done <- cmd.Wait()
			}()
			break
		}
	}
	if !started {
		cmd.Process.Kill()
		t.Fatalf("the attack never started:\n%s", text.String())
	}
	select {
	case err := <-done:
		// An interrupted run writes what it measured and exits 1: it is
		// not the run the scenario planned.
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Fatalf("exit: %v, want exit status 1\n%s", err, text.String())
		}
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		t.Fatal("no exit within 15 s of SIGINT")
	}
	matches, _ := filepath.Glob(filepath.Join(out, "sigint", "*", "summary.json"))
	if len(matches) != 1 {
		t.Fatalf("summary.json: %v", matches)
	}
	b, _ := os.ReadFile(matches[0])
	var s measure.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s.Complete || s.Totals.Requests == 0 {
		t.Errorf("complete %v, requests %d: want an incomplete summary with requests", s.Complete, s.Totals.Requests)
	}
	if st, err := os.Stat(filepath.Join(filepath.Dir(matches[0]), "results.bin")); err != nil || st.Size() == 0 {
		t.Errorf("results.bin: %v", err)
	}
}
