package simulatecmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiffEscapes diffs two summaries whose scenario name was edited to
// hold a line break, a heading, HTML, a code fence and terminal escape
// sequences: the terminal shows them as text and diff.md as literal text.
func TestDiffEscapes(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := runMain(t, "-json", "-no-report", "-trials", "2", "-sensitivity=false")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	doc["scenario"].(map[string]any)["name"] = "x\n```\n# Injected <img src=x onerror=alert(1)>\x1b[2J"
	b, _ := json.Marshal(doc)
	a := filepath.Join(dir, "a.json")
	if err := os.WriteFile(a, b, 0o644); err != nil {
		t.Fatal(err)
	}
	reports := filepath.Join(dir, "reports")
	code, stdout, stderr := runMain(t, "-diff", "-out", reports, a, a)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.ContainsRune(stdout+stderr, 0x1b) {
		t.Errorf("an escape sequence reached the terminal: %q", stdout)
	}
	matches, _ := filepath.Glob(filepath.Join(reports, "*", "*", "diff.md"))
	if len(matches) != 1 {
		t.Fatalf("diff.md files: %v", matches)
	}
	md, _ := os.ReadFile(matches[0])
	lines := strings.Split(string(md), "\n")
	fences := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "# Injected") || strings.HasPrefix(l, "A: x") && strings.Contains(l, "<img") && !strings.Contains(l, `\<img`) {
			t.Errorf("diff.md line %q is not literal text", l)
		}
		if strings.HasPrefix(l, "```") {
			fences++
		}
	}
	if fences != 2 || strings.ContainsRune(string(md), 0x1b) {
		t.Errorf("diff.md has %d fence lines (want 2: one block) or an escape sequence:\n%s", fences, md)
	}
}

// TestAdviceEscapes: advice.md shows a scenario name and question with a
// heading, HTML and a terminal escape as text, and so does the terminal.
func TestAdviceEscapes(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.yaml")
	yaml := strings.Replace(adviseYAML, "name: advise-test", "name: \"adv <img src=x onerror=alert(1)>\\e[2J\"\nquestion: \"why?\\n# Injected\"", 1)
	yaml = strings.Replace(yaml, "trials: 2", "trials: 1", 1)
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "reports")
	code, stdout, stderr := runMain(t, "-advise", "-out", out, file)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.ContainsRune(stdout+stderr, 0x1b) {
		t.Errorf("an escape sequence reached the terminal")
	}
	matches, _ := filepath.Glob(filepath.Join(out, "*", "*", "advice.md"))
	if len(matches) != 1 {
		t.Fatalf("advice.md files: %v", matches)
	}
	md, _ := os.ReadFile(matches[0])
	for _, l := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(l, "# Injected") {
			t.Errorf("advice.md has an injected heading")
		}
	}
	if strings.Count(string(md), "<img") != strings.Count(string(md), `\<img`) || strings.ContainsRune(string(md), 0x1b) {
		t.Errorf("advice.md holds raw HTML or an escape sequence:\n%.300s", md)
	}
}
