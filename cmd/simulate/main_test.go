package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
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

// TestBadInputBinary builds simulate and runs it on bad input from the
// command line and from files: each case exits with its code, says what
// was wrong and where (file and line:column, or -set number and column,
// and the field), and writes nothing under -out.
func TestBadInputBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "simulate")
	if out, err := exec.Command(goTool(t), "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const head = "limiter: {limit: 5, window: 1m}\nduration: 10s\ntrials: 1\n"
	fastRate := file("rate.yaml", head+"traffic:\n  - name: bot\n    open_loop: {rate: 1e9/s}\n")
	blockSweep := file("block.yaml", head+`traffic:
  - name: bot
    closed_loop: {concurrency: 1}
sweep:
  - path: traffic.bot.closed_loop
    values:
      - concurrency: 1
        think: 100ms
      - concurrency: 2
`)
	anchored := file("anchored.yaml", head+"traffic: [{name: bot, closed_loop: {}}]\nquestion: &q [a]\n")
	notADir := file("not-a-folder", "")
	deep := strings.Repeat("[", 60000)

	tests := []struct {
		name string
		args []string
		code int
		want []string // each in stderr (stdout when the run succeeds)
	}{
		{"trials far over the bound", []string{"-trials", "1000000000"}, 2, []string{"-trials 1000000000 is over 100000"}},
		{"trials one over the bound", []string{"-trials", "100001"}, 2, []string{"-trials 100001 is over 100000"}},
		{"open-loop rate", []string{fastRate}, 2, []string{"rate.yaml:6:23:", "traffic.bot.open_loop.rate", "over the 1000000/s"}},
		{"block sweep values", []string{"-no-report", blockSweep}, 0, []string{"traffic.bot.closed_loop={concurrency: 1, think: 100ms}"}},
		{"endless file", []string{"/dev/zero"}, 2, []string{"/dev/zero: the file is over 1048576 bytes"}},
		{"-out is a file", []string{"-out", notADir}, 2, []string{"-out " + notADir, "is not a folder"}},
		{"-out under a file", []string{"-out", filepath.Join(notADir, "reports")}, 2, []string{"is not a folder"}},
		{"-set nested deep", []string{"-set", "store.kv.outages=" + deep}, 2, []string{"scenarios/default.yaml: -set #1", "column 82", "nested deeper than 64"}},
		{"-set sweep value", []string{"-set", "limiter.limit=6", "-set", "sweep=[{path: limiter.limit, values: [1, x]}]"}, 2,
			[]string{"scenarios/default.yaml: -set #2, column 42:", "limiter.limit", `"x" is not a whole number`}},
		{"-set -.inf", []string{"-set", "trials=-.inf"}, 2, []string{"-set #1 trials=-.inf: trials: -.inf is not a number: write a whole number"}},
		{"-set .nan", []string{"-set", "trials=.nan"}, 2, []string{"-set #1 trials=.nan: trials: .nan is not a number"}},
		{"-set NaN duration", []string{"-set", "limiter.window=NaN"}, 2, []string{`limiter.window: duration "NaN" is not a duration`}},
		{"-h", []string{"-h"}, 0, nil},
		{"-version", []string{"-version"}, 0, []string{"simulate ", ", revision "}},
		{"a list for text", []string{anchored}, 2, []string{"anchored.yaml:5:14: question: a list is not a string: write one line of text"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "reports")
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(bin, append([]string{"-out", out}, tt.args...)...)
			cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &stdout, &stderr
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr: %.500s", code, tt.code, stderr.String())
			}
			text := stderr.String()
			if tt.code == 0 {
				text = stdout.String()
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("output does not say %q:\n%.500s", w, text)
				}
			}
			for _, bad := range []string{"goroutine ", "panic:", "interface {}", "Go struct", "-9223372036854775808", "NaNs"} {
				if strings.Contains(stderr.String(), bad) {
					t.Errorf("stderr says %q:\n%.500s", bad, stderr.String())
				}
			}
			if tt.code != 0 && stdout.Len() > 0 {
				t.Errorf("stdout on bad input: %.200s", stdout.String())
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s was written", out)
			}
			if fi, err := os.Stat(notADir); err != nil || fi.Size() != 0 {
				t.Errorf("%s changed: %v", notADir, err)
			}
		})
	}
}
