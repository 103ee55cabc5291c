package model

import (
	"math/rand/v2"
	"sort"
	"testing"
)

// TestQueueOrder pushes events at random times (many equal) and checks they
// come out by time, then in the order they were pushed.
func TestQueueOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
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
		if i%7 == 0 { // interleave pops with pushes
			e := q.pop()
			// Remove e from want: it must be the earliest, first pushed.
			best := -1
			for j, w := range want {
				if best < 0 || w.at < want[best].at {
					best = j
				}
			}
			if want[best].at != e.at || want[best].idx != e.idx {
				t.Fatalf("pop = (%d, %d), want (%d, %d)", e.at, e.idx, want[best].at, want[best].idx)
			}
			want = append(want[:best], want[best+1:]...)
		}
	}
	sort.SliceStable(want, func(i, j int) bool { return want[i].at < want[j].at })
	for _, w := range want {
		e := q.pop()
		if e.at != w.at || e.idx != w.idx {
			t.Fatalf("pop = (%d, %d), want (%d, %d)", e.at, e.idx, w.at, w.idx)
		}
	}
	if q.len() != 0 {
		t.Errorf("queue holds %d after draining", q.len())
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
	}
	for _, c := range cases {
		var q queue
		for i, at := range c.at {
			q.push(at, evRead, int32(i))
		}
		for _, w := range c.want {
			if e := q.pop(); e.idx != w {
				t.Errorf("%s: popped %d, want %d", c.name, e.idx, w)
			}
		}
	}
}

// TestQueueTakeReplaces runs the engine's pattern (take the earliest event,
// push zero or more, settle) on one queue and pop-then-push on another:
// the events must come out the same, in the same order.
func TestQueueTakeReplaces(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var a, b queue
	for i := 0; i < 100; i++ {
		at := r.Int64N(20)
		a.push(at, evLoop, int32(i))
		b.push(at, evLoop, int32(i))
	}
	for n := 0; a.len() > 0; n++ {
		ea, eb := a.take(), b.pop()
		if ea != eb {
			t.Fatalf("step %d: take = %+v, pop = %+v", n, ea, eb)
		}
		if n < 5000 {
			for k := r.IntN(3); k > 0; k-- { // 0, 1 or 2 pushes, 1 on average
				at := ea.at + r.Int64N(10)
				a.push(at, evRead, int32(n))
				b.push(at, evRead, int32(n))
			}
		}
		a.settle()
		if a.len() != b.len() {
			t.Fatalf("step %d: len %d, want %d", n, a.len(), b.len())
		}
	}
	if b.len() != 0 {
		t.Errorf("pop-then-push queue holds %d after the other drained", b.len())
	}
}
