package report

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestKilledWhileWriting kills a process (SIGKILL, which no cleanup
// survives) as Write puts each file in place, and checks what is left:
// either the whole report, or a folder marked partial (PartialFile); never
// a complete-looking summary.json beside a missing report.html or
// report.md, and no hidden temporary files.
func TestKilledWhileWriting(t *testing.T) {
	if at := os.Getenv("OVERSHOOT_REPORT_KILL_AT"); at != "" {
		// The child: write, and kill itself after the at-th file.
		n, _ := strconv.Atoi(at)
		testHookPut = func(string) {
			if n--; n == 0 {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
		}
		Write(os.Getenv("OVERSHOOT_REPORT_DIR"), sampleTwoFigures(), Options{Generated: when})
		return
	}
	if testing.Short() {
		t.Skip("runs the test binary again, once per stage")
	}
	// How many files a whole report puts in place, in order.
	var names []string
	testHookPut = func(name string) { names = append(names, name) }
	err := Write(t.TempDir(), sampleTwoFigures(), Options{Generated: when})
	testHookPut = nil
	if err != nil {
		t.Fatal(err)
	}
	// The stages below need a figure between the mark and the text.
	if len(names) < 6 || !strings.HasSuffix(names[1], ".png") {
		t.Fatalf("a report put %v in place: want the mark, then figures, then the text", names)
	}
	// The children find the figures drawn above instead of drawing them.
	pngDir := t.TempDir()
	if err := pngs.save(pngDir); err != nil {
		t.Fatal(err)
	}
	stages := []int{1, 2, len(names) - 2, len(names) - 1, len(names)}
	for _, k := range stages {
		t.Run("after "+names[k-1], func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWhileWriting$")
			cmd.Env = append(os.Environ(), "OVERSHOOT_REPORT_KILL_AT="+strconv.Itoa(k), "OVERSHOOT_REPORT_DIR="+dir, envPNGs+"="+pngDir)
			if err := cmd.Run(); err == nil {
				t.Fatal("the child was not killed")
			}
			have := map[string]bool{}
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				have[e.Name()] = true
				if strings.HasPrefix(e.Name(), ".") {
					t.Errorf("hidden file %s left", e.Name())
				}
			}
			whole := have[SummaryFile] && have[HTMLFile] && have[MarkdownFile]
			if have[SummaryFile] && !whole {
				t.Errorf("files %v: summary.json without the whole report", keys(have))
			}
			if !whole && !have[PartialFile] {
				t.Errorf("files %v: an incomplete report not marked partial (%s)", keys(have), PartialFile)
			}
			if have[PartialFile] {
				b, _ := os.ReadFile(filepath.Join(dir, PartialFile))
				if !strings.Contains(string(b), "summary.json is written last") {
					t.Errorf("%s says %q", PartialFile, b)
				}
			}
		})
	}
}

// keys lists a set's members.
func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
