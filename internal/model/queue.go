package model

// event is one scheduled step of a trial: at a virtual time (ns since the
// trial's start), what to do (kind) and to which request, client or
// population (idx). Events are small values; the queue holds them by value,
// so scheduling allocates nothing once the queue has grown.
type event struct {
	at   int64
	seq  uint64
	idx  int32
	kind uint8
}

// before orders events by time, then by the order they were scheduled, so
// that events at one instant run first-in first-out and every run of a
// trial takes the same path.
func (a *event) before(b *event) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// queue is a binary min-heap of events over a slice.
type queue struct {
	ev  []event
	seq uint64
}

// push schedules an event.
func (q *queue) push(at int64, kind uint8, idx int32) {
	q.seq++
	q.ev = append(q.ev, event{at: at, seq: q.seq, idx: idx, kind: kind})
	// Sift up.
	h := q.ev
	i := len(h) - 1
	e := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if !e.before(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

// pop removes and returns the earliest event; the queue must not be empty.
func (q *queue) pop() event {
	h := q.ev
	top := h[0]
	n := len(h) - 1
	e := h[n]
	q.ev = h[:n]
	h = h[:n]
	if n == 0 {
		return top
	}
	// Sift down.
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && h[r].before(&h[c]) {
			c = r
		}
		if !h[c].before(&e) {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = e
	return top
}

// top returns the earliest event without removing it; the queue must not
// be empty.
func (q *queue) top() *event { return &q.ev[0] }

// len returns the number of scheduled events.
func (q *queue) len() int { return len(q.ev) }
