package model

import "math/bits"

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
// Most events are kept in a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan)
// with 64-way digits, a hierarchical timing wheel with exact times. Times
// are read as 6-bit digits. An event is kept in slot (l, d): l is the
// highest digit in which its time differs from last (the latest time
// taken), d its time's digit l; a slot of level 0 holds one time. Slots are
// first-in first-out lists. The earliest event is in the lowest slot that
// holds any (levels first, then digits), found from bitmaps. When that slot
// holds one event, or is on level 0, its first event is taken; otherwise
// the slot is spread over the levels below it, measured from its start, and
// the search repeats. An event moves only down, at most once a level (5
// times for an event 1 s ahead; under once on average on botnet.yaml),
// however many events are scheduled, where a binary heap's sift grows with
// their number (10,000 clients: 13 levels). Spreading keeps a slot's order
// and the slots below it are empty when it happens, so events at one time
// leave first-in first-out with no sequence number.
//
// An event pushed ahead of every other one (a lone client's next step: the
// scenario's only event) is kept aside as the front instead, and taken from
// there with no search; taking it leaves last as it is, so the slots stay
// measured from a time no later than any of their events.
//
// The slots are lists linked through one pool of nodes, so the queue stops
// allocating once the pool has grown to the most events ever scheduled at
// once, however they spread over the slots.
type queue struct {
	front    event // when hasFront, the earliest event, not in the slots
	hasFront bool

	nodes []node // nodes[0] is not used: link 0 is the end of a list
	free  int32  // the first unused node
	// head and tail are the slots' lists, slot (l, d) at l<<digitBits | d
	// (sized to a power of two so that no index needs a bounds check).
	head  [slots]int32
	tail  [slots]int32
	used  [slots >> digitBits]uint64 // bit d of used[l]: slot (l, d) holds events
	lused uint32                     // bit l: used[l] != 0
	// last is the latest time taken from the slots, or the start of the
	// latest slot spread: every event in the slots is at or after it.
	last int64
	n    int // events scheduled
}

// A queue's times are read in digits of digitBits bits: levels of them
// cover a non-negative int64.
const (
	digitBits = 6
	digits    = 1 << digitBits
	levels    = (63 + digitBits - 1) / digitBits
	slots     = 16 << digitBits // levels rounded up to a power of two
)

// node is an event in the queue's pool, and the next in its list.
type node struct {
	event
	next int32
}

// push schedules an event. Its time must not be before the latest event
// popped (nor, once popBefore has found no event before its end, before
// the earliest event). push panics when it is before last, where the order
// would break.
func (q *queue) push(at int64, kind uint8, idx int32) {
	if at < q.last {
		panic("model: event scheduled before the latest event taken")
	}
	q.n++
	e := event{at: at, idx: idx, kind: kind}
	if q.hasFront {
		if at < q.front.at {
			// e goes ahead of the front, which goes ahead of every event
			// in its slot.
			q.front, e = e, q.front
			q.linkFirst(q.slot(e.at), q.node(e))
			return
		}
		q.link(q.slot(at), q.node(e))
		return
	}
	if q.lused == 0 {
		q.front, q.hasFront = e, true
		return
	}
	// Slots hold disjoint spans of time in their order: an event in a
	// lower slot than any in use is ahead of every other.
	s := q.slot(at)
	if s < q.lowest() {
		q.front, q.hasFront = e, true
		return
	}
	q.link(s, q.node(e))
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

// slot returns the slot that holds an event at at.
func (q *queue) slot(at int64) uint {
	l := uint(levelOf[bits.Len64(uint64(at^q.last))])
	return l<<digitBits | uint(at>>(l*digitBits%64))%digits
}

// levelOf is, by the bit length of a time's difference from last (the
// highest bit in which they differ, plus one; 0 for none), the level of
// the time's slot.
var levelOf = func() (t [65]uint8) {
	for n := 1; n < len(t); n++ {
		t[n] = uint8((n - 1) / digitBits)
	}
	return t
}()

// lowest returns the lowest slot that holds events, or one above every
// slot when none does.
func (q *queue) lowest() uint {
	l := uint(bits.TrailingZeros32(q.lused)) // 32 when no slot holds events
	return l<<digitBits | uint(bits.TrailingZeros64(q.used[l%(slots>>digitBits)]))
}

// link appends node f, whose next is 0, to slot s.
func (q *queue) link(s uint, f int32) {
	s %= slots
	if q.head[s] == 0 {
		q.head[s] = f
		q.mark(s)
	} else {
		q.nodes[q.tail[s]].next = f
	}
	q.tail[s] = f
}

// linkFirst puts node f, whose next is 0, at the head of slot s.
func (q *queue) linkFirst(s uint, f int32) {
	s %= slots
	if q.head[s] == 0 {
		q.tail[s] = f
		q.mark(s)
	} else {
		q.nodes[f].next = q.head[s]
	}
	q.head[s] = f
}

// mark marks slot s as holding events in the bitmaps.
func (q *queue) mark(s uint) {
	l := s >> digitBits % (slots >> digitBits)
	q.used[l] |= 1 << (s % digits)
	q.lused |= 1 << l
}

// unmark marks slot s empty in the bitmaps.
func (q *queue) unmark(s uint) {
	l := s >> digitBits % (slots >> digitBits)
	if q.used[l] &^= 1 << (s % digits); q.used[l] == 0 {
		q.lused &^= 1 << l
	}
}

// popBefore removes and returns the earliest event when there is one
// before end. The first event of the lowest slot that holds events is the
// earliest when the slot is on level 0 or holds no other; any other slot
// is spread first.
func (q *queue) popBefore(end int64) (event, bool) {
	if q.hasFront {
		if q.front.at >= end {
			return event{}, false
		}
		q.hasFront = false
		q.n--
		return q.front, true
	}
	for q.lused != 0 {
		s := q.lowest() % slots
		f := q.head[s]
		nd := &q.nodes[f]
		if s >= digits && nd.next != 0 {
			q.spread(s)
			continue
		}
		if nd.at >= end {
			break
		}
		if q.head[s] = nd.next; nd.next == 0 {
			q.unmark(s)
		}
		nd.next, q.free = q.free, f
		q.last = nd.at
		q.n--
		return nd.event, true
	}
	return event{}, false
}

// spread moves the events of slot s, the lowest that holds events, to the
// levels below it: last becomes the slot's start.
func (q *queue) spread(s uint) {
	s %= slots
	f := q.head[s]
	q.head[s] = 0
	q.unmark(s)
	q.last = q.nodes[f].at &^ (1<<(s>>digitBits*digitBits%64) - 1)
	for f != 0 {
		nd := &q.nodes[f]
		g := nd.next
		nd.next = 0
		q.link(q.slot(nd.at), f)
		f = g
	}
}

// len returns the number of scheduled events.
func (q *queue) len() int {
	return q.n
}
