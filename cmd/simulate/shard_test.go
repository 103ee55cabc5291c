package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// buildSimulate builds the simulate binary into a temporary folder.
func buildSimulate(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "simulate")
	if out, err := exec.Command(goTool(t), "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// simulate runs the binary from the repository root and returns its exit
// code, stdout and stderr.
func simulate(t *testing.T, bin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = "../..", &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), stdout.String(), stderr.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, stdout.String(), stderr.String()
}

// TestShardsMergeByteIdentical runs a scenario as N separate processes,
// one shard each, merges their files, and compares the summary with the
// one a single process writes for the same seed: byte for byte, for a
// single scenario and for a sweep, whether N divides the trials or not.
func TestShardsMergeByteIdentical(t *testing.T) {
	bin := buildSimulate(t)
	cases := []struct {
		name   string
		args   []string
		shards int
	}{
		{"default, 3 shards", []string{"-trials", "7", "-seed", "5"}, 3},
		{"sweep, 4 shards", []string{"-trials", "3", "scenarios/window-boundary.yaml"}, 4},
		{"more shards than trials", []string{"-trials", "2", "-set", "duration=1h"}, 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			code, want, stderr := simulate(t, bin, append([]string{"-json", "-no-report"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("whole run: exit %d: %s", code, stderr)
			}
			for i := range tc.shards {
				shard := strings.Join([]string{itoa(i), itoa(tc.shards)}, "/")
				if code, _, stderr := simulate(t, bin, append([]string{"-shard", shard, "-out", dir}, tc.args...)...); code != 0 {
					t.Fatalf("shard %s: exit %d: %s", shard, code, stderr)
				}
			}
			code, got, stderr := simulate(t, bin, "-merge", "-json", "-no-report", dir)
			if code != 0 {
				t.Fatalf("merge: exit %d: %s", code, stderr)
			}
			if got != want {
				t.Errorf("the merged summary differs from the whole run's (%d and %d bytes)", len(got), len(want))
			}
		})
	}
}

// TestMergeBadInput: shards that do not make one run are refused with exit
// 2, naming the file and what is wrong, and nothing is written.
func TestMergeBadInput(t *testing.T) {
	bin := buildSimulate(t)
	dir := t.TempDir()
	shards := filepath.Join(dir, "shards")
	for _, s := range []string{"0/3", "1/3", "2/3"} {
		if code, _, stderr := simulate(t, bin, "-shard", s, "-out", shards, "-trials", "3"); code != 0 {
			t.Fatalf("shard %s: %s", s, stderr)
		}
	}
	other := filepath.Join(dir, "other")
	if code, _, stderr := simulate(t, bin, "-shard", "1/3", "-out", other, "-trials", "3", "-seed", "99"); code != 0 {
		t.Fatalf("other shard: %s", stderr)
	}
	file := func(i int) string { return filepath.Join(shards, "shard-"+itoa(i)+"-of-3.json") }
	junk := filepath.Join(dir, "junk.json")
	if err := os.WriteFile(junk, []byte(`{"kind": "something else"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing shard", []string{file(0), file(2)}, "shards 1 of 3 are missing"},
		{"duplicate shard", []string{file(0), file(1), file(1), file(2)}, "is also in"},
		{"another run", []string{file(0), filepath.Join(other, "shard-1-of-3.json"), file(2)}, "another run than"},
		{"not a shard", []string{junk}, "not a simulate shard file"},
		{"empty folder", []string{t.TempDir()}, "has no shard-*-of-*.json files"},
		{"no arguments", nil, "give the shard files"},
		{"with -set", []string{"-set", "trials=2", shards}, "simulate merge does not take -set: it is a flag of simulate run"},
		{"bad shard flag", []string{"-shard", "3/3"}, "give I/N with 0 <= I < N"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "reports")
			args := append([]string{"-out", out}, tc.args...)
			if tc.name != "bad shard flag" {
				args = append([]string{"-merge"}, args...)
			}
			code, stdout, stderr := simulate(t, bin, args...)
			if code != 2 || !strings.Contains(stderr, tc.want) || stdout != "" {
				t.Errorf("exit %d, stderr %q, stdout %q: want 2 and %q", code, stderr, stdout, tc.want)
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s was written", out)
			}
		})
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
