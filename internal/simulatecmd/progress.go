package simulatecmd

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/overshoot-dev/overshoot/internal/cli"
)

// progressAfter is how long a run goes quietly before progress is shown.
const progressAfter = cli.ProgressAfter

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

// update reports that done of total trials of sweep point i have finished,
// with an estimate of the time left (points are taken to cost alike).
func (p *progress) update(i, done, total int) {
	p.show(func(el time.Duration) string { return progressLine(i, p.points, done, total, el) })
}

// show writes line(el), el the time the run has taken, over the last
// progress line: on a terminal only, once the run has taken
// progressAfter.
func (p *progress) show(line func(el time.Duration) string) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	el := time.Since(p.start)
	if el < progressAfter {
		return
	}
	p.shown = true
	fmt.Fprintf(p.w, "\r%s\033[K", line(el))
}

// progressLine is the progress line after el: trial done of total at
// point i of points (the point left out when there is one), and the time
// left, estimated from the share done so far.
func progressLine(i, points, done, total int, el time.Duration) string {
	line := fmt.Sprintf("trial %d/%d", done, total)
	if points > 1 {
		line = fmt.Sprintf("point %d/%d: %s", i+1, points, line)
	}
	if total <= 0 || points <= 0 {
		return line
	}
	f := (float64(i) + float64(done)/float64(total)) / float64(points)
	if f <= 0 || f >= 1 {
		return line
	}
	return line + ", " + cli.TimeLeft(time.Duration(float64(el)*(1-f)/f))
}

// done clears the progress line.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
