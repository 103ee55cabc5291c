package simulatecmd

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/overshoot-dev/overshoot/internal/cli"
)

// progressAfter is how long a run goes quietly before progress is shown.
const progressAfter = 2 * time.Second

// progress shows trials done on stderr, only when stderr is a terminal and
// the run has taken more than two seconds, so pipes and CI logs stay clean.
type progress struct {
	mu     sync.Mutex
	w      io.Writer
	on     bool
	start  time.Time
	points int
	shown  bool
}

func newProgress(w io.Writer, points int) *progress {
	return &progress{w: w, on: cli.IsTerminal(w), start: time.Now(), points: points}
}

// update reports that done of total trials of sweep point i have finished.
func (p *progress) update(i, done, total int) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.start) < progressAfter {
		return
	}
	p.shown = true
	if p.points > 1 {
		fmt.Fprintf(p.w, "\rpoint %d/%d: trial %d/%d ", i+1, p.points, done, total)
		return
	}
	fmt.Fprintf(p.w, "\rtrial %d/%d ", done, total)
}

// done clears the progress line.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
