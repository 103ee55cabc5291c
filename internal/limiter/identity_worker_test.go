package limiter

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// workerSource is the example Worker, whose callerOf is the JavaScript the
// identity table describes.
const workerSource = "../../examples/worker/src/index.js"

// callerRow is one caller identity case for node: the token and the header
// lines, in order.
type callerRow struct {
	Name    string      `json:"name"`
	Token   string      `json:"token"`
	Headers [][2]string `json:"headers"`
}

// callerJS is run by node with the Worker's file URL as its argument and the
// rows as JSON on stdin; it prints the Worker's callerOf for each row.
const callerJS = `import { readFileSync } from "node:fs";
const { callerOf } = await import(process.argv[1]);
const rows = JSON.parse(readFileSync(0, "utf8"));
console.log(JSON.stringify(rows.map((row) => {
  const h = new Headers();
  for (const [name, value] of row.headers) h.append(name, value);
  h.set("X-Anon-Token", row.token);
  return callerOf(new Request("http://x/", { headers: h }));
})));`

// isASCII reports whether the header holds only ASCII names and values: the
// Fetch API's headers are byte strings, so other text does not reach the
// Worker as Go's string does, and those rows are checked by hand only.
func isASCII(h http.Header) bool {
	for name, values := range h {
		for _, s := range append([]string{name}, values...) {
			for i := 0; i < len(s); i++ {
				if s[i] >= 0x80 {
					return false
				}
			}
		}
	}
	return true
}

// fetchNormalized is h as a Fetch API Headers object holds it: each value
// with its leading and trailing HTTP white space (tab, LF, CR, space)
// removed, as HTTP parsers (Go's included) remove it from a header line.
func fetchNormalized(h http.Header) http.Header {
	out := http.Header{}
	for name, values := range h {
		for _, v := range values {
			out.Add(name, strings.Trim(v, " \t\r\n"))
		}
	}
	return out
}

// TestCallerAgainstWorker runs the ASCII rows of the caller identity tables
// through the example Worker's own callerOf with node, and compares with
// Caller on the same headers: ?? (an empty header is present), the first
// X-Forwarded-For entry trimmed, repeated lines joined.
func TestCallerAgainstWorker(t *testing.T) {
	node := nodeBinary(t)
	abs, err := filepath.Abs(workerSource)
	if err != nil {
		t.Fatal(err)
	}
	type goCase struct {
		name, token string
		h           http.Header
	}
	var cases []goCase
	for _, c := range callerCases {
		cases = append(cases, goCase{c.name, "tok", c.h})
	}
	wire, err := http.ReadRequest(bufio.NewReader(strings.NewReader(
		"GET / HTTP/1.1\r\nHost: x\r\nx-forwarded-for:  10.0.0.1 ,10.0.0.2\r\nX-Forwarded-For: 10.0.0.3\r\nX-Anon-Token: anon_abc\r\n\r\n")))
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases, goCase{"from the wire", DefaultTokenSource.Token(wire), wire.Header})

	var rows []callerRow
	var want []string
	for _, c := range cases {
		if !isASCII(c.h) {
			t.Logf("%s: not ASCII, checked by TestCaller only", c.name)
			continue
		}
		h := fetchNormalized(c.h)
		row := callerRow{Name: c.name, Token: c.token, Headers: [][2]string{}}
		for name, values := range h {
			if strings.EqualFold(name, "X-Anon-Token") {
				continue // the row's token
			}
			for _, v := range values {
				row.Headers = append(row.Headers, [2]string{name, v})
			}
		}
		rows = append(rows, row)
		want = append(want, Caller(c.token, h))
	}
	if len(rows) < 10 {
		t.Fatalf("only %d ASCII rows: the table lost its cases", len(rows))
	}
	in, err := json.Marshal(rows)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "--input-type=module", "-e", callerJS, (&url.URL{Scheme: "file", Path: abs}).String())
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("node %s on %s: %v\n%s", node, workerSource, err, msg)
	}
	var got []string
	if err := json.Unmarshal(out, &got); err != nil || len(got) != len(rows) {
		t.Fatalf("node printed %q: want %d callers as a JSON array (%v)", out, len(rows), err)
	}
	for i, row := range rows {
		if got[i] != want[i] {
			t.Errorf("%s: the Worker's callerOf = %q, Caller = %q (headers %q)", row.Name, got[i], want[i], row.Headers)
		}
	}
}
