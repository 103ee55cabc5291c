package attackcmd

import "time"

// fitMargin is the time a run fitted into one window (fitStart) keeps
// before the window's end, for the requests still in flight when it stops
// sending and for a target whose clock is a little off.
const fitMargin = time.Second

// fitStart is when a run of d against a limiter with windows of w should
// start so that it sees whole key-windows, as a trial of the model does: a
// key's window is floor(unix time / w), so a run that crosses a boundary
// sees its keys' windows for part of their length. When the rest of the
// current window holds the run and fitMargin, or no window can (d +
// fitMargin > w: such a run crosses a boundary wherever it starts), it
// returns the zero time: start now. Otherwise it returns the next window's
// start, less than d + fitMargin away.
func fitStart(now time.Time, w, d time.Duration) time.Time {
	if w <= 0 || d <= 0 || d+fitMargin > w {
		return time.Time{}
	}
	next := time.Unix(0, (now.UnixNano()/int64(w)+1)*int64(w))
	if next.Sub(now) >= d+fitMargin {
		return time.Time{}
	}
	return next
}
