package worker_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// testCommand finds the line of text that runs the test suite: the one with
// "go test".
var testCommand = regexp.MustCompile(`(?m)^(go vet \./\.\.\. && go test [^#\n]*?)\s*(#.*)?$`)

// TestCIRunsTheREADMETestCommand checks that .ci/run ends with exactly the
// test command the README gives, and that the command sets a -timeout, so a
// hung test ends a CI run with its stacks instead of hanging it.
func TestCIRunsTheREADMETestCommand(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	r := testCommand.FindSubmatch(readme)
	c := testCommand.FindSubmatch(ci)
	if r == nil || c == nil {
		t.Fatalf("no `go vet ./... && go test ...` line in README.md (%q) or .ci/run (%q)", r, c)
	}
	if !bytes.Equal(r[1], c[1]) {
		t.Errorf(".ci/run runs %q, the README says %q: make them the same", c[1], r[1])
	}
	if !regexp.MustCompile(`-timeout \d+m\b`).Match(r[1]) {
		t.Errorf("the test command %q sets no -timeout: add one (e.g. -timeout 10m) to README.md and .ci/run", r[1])
	}
	if !bytes.HasSuffix(bytes.TrimSpace(ci), bytes.TrimSpace(c[0])) {
		t.Errorf(".ci/run does not end with the test command %q", c[1])
	}
}

// TestCIStopsWhenToolsAreMissing runs .ci/run with a PATH holding only
// dirname (and no apt-get, so it installs nothing): it must stop at once,
// before any step, and name every missing tool.
func TestCIStopsWhenToolsAreMissing(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dirname, err := exec.LookPath("dirname")
	if err != nil {
		t.Skip("no dirname")
	}
	bin := t.TempDir()
	if err := os.Symlink(dirname, filepath.Join(bin, "dirname")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bash, "../../.ci/run")
	cmd.Env = []string{"PATH=" + bin, "HOME=" + t.TempDir()}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf(".ci/run without tools: %v, want exit status 1\nstderr: %s", err, stderr.String())
	}
	for _, tool := range []string{"go (", "curl (", "npm (", "chromium ("} {
		if !strings.Contains(stderr.String(), "  "+tool) {
			t.Errorf("stderr does not name %q as missing:\n%s", strings.TrimSuffix(tool, " ("), stderr.String())
		}
	}
	if stdout.Len() != 0 {
		t.Errorf(".ci/run went on after finding tools missing: %s", stdout.String())
	}
}
