package main

import (
	"strings"
	"testing"
)

// TestRun: a package that passes with a skip, one that fails, and a
// build failure; the result lines pass through, a failed test's output
// is printed, and the run ends with the skip and its reason, exiting 1.
func TestRun(t *testing.T) {
	in := `{"Action":"start","Package":"x/a"}
{"Action":"run","Package":"x/a","Test":"TestWorker"}
{"Action":"output","Package":"x/a","Test":"TestWorker","Output":"=== RUN   TestWorker\n"}
{"Action":"output","Package":"x/a","Test":"TestWorker","Output":"    worker_test.go:12: no Worker: set OVERSHOOT_WORKER_URL (examples/worker/dev.sh start)\n"}
{"Action":"output","Package":"x/a","Test":"TestWorker","Output":"--- SKIP: TestWorker (0.00s)\n"}
{"Action":"skip","Package":"x/a","Test":"TestWorker"}
{"Action":"output","Package":"x/a","Output":"ok  \tx/a\t0.01s\n"}
{"Action":"pass","Package":"x/a"}
{"Action":"run","Package":"x/b","Test":"TestSum"}
{"Action":"output","Package":"x/b","Test":"TestSum","Output":"    sum_test.go:9: 1+1 = 3\n"}
{"Action":"output","Package":"x/b","Test":"TestSum","Output":"--- FAIL: TestSum (0.00s)\n"}
{"Action":"fail","Package":"x/b","Test":"TestSum"}
{"Action":"output","Package":"x/b","Output":"FAIL\tx/b\t0.01s\n"}
{"Action":"fail","Package":"x/b"}
{"ImportPath":"x/c","Action":"build-output","Output":"x/c/c.go:3:1: syntax error\n"}
{"ImportPath":"x/c","Action":"build-fail"}
`
	var out strings.Builder
	code := run(strings.NewReader(in), &out)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for _, want := range []string{
		"ok  \tx/a\t0.01s\n",
		"    sum_test.go:9: 1+1 = 3\n",
		"FAIL\tx/b\t0.01s\n",
		"x/c/c.go:3:1: syntax error\n",
		"skipped: 1 test(s), so these were not checked:\n  x/a TestWorker: worker_test.go:12: no Worker: set OVERSHOOT_WORKER_URL (examples/worker/dev.sh start)\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "=== RUN") {
		t.Errorf("a passing or skipped test's output was printed:\n%s", out.String())
	}
}

// TestRunPasses: all passing, nothing skipped, exit 0; and no input at
// all is a failure, not a silent pass.
func TestRunPasses(t *testing.T) {
	var out strings.Builder
	in := `{"Action":"output","Package":"x/a","Output":"ok  \tx/a\t0.01s\n"}` + "\n" + `{"Action":"pass","Package":"x/a"}` + "\n"
	if code := run(strings.NewReader(in), &out); code != 0 || !strings.Contains(out.String(), "skipped: none") {
		t.Errorf("exit %d, output %q", code, out.String())
	}
	out.Reset()
	if code := run(strings.NewReader(""), &out); code != 1 {
		t.Errorf("no input: exit %d, want 1", code)
	}
}
