package attack

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// countingWriter counts what is written to it.
type countingWriter struct{ n atomic.Int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n.Add(int64(len(p))); return len(p), nil }

// TestBodiesAreBounded: a target that answers with an endless body is
// answered all the same (a limiter's answer is its status and headers):
// each response is read to MaxBody at most, so requests end at once
// instead of at their timeout, memory and the results file stay small, and
// the run ends on time.
func TestBodiesAreBounded(t *testing.T) {
	chunk := make([]byte, 64<<10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		for r.Context().Err() == nil { // endless, 64 MB/s at most
			if _, err := w.Write(chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			time.Sleep(time.Millisecond)
		}
	}))
	defer srv.Close()
	sc := parse(t, `
name: endless
limiter: {name: t, limit: 5, window: 10s}
store: {kind: memory}
traffic:
  - name: bot
    closed_loop: {concurrency: 2}
`)
	var results countingWriter
	began := time.Now()
	s, err := Run(context.Background(), Options{Plan: livePlan(t, sc), URL: srv.URL, Duration: 300 * time.Millisecond,
		Timeout: 3 * time.Second, Results: &results})
	if err != nil {
		t.Fatal(err)
	}
	within(t, "the run", time.Since(began), 2500*time.Millisecond) // each request would wait its 3 s timeout
	n := s.Totals.Requests + s.Totals.Errors
	if s.Totals.Allowed == 0 || s.Live.Status["error"] != 0 {
		t.Errorf("statuses %v, %d allowed: want every endless answer read as an answer (200)", s.Live.Status, s.Totals.Allowed)
	}
	if per := results.n.Load() / max(n, 1); per > 2*MaxBody {
		t.Errorf("%d bytes of results for %d responses (%d each): want at most about MaxBody (%d) each", results.n.Load(), n, per, MaxBody)
	}
}
