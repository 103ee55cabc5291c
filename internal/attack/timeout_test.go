package attack

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestTimeoutBoundsEachRequest holds Options.Timeout to bounding a whole
// request, the response body included: a target that stalls before its
// headers, or halfway through its body, gets transport errors after the
// timeout, not answers, and the run ends on time.
func TestTimeoutBoundsEachRequest(t *testing.T) {
	for _, stall := range []string{"headers", "body"} {
		t.Run(stall, func(t *testing.T) {
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if stall == "body" {
					w.Write([]byte("half"))
					w.(http.Flusher).Flush()
				}
				select {
				case <-release:
				case <-r.Context().Done():
				}
			}))
			defer srv.Close()
			defer close(release)
			sc := parse(t, `
name: stall
limiter: {name: t, limit: 5, window: 10s}
store: {kind: memory}
traffic:
  - name: bot
    closed_loop: {concurrency: 2}
live: {warmup: false}   # the target stalls: a warm-up would find nothing answered
`)
			began := time.Now()
			s, err := Run(context.Background(), Options{Plan: livePlan(t, sc), URL: srv.URL, Duration: 300 * time.Millisecond, Timeout: 100 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			within(t, "the run", time.Since(began), 5*time.Second)
			if s.Live.Status["error"] == 0 || s.Totals.Allowed != 0 {
				t.Errorf("statuses %v, %d allowed: want only transport errors (timeouts)", s.Live.Status, s.Totals.Allowed)
			}
		})
	}
}
