package attackcmd

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
)

// TestOutAndJUnitCheckedFirst: a -out that is a dangling symbolic link and a
// -junit that is a folder are refused before the target starts (exit 2,
// nothing on stdout, nothing written).
func TestOutAndJUnitCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	dangling := filepath.Join(dir, "reports")
	if err := os.Symlink(filepath.Join(dir, "gone"), dangling); err != nil {
		t.Fatal(err)
	}
	junitDir := filepath.Join(dir, "junit")
	os.Mkdir(junitDir, 0o755)
	file := cliScenario(t, sequentialYAML)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-out", dangling}, "symbolic link to " + filepath.Join(dir, "gone")},
		{[]string{"-out", dangling, "-shard", "0/2", "-url", "http://127.0.0.1:1/", "-start-at", time.Now().Add(time.Minute).UTC().Format(time.RFC3339), "-run-id", "r"}, "symbolic link"},
		{[]string{"-out", filepath.Join(dir, "ok"), "-max-ratio", "100", "-junit", junitDir}, "-junit " + junitDir + " is a folder"},
	} {
		code, stdout, stderr := runMain(t, Env{}, append(c.args, "-store", "memory", file)...)
		if code != 2 || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %.100q: want 2 and %q before the run", c.args, code, stderr, stdout, c.want)
		}
	}
	if got := files(t, dir); len(got) != 1 || got[0] != dangling {
		t.Errorf("wrote %v", got)
	}
}

// TestTimeoutMessages: a -timeout too short for any answer is refused
// before anything runs, and a target too slow for the preflight is said to
// be slow, not to be down.
func TestTimeoutMessages(t *testing.T) {
	file := cliScenario(t, sequentialYAML)
	code, _, stderr := runMain(t, Env{}, "-store", "memory", "-timeout", "1ns", "-out", t.TempDir(), file)
	if code != 2 || !strings.Contains(stderr, "-timeout 1ns is too short") {
		t.Errorf("-timeout 1ns: exit %d, stderr %q", code, stderr)
	}
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	code, _, stderr = runMain(t, Env{}, "-url", slow.URL+"/", "-timeout", "50ms", "-out", t.TempDir(), file)
	if code != 2 || !strings.Contains(stderr, "did not answer the preflight request within 50ms") || strings.Contains(stderr, "is the server running") {
		t.Errorf("a slow target: exit %d, stderr %q", code, stderr)
	}
}

// TestStartAtBounded: a -start-at beyond a day ahead is refused at once
// (it waited silently), and a shard says how long it waits.
func TestStartAtBounded(t *testing.T) {
	good, _ := serve(t, parse(t, sequentialYAML), kv.NewMemory(kv.MemoryOptions{}))
	file := cliScenario(t, strings.Replace(sequentialYAML, "1600ms", "200ms", 1))
	out := t.TempDir()
	code, stdout, stderr := runMain(t, Env{}, "-url", good, "-shard", "0/1", "-start-at", "2100-01-01T00:00:00Z", "-run-id", "r", "-out", out, file)
	if code != 2 || !strings.Contains(stderr, "-start-at 2100-01-01T00:00:00Z is ") || !strings.Contains(stderr, "over 24h") || stdout != "" {
		t.Errorf("-start-at 2100: exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	start := time.Now().Add(400 * time.Millisecond).UTC().Format(time.RFC3339Nano)
	code, stdout, stderr = runMain(t, Env{}, "-url", good, "-shard", "0/1", "-start-at", start, "-run-id", "r", "-out", out, file)
	if code != 0 || !strings.Contains(stdout, "(in ") {
		t.Errorf("exit %d, stdout %q, stderr %q: want the wait said", code, stdout, stderr)
	}
}
