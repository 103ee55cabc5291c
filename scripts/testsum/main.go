// Command testsum reads `go test -json` on its standard input, prints what
// `go test` would (a line per package, the output of what failed), and
// ends with the tests that were skipped and why, so that a run shows what
// it did not check: the README's test command pipes the suite through it.
// It exits 1 when a test, a package or a build failed, or when the input
// held no package result at all.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	ImportPath string
	Test       string
	Elapsed    float64
	Output     string
}

// skip is one skipped test and the reason it gave.
type skip struct{ pkg, test, why string }

// maxSkipsListed bounds the skips listed one a line; the rest are counted.
const maxSkipsListed = 40

func main() {
	os.Exit(run(os.Stdin, os.Stdout))
}

// run summarises the events read from r onto w and returns the exit code.
func run(r io.Reader, w io.Writer) int {
	var (
		output  = map[string][]string{} // package+test -> its output lines
		skips   []skip
		failed  bool
		results int
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			fmt.Fprintln(w, sc.Text()) // not an event: go test's own words
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "build-output":
			fmt.Fprint(w, e.Output)
		case "build-fail":
			failed = true
		case "output":
			if e.Test == "" {
				// A package's own lines: its result line, and what a
				// test binary printed outside any test (a panic).
				if isResult(e.Output) {
					fmt.Fprint(w, e.Output)
				} else {
					output[key] = append(output[key], e.Output)
				}
				continue
			}
			output[key] = append(output[key], e.Output)
		case "skip":
			if e.Test != "" {
				skips = append(skips, skip{e.Package, e.Test, reason(output[key])})
			}
			delete(output, key)
		case "pass":
			if e.Test == "" {
				results++
			}
			delete(output, key)
		case "fail":
			failed = true
			if e.Test == "" {
				results++
				for _, l := range output[key] {
					fmt.Fprint(w, l)
				}
			} else {
				for _, l := range output[key] {
					fmt.Fprint(w, l)
				}
			}
			delete(output, key)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(w, "testsum: reading go test -json: %v\n", err)
		failed = true
	}
	writeSkips(w, skips)
	if results == 0 {
		fmt.Fprintln(w, "testsum: no package result was read: pipe `go test -json ./...` into it")
		return 1
	}
	if failed {
		return 1
	}
	return 0
}

// isResult reports whether a package's output line is go test's result
// line for it ("ok", "FAIL", "?").
func isResult(l string) bool {
	return strings.HasPrefix(l, "ok  \t") || strings.HasPrefix(l, "FAIL\t") || strings.HasPrefix(l, "?   \t") ||
		strings.HasPrefix(l, "ok \t") || l == "FAIL\n"
}

// reason returns why a skipped test skipped: the last line it printed
// before its "--- SKIP" line, with the file:line prefix the testing
// package adds, or "(no reason given)".
func reason(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "--- SKIP") || strings.HasPrefix(l, "=== ") {
			continue
		}
		return l
	}
	return "(no reason given)"
}

// writeSkips ends the run with what it skipped: one line each, grouped
// by package, at most maxSkipsListed, then how many more.
func writeSkips(w io.Writer, skips []skip) {
	if len(skips) == 0 {
		fmt.Fprintln(w, "skipped: none")
		return
	}
	sort.SliceStable(skips, func(i, j int) bool { return skips[i].pkg < skips[j].pkg })
	fmt.Fprintf(w, "skipped: %d test(s), so these were not checked:\n", len(skips))
	for i, s := range skips {
		if i == maxSkipsListed {
			fmt.Fprintf(w, "  ... and %d more\n", len(skips)-i)
			break
		}
		fmt.Fprintf(w, "  %s %s: %s\n", s.pkg, s.test, s.why)
	}
}
