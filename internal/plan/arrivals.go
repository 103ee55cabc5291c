package plan

import "container/heap"

// Arrivals walks an open loop's arrivals, of all its clients together, in
// the order they are due: what a driver that sends a population's
// requests from one queue (the live runner's pacer and targeter) needs.
// Each arrival is the one Arrival gives its client, so that a driver
// walking them sends what a driver keeping one schedule per client (the
// model) sends. Ties go to the lower client. It is not safe for
// concurrent use.
type Arrivals struct {
	p *Population
	m int64 // arrivals walked
	// next holds each client's next arrival and draws its client's
	// draws (Poisson only; a constant rate's order is known: arrival m is
	// client m mod Clients's).
	next  arrivalHeap
	draws []Draws
}

// Arrival is one arrival of an open loop: client K's (within its
// population) arrival N, at cumulative intensity Y.
type Arrival struct {
	K int
	N int64
	Y float64
}

// Arrivals returns a walk of the population's arrivals drawn from s.
func (p *Population) Arrivals(s Stream) *Arrivals {
	a := &Arrivals{p: p}
	if p.Poisson {
		a.next, a.draws = make(arrivalHeap, p.Clients), make([]Draws, p.Clients)
		for k := range p.Clients {
			a.draws[k] = s.Client(p, k)
			a.next[k] = Arrival{K: k, Y: p.Arrival(a.draws[k], k, 0, 0)}
		}
		heap.Init(&a.next)
	}
	return a
}

// Walked returns how many arrivals Next has returned.
func (a *Arrivals) Walked() int64 { return a.m }

// Next returns the next arrival.
func (a *Arrivals) Next() Arrival {
	m := a.m
	a.m++
	p := a.p
	if !p.Poisson {
		c := int64(p.Clients)
		k, n := int(m%c), m/c
		return Arrival{K: k, N: n, Y: p.Arrival(Draws{}, k, n, 0)}
	}
	first := a.next[0]
	a.next[0] = Arrival{K: first.K, N: first.N + 1, Y: p.Arrival(a.draws[first.K], first.K, first.N+1, first.Y)}
	heap.Fix(&a.next, 0)
	return first
}

// arrivalHeap is a min-heap of arrivals by intensity, then client.
type arrivalHeap []Arrival

func (h arrivalHeap) Len() int { return len(h) }
func (h arrivalHeap) Less(i, j int) bool {
	return h[i].Y < h[j].Y || h[i].Y == h[j].Y && h[i].K < h[j].K
}
func (h arrivalHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *arrivalHeap) Push(x any)   { *h = append(*h, x.(Arrival)) }
func (h *arrivalHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
