package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestBlockSweepValues checks that a sweep value written as a block (a
// mapping over several lines, a list under a list entry) expands exactly as
// the same value in flow style.
func TestBlockSweepValues(t *testing.T) {
	base := minimal + "duration: 10s\n"
	tests := []struct {
		name, block, flow string
	}{
		{"mapping", `
sweep:
  - path: traffic.bot.closed_loop
    values:
      - concurrency: 1
        think: 100ms
      - concurrency: 2
`, `
sweep:
  - path: traffic.bot.closed_loop
    values: [{concurrency: 1, think: 100ms}, {concurrency: 2}]
`},
		{"nested latency", `
sweep:
  - path: store.kv.cold_read
    values:
      - dist: empirical
        quantiles:
          - {p: 0.01, value: 5ms}
          - p: 1
            value: 50ms
      - 5ms
`, `
sweep:
  - path: store.kv.cold_read
    values: [{dist: empirical, quantiles: [{p: 0.01, value: 5ms}, {p: 1, value: 50ms}]}, 5ms]
`},
		{"list", `
sweep:
  - path: store.kv.outages
    values:
      - - start: 1s
          duration: 2s
        - {start: 5s, duration: 1s, ops: write}
      - []
`, `
sweep:
  - path: store.kv.outages
    values: [[{start: 1s, duration: 2s}, {start: 5s, duration: 1s, ops: write}], []]
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expand := func(text string) []Point {
				t.Helper()
				s, err := Parse("sweep.yaml", []byte(base+text))
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				pts, err := s.Expand()
				if err != nil {
					t.Fatalf("Expand: %v", err)
				}
				return pts
			}
			block, flow := expand(tt.block), expand(tt.flow)
			if len(block) != len(flow) {
				t.Fatalf("%d points from the block form, %d from the flow form", len(block), len(flow))
			}
			for i := range block {
				if b, f := block[i].Scenario.Hash(), flow[i].Scenario.Hash(); b != f {
					t.Errorf("point %d: block %s (%s), flow %s (%s)", i, block[i].Label(), b, flow[i].Label(), f)
				}
				if strings.Contains(block[i].Label(), "\n") {
					t.Errorf("point %d: label %q spans lines", i, block[i].Label())
				}
			}
		})
	}
}

// TestReadLimit checks that the size limit holds on what is read, not on
// the size the file claims: /dev/zero has size 0 and no end.
func TestReadLimit(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(big, []byte(minimal+"#"+strings.Repeat("x", MaxFileSize)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	exact := filepath.Join(t.TempDir(), "exact.yaml")
	if err := os.WriteFile(exact, []byte(minimal+strings.Repeat("#", MaxFileSize-len(minimal))), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want string // in the error; "" for none
	}{
		{"/dev/zero", "over 1048576 bytes"},
		{big, "over 1048576 bytes"},
		{exact, ""},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			if _, err := os.Stat(tt.path); err != nil {
				t.Skipf("no %s here: %v", tt.path, err)
			}
			_, err := Load(tt.path)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				return
			}
			var se *Error
			if !errors.As(err, &se) || se.File != tt.path || !strings.Contains(se.Msg, tt.want) {
				t.Fatalf("Load(%s) = %v, want an *Error naming the file and %q", tt.path, err, tt.want)
			}
		})
	}
}

// TestValueMessages checks the messages for values of the wrong kind:
// plain words naming the field and what to write, no Go type names, no
// number the user never wrote, no suggestion that is itself invalid.
func TestValueMessages(t *testing.T) {
	tests := []struct {
		name string
		file string // the scenario, minimal when empty
		set  string
		want string // in the message
		line int    // of the error in the file (a -set's error is in -set #1)
	}{
		{"-inf trials", "", "trials=-.inf", "trials: -.inf is not a number: write a whole number", 0},
		{".nan trials", "", "trials=.nan", "trials: .nan is not a number", 0},
		{"NaN trials", "", "trials=NaN", "trials: NaN is not a number", 0},
		{"inf limit", "", "limiter.limit=.inf", "limiter.limit: .inf is not a number", 0},
		{"NaN duration", "", "limiter.window=NaN", `duration "NaN" is not a duration: write a number of 0 or more with a unit, e.g. "60s"`, 0},
		{"Inf duration", "", "limiter.window=Inf", `duration "Inf" is not a duration`, 0},
		{"exponent duration", "", "limiter.window=1e3", `duration "1e3" is not a duration`, 0},
		{"bare number duration", "", "limiter.window=60", `write e.g. "60s" or "60ms"`, 0},
		{"list question", "", "question=[a]", "question: a list is not a string: write one line of text", 0},
		{"mapping name", "", "name={a: 1}", "name: a mapping is not a string", 0},
		{"anchored list question", minimal + "question: &q [a]\n", "", "question: a list is not a string", 8},
		{"block list question", "question:\n  - a\n" + minimal, "", "question: a list is not a string", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := tt.file
			if file == "" {
				file = minimal
			}
			var sets []string
			if tt.set != "" {
				sets = []string{tt.set}
			}
			_, err := ParseWithOverrides("x.yaml", []byte(file), sets)
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want an *Error", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.want) {
				t.Errorf("%q does not say %q", msg, tt.want)
			}
			for _, bad := range []string{"-9223372036854775808", "too large", "NaNs", "Infs", "1e3s", "interface", "Go struct", "Scenario."} {
				if strings.Contains(msg, bad) {
					t.Errorf("%q says %q", msg, bad)
				}
			}
			if tt.set != "" && se.Set != 1 {
				t.Errorf("-set #%d, want #1 (%s)", se.Set, msg)
			}
			if tt.set == "" && se.Line != tt.line {
				t.Errorf("line %d, want %d (%s)", se.Line, tt.line, msg)
			}
		})
	}
}

// TestSweepValueTextReadsBack checks valueText on a value that has no flow
// form (a literal block): it is kept as a block and reads back the same as
// written at its path.
func TestSweepValueTextReadsBack(t *testing.T) {
	literal := "|\n  two\n  lines\n"
	s, err := Parse("x.yaml", []byte(minimal+"sweep:\n  - path: question\n    values:\n      - |\n        two\n        lines\n      - one\n"))
	if err != nil {
		t.Fatal(err)
	}
	pts, err := s.Expand()
	if err != nil {
		t.Fatal(err)
	}
	direct, err := Parse("x.yaml", []byte(minimal+"question: "+literal))
	if err != nil {
		t.Fatal(err)
	}
	got := []string{pts[0].Scenario.Question, pts[1].Scenario.Question}
	if want := []string{direct.Question, "one"}; !reflect.DeepEqual(got, want) {
		t.Errorf("questions %q, want %q", got, want)
	}
}

// TestSetErrors checks where -set errors point: the -set's number and a
// column in its path=value text, never a line of the file; and that a
// value nested too deep is refused before it is parsed.
func TestSetErrors(t *testing.T) {
	deep := strings.Repeat("[", 60000)
	deepSeq := strings.Repeat("- ", 60000) + "x"
	tests := []struct {
		name     string
		sets     []string
		set, col int    // the error's -set number and column
		want     string // in the message
	}{
		{"bad sweep value", []string{"limiter.limit=6", "sweep=[{path: limiter.limit, values: [1, x]}]"}, 2, 42,
			`x.yaml: -set #2, column 42: sweep point limiter.limit=x: limiter.limit: "x" is not a whole number`},
		{"unknown field in a value", []string{"traffic=[{name: a, closed_loop: {concurrenc: 1}}]"}, 1, 34,
			`-set #1 traffic=[{name: a, closed_loop: {concurrenc: 1}}], column 34: unknown field "concurrenc"`},
		{"malformed value", []string{"limiter.limit=5", "traffic=[{name: a"}, 2, 0, `-set #2 traffic=[{name: a`},
		{"wrong type in a value", []string{"traffic=[{closed_loop: {concurrency: [1]}}]"}, 1, 38,
			"traffic.pop0.closed_loop.concurrency: a list is not a whole number"},
		{"validation", []string{"limiter.limit=0"}, 1, 0, "x.yaml: -set #1 limiter.limit=0: limiter.limit: 0 is out of range"},
		{"deep brackets", []string{"store.kv.outages=" + deep}, 1, 17 + MaxFlowDepth + 1, "brackets nested deeper than 64"},
		{"deep sequences", []string{"limiter.limit=1", "store.kv.outages=" + deepSeq}, 2, 18, "sequences nested deeper than 64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := ParseWithOverrides("x.yaml", []byte(minimal), tt.sets)
			runtime.ReadMemStats(&after)
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want an *Error", err)
			}
			msg := err.Error()
			if se.Set != tt.set || (tt.col != 0 && se.Column != tt.col) {
				t.Errorf("-set #%d column %d, want #%d column %d: %s", se.Set, se.Column, tt.set, tt.col, msg)
			}
			if !strings.Contains(msg, tt.want) {
				t.Errorf("%q does not say %q", msg, tt.want)
			}
			if regexp.MustCompile(`x\.yaml:\d`).MatchString(msg) {
				t.Errorf("%q points into the file", msg)
			}
			if len(msg) > 400 {
				t.Errorf("message is %d bytes long: %.200s...", len(msg), msg)
			}
			// Allocation, not time: the old parser spent gigabytes here.
			if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
				t.Errorf("parsing allocated %d MB", n>>20)
			}
		})
	}
}

// TestOpenRateBound checks the bound on what an open-loop population
// sends: the simulator's memory follows its requests in flight.
func TestOpenRateBound(t *testing.T) {
	tests := []struct {
		traffic string
		want    string // in the error; "" for valid
	}{
		{"{name: bot, open_loop: {rate: 1000000/s}}", ""},
		{"{name: bot, clients: 1000, open_loop: {rate: 1000/s}}", ""},
		{"{name: bot, open_loop: {rate: 1e9/s}}", "traffic.bot.open_loop.rate: 1000000000/s per client x 1 clients = 1e+09 requests/s, over the 1000000/s"},
		{"{name: bot, clients: 1001, open_loop: {rate: 1000/s}}", "traffic.bot.open_loop.rate: 1000/s per client x 1001 clients"},
		{"{name: bot, clients: 10, open_loop: {rate: 1/s, ramp: {to: 1e6/s, over: 1m}}}", "traffic.bot.open_loop.ramp.to:"},
	}
	for _, tt := range tests {
		t.Run(tt.traffic, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte("limiter: {limit: 5, window: 1m}\ntraffic: ["+tt.traffic+"]\n"))
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Parse: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Parse: %v, want an error saying %q", err, tt.want)
			case tt.want != "" && !strings.HasPrefix(err.Error(), "x.yaml:2:"):
				t.Errorf("%v is not positioned at line 2", err)
			}
		})
	}
}
