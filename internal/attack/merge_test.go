package attack

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// TestMergeRefusesResultsOutsideTheRun: a result sent years after the
// run's start (an edited start_at) is an error, not an interval of the
// series per second in between (out of memory before).
func TestMergeRefusesResultsOutsideTheRun(t *testing.T) {
	sc := parse(t, `
name: m
limiter: {name: t, limit: 5, window: 10s}
store: {kind: memory}
traffic:
  - name: bot
    closed_loop: {concurrency: 1}
`)
	now := time.Now()
	var buf bytes.Buffer
	enc := vegeta.NewEncoder(&buf)
	if err := enc.Encode(&vegeta.Result{Attack: "bot", Code: 200, Method: "GET", URL: "http://x/", Timestamp: now}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		start time.Time
		ok    bool
	}{
		{"in the run", now.Add(-100 * time.Millisecond), true},
		{"years before", now.AddDate(-5, 0, 0), false},
		{"after", now.Add(time.Minute), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Merge(MergeOptions{Plan: livePlan(t, sc), Limit: 5, Window: 10 * time.Second, Start: tc.start,
				Elapsed: time.Second, Results: []io.Reader{bytes.NewReader(buf.Bytes())}})
			if tc.ok != (err == nil) || err != nil && !strings.Contains(err.Error(), "outside the run") {
				t.Errorf("err %v, want ok %v", err, tc.ok)
			}
		})
	}
}
