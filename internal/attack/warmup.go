package attack

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/overshoot-dev/overshoot/internal/redact"
	"github.com/overshoot-dev/overshoot/internal/target"
)

// maxWarmup bounds the connections a warm-up opens: beyond it, a run's
// first requests open their own as they would without one.
const maxWarmup = 10000

// warmRequest is one connection a warm-up opens: client c of spec s.
type warmRequest struct {
	s *spec
	c int
}

// warmUp opens, before the run, the connections its closed loops will keep
// busy: one request per in-flight slot, all at once, each carrying a
// token of its own (the run's token prefix and "warmup"), so that it is counted under
// another key than any the run measures and its answer is not recorded.
// The transport keeps the connections open for the run. Without it a run's
// first requests each set up a connection, and on a target whose
// connections are accepted by the threads that serve it (wrangler dev) that
// set-up changes how the first requests race: the model has none of it.
// The whole warm-up is bounded by timeout, the run's bound on one request.
// It returns how many requests it sent, and an error when none was
// answered.
func warmUp(ctx context.Context, base http.RoundTripper, reqs []warmRequest, timeout time.Duration) (int, error) {
	if len(reqs) == 0 {
		return 0, nil
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var (
		wg, all  sync.WaitGroup
		mu       sync.Mutex
		answered int
		lastErr  error
	)
	// Each request keeps its connection (its answer unread) until every
	// one has its answer's headers: a connection handed back early would
	// carry a second warm-up request, and the run would open the one
	// missing. (An answer without a body frees its connection with its
	// headers: against such a target some may still.)
	all.Add(len(reqs))
	for _, w := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := warmOne(ctx, base, w, &all)
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				answered++
			} else {
				lastErr = err
			}
		}()
	}
	wg.Wait()
	if answered == 0 {
		u := reqs[0].s.ids.url
		return len(reqs), fmt.Errorf("live.warmup: none of its %d requests to %s was answered (%s): check the target, or set live.warmup: false to run without opening the connections first",
			len(reqs), redact.URL(u), redact.Text(u, fmt.Sprint(lastErr)))
	}
	return len(reqs), nil
}

// warmSlots returns one warm-up request per in-flight slot of the closed
// loops, at most maxWarmup.
func warmSlots(specs []*spec) []warmRequest {
	var reqs []warmRequest
	for _, s := range specs {
		if !s.closed {
			continue
		}
		for c := range s.ids.pop.Clients {
			slots := int(s.workers)
			if s.slots != nil {
				slots = s.slots[c].slots
			}
			for range slots {
				reqs = append(reqs, warmRequest{s, c})
			}
		}
	}
	return reqs[:min(len(reqs), maxWarmup)]
}

// soak keeps every in-flight slot of the closed loops (reqs, warmSlots)
// sending warm-up requests back to back for d (after warmUp), each bounded by timeout, so
// that the run starts on a target and store that have served for a while:
// the built-in target decides them with its limiter on its store's
// servers (target.Config.Soak) without counting them. Started cold, the
// harness's Redis servers, their clients and the target serve the first
// few hundred milliseconds of a run about a fifth slower than later
// (docs/validation.md, "A cold start"), and a limiter's race is over by
// then; the model has no cold start. It returns how many requests it sent.
func soak(ctx context.Context, base http.RoundTripper, reqs []warmRequest, d, timeout time.Duration) int64 {
	end := time.Now().Add(d)
	ctx, cancel := context.WithDeadline(ctx, end.Add(timeout))
	defer cancel()
	var (
		wg   sync.WaitGroup
		sent atomic.Int64
	)
	for _, w := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil && time.Now().Before(end) {
				sent.Add(1)
				if soakOne(ctx, base, w, timeout) != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	return sent.Load()
}

// soakOne sends one warm-up request of w and reads its answer, bounded by
// timeout.
func soakOne(ctx context.Context, base http.RoundTripper, w warmRequest, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := warmupRequest(ctx, w)
	if err != nil {
		return err
	}
	resp, err := base.RoundTrip(req)
	if err != nil {
		return err
	}
	return drain(resp)
}

// drain reads a warm-up answer to the end (at most MaxBody) and closes
// it, so that its connection goes back to the transport's pool.
func drain(resp *http.Response) error {
	_, err := io.Copy(io.Discard, io.LimitReader(resp.Body, MaxBody))
	resp.Body.Close()
	return err
}

// warmupRequest is a warm-up request of w: the run id's prefix and a token
// no client sends, no client index (not a request of the run), and
// X-Overshoot-Warmup.
func warmupRequest(ctx context.Context, w warmRequest) (*http.Request, error) {
	id := w.s.ids
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header = id.header(w.c, id.runID+"warmup", "", "")
	delete(req.Header, HeaderClient)
	// The built-in target answers it without its limiter, or with its
	// limiter on a store that counts nothing (target.Config.Soak), so
	// that its store's counted work is the run's alone; another target
	// counts it under its own token.
	req.Header[target.HeaderWarmup] = []string{"1"}
	return req, nil
}

// warmOne sends one warm-up request, marks all once its answer's headers
// are in (or it failed), waits for every other request to do the same, and
// then reads its answer to the end, so that its connection goes back to
// the transport's pool.
func warmOne(ctx context.Context, base http.RoundTripper, w warmRequest, all *sync.WaitGroup) error {
	req, err := warmupRequest(ctx, w)
	if err != nil {
		all.Done()
		return err
	}
	resp, err := base.RoundTrip(req)
	all.Done()
	if err != nil {
		return err
	}
	all.Wait()
	return drain(resp)
}
