package model

import (
	"math"
	"math/bits"
)

// event is one scheduled step of a trial: at a virtual time (ns since the
// trial's start), what to do (kind) and to which request, client or
// population (idx). Events are small values; the queue holds them by value,
// so scheduling allocates nothing once the queue has grown.
type event struct {
	at   int64
	idx  int32
	kind uint8
}

// queue is the trial's event queue: a priority queue for times that never
// go back, as a discrete-event simulation's do. Events come out by time,
// and events at one time in the order they were pushed.
//
// Most events are kept in a calendar queue (R. Brown, 1988): a ring of
// buckets, each 1<<shift ns wide, that together span a "year"; an event is
// kept in the bucket of its time modulo the year, in a list sorted by time
// (an event goes after those at its time, so ties leave in push order).
// The cursor is the bucket, counted from time 0, that no event is before.
// The earliest event is the first of the cursor's bucket when that event
// falls in the cursor's span of time; otherwise the cursor moves on to the
// next bucket that holds events (found from bitmaps). An event is placed
// once and taken once, however many are scheduled, where the radix heap
// this queue replaced moved an event down about two levels on its way out
// when 10,000 clients kept it busy, and a binary heap's sift grows with the
// number of events (10,000: 13 levels).
//
// A calendar is only as good as its width: too wide, and an insertion
// steps past many events of its bucket; too narrow, and the cursor moves
// past many empty buckets. The queue counts both (queueWork) and sizes
// itself to the events it is given, every as many insertions as it has
// buckets: one to eight buckets an event, and a width that shrinks when
// insertions step past events and grows when the cursor moves past empty
// buckets. When a whole year passes with no event in it, the width
// is set afresh from the events' mean time ahead. Events that come in
// waves (10,000 clients started at once) crowd a width set from the mean
// alone; the counts find the width their waves need. A rebuild costs one
// insertion an event and happens at most once in as many insertions as
// there are buckets, so the queue stops allocating once the number of
// events and their spacing settle.
//
// An event pushed into an empty queue (a lone client's next step: the
// scenario's only event), or ahead of the one kept so, is kept aside as the
// front instead, and taken from there with no search.
//
// The buckets are lists linked through one pool of nodes, so the queue
// stops allocating once the pool has grown to the most events ever
// scheduled at once.
type queue struct {
	front    event // when hasFront, the earliest event, not in the calendar
	hasFront bool

	nodes []node // nodes[0] is not used: link 0 is the end of a list
	free  int32  // the first unused node

	// buckets are the calendar's lists; mask is len(buckets)-1.
	buckets []bucket
	used    []uint64 // bit b%64 of used[b/64]: bucket b holds events
	words   []uint64 // bit w%64 of words[w/64]: used[w] != 0
	mask    int64
	shift   uint  // a bucket spans 1<<shift ns
	cur     int64 // the cursor: no event in the calendar is before cur<<shift
	cal     int   // events in the calendar

	last int64 // the latest time taken
	n    int   // events scheduled

	// work is what the calendar did so far, and checked what it had done
	// when its size was last checked; it is checked again once work.inserts
	// passes nextCheck.
	work, checked queueWork
	nextCheck     int
}

// queueWork counts a calendar's work: events inserted (again, too, when it
// is rebuilt), steps past another event in a bucket to insert one, and
// moves of the cursor past buckets with no event in its year.
type queueWork struct {
	inserts, steps, moves int
}

// bucket is a calendar bucket's list of nodes, sorted by time.
type bucket struct {
	head, tail int32
}

// node is an event in the queue's pool, and the next in its list.
type node struct {
	event
	next int32
}

// minBuckets is the fewest buckets a calendar has; maxAhead is the most
// that one event counts for in the mean time ahead (about 18 minutes), so
// that an event at the end of time does not set the width alone.
const (
	minBuckets = 64
	maxAhead   = 1 << 40
)

// push schedules an event. Its time must not be before the latest event
// popped. push panics when it is, as the order would break.
func (q *queue) push(at int64, kind uint8, idx int32) {
	if at < q.last {
		panic("model: event scheduled before the latest event taken")
	}
	q.n++
	e := event{at: at, idx: idx, kind: kind}
	if q.hasFront {
		if q.buckets == nil {
			q.resize(minBuckets, 0)
		}
		if at < q.front.at {
			// e goes ahead of the front, which goes ahead of every event
			// in the calendar.
			q.front, e = e, q.front
			q.insert(q.node(e), e.at, true)
			return
		}
		q.insert(q.node(e), at, false)
		return
	}
	if q.cal == 0 {
		q.front, q.hasFront = e, true
		return
	}
	q.insert(q.node(e), at, false)
}

// node returns a pool node holding e.
func (q *queue) node(e event) int32 {
	f := q.free
	if f == 0 {
		if len(q.nodes) == 0 {
			q.nodes = append(q.nodes, node{})
		}
		q.nodes = append(q.nodes, node{})
		f = int32(len(q.nodes) - 1)
	} else {
		q.free = q.nodes[f].next
	}
	q.nodes[f] = node{event: e}
	return f
}

// insert puts node f, whose next is 0, into its bucket: after the events
// at or before its time (at), or, when first, at the head (f is then at or
// before every event in the calendar). It checks the calendar's size every
// as many insertions as it has buckets.
func (q *queue) insert(f int32, at int64, first bool) {
	if q.work.inserts++; q.work.inserts > q.nextCheck {
		q.check(false)
	}
	a := at >> q.shift
	if q.cal == 0 || a < q.cur {
		q.cur = a
	}
	q.cal++
	b := a & q.mask
	bk := &q.buckets[b]
	h := bk.head
	switch {
	case h == 0:
		bk.head, bk.tail = f, f
		q.used[b>>6] |= 1 << (b & 63)
		q.words[b>>12] |= 1 << (b >> 6 & 63)
	case first || at < q.nodes[h].at:
		q.nodes[f].next, bk.head = h, f
	case at >= q.nodes[bk.tail].at:
		q.nodes[bk.tail].next, bk.tail = f, f
	default: // between the head and the tail
		p := h
		for q.nodes[q.nodes[p].next].at <= at {
			p = q.nodes[p].next
			q.work.steps++
		}
		q.nodes[f].next, q.nodes[p].next = q.nodes[p].next, f
	}
}

// popBefore removes and returns the earliest event when there is one
// before end.
func (q *queue) popBefore(end int64) (event, bool) {
	if q.hasFront {
		if q.front.at >= end {
			return event{}, false
		}
		q.hasFront = false
		q.n--
		q.last = q.front.at
		return q.front, true
	}
	if q.cal == 0 {
		return event{}, false
	}
	for moved := int64(0); ; {
		b := q.cur & q.mask
		bk := &q.buckets[b]
		if f := bk.head; f != 0 {
			nd := &q.nodes[f]
			if nd.at>>q.shift == q.cur {
				if nd.at >= end {
					return event{}, false
				}
				if bk.head = nd.next; nd.next == 0 {
					q.unmark(b)
				}
				nd.next, q.free = q.free, f
				q.last = nd.at
				q.n--
				q.cal--
				return nd.event, true
			}
		}
		d := (q.next(b) - b) & q.mask
		if d == 0 {
			d = q.mask + 1
		}
		if moved += d; moved <= q.mask {
			q.work.moves++
			q.cur += d
			continue
		}
		// A whole year without an event: the width is too small for how far
		// apart the events are. Set it afresh, and go to the earliest.
		q.check(true)
		q.cur, moved = q.earliest()>>q.shift, 0
	}
}

// unmark marks bucket b empty in the bitmaps.
func (q *queue) unmark(b int64) {
	if q.used[b>>6] &^= 1 << (b & 63); q.used[b>>6] == 0 {
		q.words[b>>12] &^= 1 << (b >> 6 & 63)
	}
}

// next returns the first bucket after b, going round the ring, that holds
// events: b itself when no other does. The calendar must hold an event.
func (q *queue) next(b int64) int64 {
	i := (b + 1) & q.mask
	if m := q.used[i>>6] >> (i & 63); m != 0 {
		return i + int64(bits.TrailingZeros64(m))
	}
	w := q.nextWord((i>>6 + 1) & (q.mask >> 6))
	return w<<6 + int64(bits.TrailingZeros64(q.used[w]))
}

// nextWord returns the first word of used from w on, going round, that is
// not 0. One must be.
func (q *queue) nextWord(w int64) int64 {
	for {
		if m := q.words[w>>6] >> (w & 63); m != 0 {
			return w + int64(bits.TrailingZeros64(m))
		}
		w = (w>>6 + 1) << 6 & (q.mask >> 6)
	}
}

// earliest returns the time of the earliest event in the calendar, which
// must hold one: the least of its buckets' first events.
func (q *queue) earliest() int64 {
	t := int64(math.MaxInt64)
	for wi, wm := range q.words {
		for ; wm != 0; wm &= wm - 1 {
			w := wi<<6 + bits.TrailingZeros64(wm)
			for m := q.used[w]; m != 0; m &= m - 1 {
				t = min(t, q.nodes[q.buckets[w<<6+bits.TrailingZeros64(m)].head].at)
			}
		}
	}
	return t
}

// check sizes the calendar to its events. It has one to eight buckets an
// event (at least minBuckets; four when rebuilt for fewer or more). Its
// width follows the work done since the last check: at least one step past
// another event in a bucket an insertion means buckets too crowded, and the
// width halves (more often, the more steps); more than one move of the
// cursor every two insertions means buckets too sparse, and it doubles
// (more often, the more moves). A move costs about three steps (a bitmap
// search and a second look at a bucket against a comparison), hence the
// lower bar. When a whole year passed with no event (miss), the width is
// set afresh: a year of four to eight times the mean time ahead of last of
// the events in the calendar.
func (q *queue) check(miss bool) {
	ins := max(q.work.inserts-q.checked.inserts, 1)
	steps, moves := q.work.steps-q.checked.steps, q.work.moves-q.checked.moves
	q.checked, q.nextCheck = q.work, q.work.inserts+len(q.buckets)
	if q.cal == 0 {
		return
	}
	nb := max(minBuckets, 2<<bits.Len(uint(q.n)))
	if have := len(q.buckets); have >= nb/2 && have <= 2*nb {
		nb = have
	}
	shift := q.shift
	switch {
	case miss:
		var ahead float64
		for b := range q.buckets {
			for f := q.buckets[b].head; f != 0; f = q.nodes[f].next {
				ahead += float64(min(q.nodes[f].at-q.last, maxAhead))
			}
		}
		shift = uint(bits.Len64(uint64(8 * ahead / float64(q.cal) / float64(nb))))
	case steps >= ins:
		shift -= min(shift, uint(bits.Len(uint(steps/ins))))
	case 2*moves > ins:
		shift += uint(bits.Len(uint(2 * moves / ins)))
	}
	if shift = min(shift, 50); nb != len(q.buckets) || shift != q.shift {
		q.resize(nb, shift)
	}
}

// resize rebuilds the calendar with nb buckets (a power of two, at least
// 64) of 1<<shift ns, keeping its events and their order.
func (q *queue) resize(nb int, shift uint) {
	// Chain every event into one list, bucket after bucket. Events at one
	// time are in one bucket, in order, and insert keeps them so.
	var first, last int32
	for _, bk := range q.buckets {
		if bk.head != 0 {
			if first == 0 {
				first = bk.head
			} else {
				q.nodes[last].next = bk.head
			}
			last = bk.tail
		}
	}
	if len(q.buckets) == nb {
		clear(q.buckets)
		clear(q.used)
		clear(q.words)
	} else {
		q.buckets = make([]bucket, nb)
		q.used, q.words = make([]uint64, nb/64), make([]uint64, (nb/64+63)/64)
	}
	// The insertions below are no new work: no check comes in between.
	q.mask, q.shift, q.cal, q.nextCheck = int64(nb-1), shift, 0, math.MaxInt
	for f := first; f != 0; {
		g := q.nodes[f].next
		q.nodes[f].next = 0
		q.insert(f, q.nodes[f].at, false)
		f = g
	}
	q.checked, q.nextCheck = q.work, q.work.inserts+nb
}

// len returns the number of scheduled events.
func (q *queue) len() int {
	return q.n
}
