package model

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
)

// refQueue is the queue's specification: events by time, then in the
// order they were pushed, found by a scan.
type refQueue struct {
	ev  []event
	seq []int
	n   int
}

func (r *refQueue) push(at int64, kind uint8, idx int32) {
	r.n++
	r.ev = append(r.ev, event{at: at, idx: idx, kind: kind})
	r.seq = append(r.seq, r.n)
}

func (r *refQueue) pop() event {
	best := 0
	for i := range r.ev {
		if r.ev[i].at < r.ev[best].at || r.ev[i].at == r.ev[best].at && r.seq[i] < r.seq[best] {
			best = i
		}
	}
	e := r.ev[best]
	r.ev = append(r.ev[:best], r.ev[best+1:]...)
	r.seq = append(r.seq[:best], r.seq[best+1:]...)
	return e
}

// pop removes and returns the earliest event of q, which must hold one
// before the end of time.
func pop(q *queue) event {
	e, ok := q.popBefore(1<<63 - 1)
	if !ok {
		panic("no event to pop")
	}
	return e
}

// TestQueueOrder runs the engine's pattern on a queue and on refQueue: pop
// the earliest event, push zero to two events no earlier than it (many at
// the same time, some far ahead). The events must come out the same, in the
// same order.
func TestQueueOrder(t *testing.T) {
	for _, spread := range []int64{1, 10, 1000, 1 << 40} {
		r := rand.New(rand.NewPCG(1, uint64(spread)))
		var q queue
		var want refQueue
		ahead := func() int64 {
			switch r.IntN(10) {
			case 0:
				return 0
			case 1:
				return 1 << 62
			}
			return r.Int64N(spread)
		}
		for i := 0; i < 100; i++ {
			at := ahead()
			q.push(at, evLoop, int32(i))
			want.push(at, evLoop, int32(i))
		}
		for n := 0; q.len() > 0; n++ {
			e, w := pop(&q), want.pop()
			if e != w {
				t.Fatalf("spread %d, step %d: pop = %+v, want %+v", spread, n, e, w)
			}
			if n < 20000 && e.at < 1<<62 {
				for k := r.IntN(3); k > 0; k-- { // 0, 1 or 2 pushes, 1 on average
					at := e.at + ahead()
					q.push(at, evRead, int32(n))
					want.push(at, evRead, int32(n))
				}
			}
			if q.len() != len(want.ev) {
				t.Fatalf("spread %d, step %d: len %d, want %d", spread, n, q.len(), len(want.ev))
			}
		}
	}
}

func TestQueueTable(t *testing.T) {
	cases := []struct {
		name string
		at   []int64
		want []int32 // idx in pop order
	}{
		{"one", []int64{5}, []int32{0}},
		{"ascending", []int64{1, 2, 3}, []int32{0, 1, 2}},
		{"descending", []int64{3, 2, 1}, []int32{2, 1, 0}},
		{"ties keep push order", []int64{4, 4, 4, 4}, []int32{0, 1, 2, 3}},
		{"ties among others", []int64{2, 1, 2, 1, 0}, []int32{4, 1, 3, 0, 2}},
		{"near the end of time", []int64{1<<63 - 2, 0, 1<<63 - 2}, []int32{1, 0, 2}},
		// 10 waits as the front; the second 10 goes to the slots; 5 takes
		// the front's place, which goes ahead of the second 10.
		{"front displaced", []int64{10, 10, 5}, []int32{2, 0, 1}},
	}
	for _, c := range cases {
		var q queue
		for i, at := range c.at {
			q.push(at, evRead, int32(i))
		}
		for _, w := range c.want {
			if e := pop(&q); e.idx != w {
				t.Errorf("%s: popped %d, want %d", c.name, e.idx, w)
			}
		}
	}
}

// TestQueueSorts pushes random times, all before the first pop: they must
// come out sorted, ties in push order.
func TestQueueSorts(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var q queue
	type pushed struct {
		at  int64
		idx int32
	}
	var want []pushed
	for i := 0; i < 5000; i++ {
		at := r.Int64N(50)
		q.push(at, evLoop, int32(i))
		want = append(want, pushed{at, int32(i)})
	}
	sort.SliceStable(want, func(i, j int) bool { return want[i].at < want[j].at })
	for _, w := range want {
		if e := pop(&q); e.at != w.at || e.idx != w.idx {
			t.Fatalf("pop = (%d, %d), want (%d, %d)", e.at, e.idx, w.at, w.idx)
		}
	}
	if q.len() != 0 {
		t.Errorf("queue holds %d after draining", q.len())
	}
}

// TestQueuePushBeforeLast checks that a push earlier than the latest event
// taken panics rather than breaking the order.
func TestQueuePushBeforeLast(t *testing.T) {
	var q queue
	q.push(10, evLoop, 0) // the front
	q.push(20, evLoop, 1)
	q.push(30, evLoop, 2)
	pop(&q)
	pop(&q) // 20, from the slots
	defer func() {
		if recover() == nil {
			t.Error("push before the latest event taken did not panic")
		}
	}()
	q.push(15, evLoop, 3)
}

// BenchmarkQueue runs the engine's pattern on 100 and 10,000 scheduled
// events: pop the earliest, push one event 1 ms to 1 s later.
func BenchmarkQueue(b *testing.B) {
	for _, n := range []int{100, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			r := rand.New(rand.NewPCG(5, 6))
			var q queue
			for i := 0; i < n; i++ {
				q.push(r.Int64N(1e9), evLoop, int32(i))
			}
			for b.Loop() {
				e := pop(&q)
				q.push(e.at+1e6+r.Int64N(1e9), evLoop, e.idx)
			}
		})
	}
}

// TestQueueWaves runs a queue and refQueue through what 10,000 clients
// started at once do, scaled down: 2,000 events at time 0, then each event
// taken is followed by one 5 ms later or one a random 0-2 ms later, and
// later the spacing grows a thousandfold and the events thin out. The
// calendar is rebuilt as the events grow, crowd and thin; they must come
// out the same, in the same order.
func TestQueueWaves(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	var q queue
	var want refQueue
	push := func(at int64, i int32) {
		q.push(at, evLoop, i)
		want.push(at, evLoop, i)
	}
	for i := int32(0); i < 2000; i++ {
		push(0, i)
	}
	rebuilt := 0
	for n := 0; q.len() > 0; n++ {
		shift, nb := q.shift, len(q.buckets)
		e, w := pop(&q), want.pop()
		if e != w {
			t.Fatalf("step %d: pop = %+v, want %+v", n, e, w)
		}
		scale := int64(1)
		if n > 40000 {
			scale = 1000
		}
		switch {
		case n > 60000 && n%2 == 0: // thin out
		case r.IntN(2) == 0:
			push(e.at+5e6*scale, e.idx)
		default:
			push(e.at+r.Int64N(2e6*scale), e.idx)
		}
		if q.shift != shift || len(q.buckets) != nb {
			rebuilt++
		}
	}
	if rebuilt < 3 {
		t.Errorf("the calendar was rebuilt %d times; the test means it to grow, crowd and thin", rebuilt)
	}
}

// TestQueueSizesItself checks that the calendar finds a width where an
// insertion steps past at most about one event and the cursor moves about
// once an event: on events that come in waves (10,000 events at time 0,
// then each followed by one 5 ms later or one a random 0-4 ms later, as a
// client's think time and a store's latency), which it must widen for; on
// the same waves a hundred times slower at first, then at that pace, which
// it must narrow for; and on sparse events (100, a second apart on
// average). It counts the work of the second half of the run, after the
// calendar settled.
func TestQueueSizesItself(t *testing.T) {
	waves := func(r *rand.Rand) int64 {
		if r.IntN(2) == 0 {
			return 5e6
		}
		return r.Int64N(4e6)
	}
	cases := []struct {
		name   string
		events int
		next   func(r *rand.Rand, n int) int64
	}{
		{"waves", 10000, func(r *rand.Rand, n int) int64 { return waves(r) }},
		{"waves speeding up", 10000, func(r *rand.Rand, n int) int64 {
			if n < 100000 {
				return 100 * waves(r)
			}
			return waves(r)
		}},
		{"sparse", 100, func(r *rand.Rand, n int) int64 { return int64(r.ExpFloat64() * 1e9) }},
	}
	for _, c := range cases {
		r := rand.New(rand.NewPCG(9, 10))
		var q queue
		for i := 0; i < c.events; i++ {
			q.push(0, evLoop, int32(i))
		}
		const pops = 400000
		var half queueWork
		for n := 0; n < pops; n++ {
			if n == pops/2 {
				half = q.work
			}
			e := pop(&q)
			q.push(e.at+c.next(r, n), evLoop, e.idx)
		}
		ins := float64(q.work.inserts - half.inserts)
		steps, moves := float64(q.work.steps-half.steps)/ins, float64(q.work.moves-half.moves)/ins
		if steps > 1 || moves > 1.5 {
			t.Errorf("%s: %.2f steps and %.2f cursor moves an insertion; want at most 1 and 1.5 (%d buckets of %d ns)",
				c.name, steps, moves, len(q.buckets), 1<<q.shift)
		}
		if nb := len(q.buckets); nb < c.events || nb > 8*c.events && nb > minBuckets {
			t.Errorf("%s: %d buckets for %d events; want 1 to 8 an event", c.name, nb, c.events)
		}
		t.Logf("%s: %.2f steps and %.2f cursor moves an insertion, %d buckets of %d ns", c.name, steps, moves, len(q.buckets), 1<<q.shift)
	}
}
