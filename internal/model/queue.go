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
//
// Most events schedule the next one as they run (a read's result schedules
// the write, a response the client's next request), so a driver can take
// the earliest event (take), run it, and let its first push replace it at
// the top of the heap: one sift down instead of a pop's sift down and a
// push's sift up. settle removes a taken event nothing replaced. Events
// come out in the same order either way: (at, seq) orders them totally.
type queue struct {
	ev    []event
	seq   uint64
	taken bool // ev[0] was taken and is to be replaced or removed
}

// push schedules an event.
func (q *queue) push(at int64, kind uint8, idx int32) {
	q.seq++
	e := event{at: at, seq: q.seq, idx: idx, kind: kind}
	if q.taken {
		q.taken = false
		q.ev[0] = e
		q.down(e)
		return
	}
	q.ev = append(q.ev, e)
	// Sift up.
	h := q.ev
	i := len(h) - 1
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
	q.settle()
	top := q.ev[0]
	q.removeTop()
	return top
}

// take returns the earliest event and marks it taken: the next push
// replaces it, or settle removes it. The queue must not be empty.
func (q *queue) take() event {
	q.settle()
	q.taken = true
	return q.ev[0]
}

// settle removes a taken event that no push replaced.
func (q *queue) settle() {
	if q.taken {
		q.taken = false
		q.removeTop()
	}
}

// removeTop removes ev[0].
func (q *queue) removeTop() {
	n := len(q.ev) - 1
	e := q.ev[n]
	q.ev = q.ev[:n]
	if n > 0 {
		q.ev[0] = e
		q.down(e)
	}
}

// down sifts e, which is at ev[0], down to its place.
func (q *queue) down(e event) {
	h := q.ev
	n := uint(len(h))
	i := uint(0)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		x := &h[c]
		if r := c + 1; r < n && h[r].before(x) {
			c, x = r, &h[r]
		}
		if !x.before(&e) {
			break
		}
		h[i] = *x
		i = c
	}
	h[i] = e
}

// top returns the earliest event without removing it; the queue must not
// be empty.
func (q *queue) top() *event {
	q.settle()
	return &q.ev[0]
}

// len returns the number of scheduled events, a taken one not counted.
func (q *queue) len() int {
	if q.taken {
		return len(q.ev) - 1
	}
	return len(q.ev)
}
