// Package faultproxy is a small TCP proxy on loopback for fault tests: put
// in front of a process (a Redis server), it forwards bytes both ways and
// can delay them (a latency, plus or minus up to a jitter, per direction,
// drawn from a seeded generator), cut the link (new connections refused, open ones stalled:
// nothing forwarded until Heal, as a partition that TCP rides out) and heal
// it.
//
// Each control applies to the connections from one source address, or to
// all ("" as the source): processes that connect from addresses of their
// own in 127.0.0.0/8 (Redis's bind-source-addr) get links of their own
// through one proxy.
//
// Bytes keep their order: a chunk is delivered at the later of its own draw
// and the chunk before it. Every connection is closed by Stop, which waits
// for the proxy's goroutines; only loopback targets are accepted.
package faultproxy

import (
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"time"
)

// Direction is one way through the proxy.
type Direction int

// The two directions: from the connecting side to the target (Up: a
// replica to its primary) and back (Down: the primary's stream of writes).
const (
	Up Direction = iota
	Down
)

// chunkQueue is how many chunks a direction holds before it stops reading.
const chunkQueue = 1024

// delay is a direction's latency and jitter: a chunk waits latency plus a
// uniform draw in [-jitter, jitter), and never less than nothing.
type delay struct{ latency, jitter time.Duration }

// rule is what the controls set for one source.
type rule struct {
	delays [2]delay
	cut    bool
}

// Proxy forwards connections on Addr to its target. Safe for concurrent use.
type Proxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	cond   *sync.Cond       // signalled when a cut or closed changes
	rules  map[string]*rule // by source IP; "" is every source
	rng    *rand.Rand
	closed bool
	stopc  chan struct{} // closed by Stop: delayed chunks stop waiting
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
}

// Start listens on a free loopback port and forwards to target, a loopback
// host:port; seed seeds the jitter's draws.
func Start(target string, seed uint64) (*Proxy, error) {
	host, _, err := net.SplitHostPort(target)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("faultproxy: target %q is not a loopback host:port: the proxy only joins local processes", target)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faultproxy: no loopback port to listen on: %w", err)
	}
	p := &Proxy{ln: ln, target: target, rng: rand.New(rand.NewPCG(seed, 0xfa17)),
		rules: map[string]*rule{}, stopc: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	p.cond = sync.NewCond(&p.mu)
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the proxy's host:port, to connect to instead of the target.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Target is the host:port the proxy forwards to.
func (p *Proxy) Target() string { return p.target }

// SetDelay makes every chunk going d on connections from the source IP
// from ("" for every source without a delay of its own) wait latency plus
// or minus up to jitter (uniform); zeros forward at once.
func (p *Proxy) SetDelay(from string, d Direction, latency, jitter time.Duration) {
	p.mu.Lock()
	p.rule(from).delays[d] = delay{max(latency, 0), max(jitter, 0)}
	p.mu.Unlock()
}

// Cut refuses new connections from the source IP from ("" for every
// source), accepting and closing them at once, and stalls the open ones
// until Heal(from).
func (p *Proxy) Cut(from string) { p.setCut(from, true) }

// Heal undoes Cut(from): what the open connections held is delivered.
func (p *Proxy) Heal(from string) { p.setCut(from, false) }

func (p *Proxy) setCut(from string, v bool) {
	p.mu.Lock()
	p.rule(from).cut = v
	p.cond.Broadcast()
	p.mu.Unlock()
}

// rule returns from's rule, made on first use. Call with p.mu held.
func (p *Proxy) rule(from string) *rule {
	r := p.rules[from]
	if r == nil {
		r = &rule{}
		p.rules[from] = r
	}
	return r
}

// isCut reports whether connections from src are cut. Call with p.mu held.
func (p *Proxy) isCut(src string) bool {
	all, own := p.rules[""], p.rules[src]
	return (all != nil && all.cut) || (own != nil && own.cut)
}

// source is the IP a connection comes from.
func source(c net.Conn) string {
	host, _, _ := net.SplitHostPort(c.RemoteAddr().String())
	return host
}

// Stop closes the listener and every connection, and waits until the
// proxy's goroutines have ended. Stopping twice is harmless.
func (p *Proxy) Stop() {
	p.mu.Lock()
	if !p.closed {
		close(p.stopc)
	}
	p.closed = true
	for c := range p.conns {
		_ = c.Close()
	}
	p.cond.Broadcast()
	p.mu.Unlock()
	_ = p.ln.Close()
	p.wg.Wait()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		src := source(in)
		p.mu.Lock()
		refuse := p.isCut(src) || p.closed
		p.mu.Unlock()
		if refuse {
			_ = in.Close()
			continue
		}
		out, err := net.DialTimeout("tcp", p.target, 2*time.Second)
		if err != nil {
			_ = in.Close()
			continue
		}
		if !p.track(in, out) {
			continue
		}
		p.wg.Add(4)
		go p.pipe(in, out, src, Up)
		go p.pipe(out, in, src, Down)
	}
}

// track registers a connection's two sides, or closes them if the proxy
// has stopped.
func (p *Proxy) track(in, out net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		_ = in.Close()
		_ = out.Close()
		return false
	}
	p.conns[in], p.conns[out] = struct{}{}, struct{}{}
	return true
}

// chunk is bytes read and when to deliver them.
type chunk struct {
	b  []byte
	at time.Time
}

// pipe forwards src to dst in direction d for a connection from the source
// IP from: a reader stamps each chunk with its delivery time, a writer
// delivers it then, unless the link is cut. When either side ends, both
// connections are closed.
func (p *Proxy) pipe(src, dst net.Conn, from string, d Direction) {
	q := make(chan chunk, chunkQueue)
	done := make(chan struct{}) // the writer has ended
	go func() {                 // reader
		defer p.wg.Done()
		defer close(q)
		var last time.Time
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				at := p.deliverAt(from, d)
				if at.Before(last) {
					at = last
				}
				last = at
				select {
				case q <- chunk{append([]byte(nil), buf[:n]...), at}:
				case <-done:
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	defer p.wg.Done() // writer
	defer close(done)
	defer p.drop(src, dst)
	for c := range q {
		if wait := time.Until(c.at); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-p.stopc:
				t.Stop()
				return
			}
		}
		if !p.waitLink(from) {
			return
		}
		if _, err := dst.Write(c.b); err != nil {
			return
		}
	}
}

// deliverAt draws when a chunk from the source IP from, read now going d,
// is delivered.
func (p *Proxy) deliverAt(from string, d Direction) time.Time {
	return time.Now().Add(p.draw(from, d))
}

// draw draws how long a chunk from the source IP from going d waits: with
// the source's own delay, else every source's.
func (p *Proxy) draw(from string, d Direction) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	var dl delay
	if r := p.rules[from]; r != nil && r.delays[d] != (delay{}) {
		dl = r.delays[d]
	} else if r := p.rules[""]; r != nil {
		dl = r.delays[d]
	}
	extra := dl.latency
	if dl.jitter > 0 {
		extra += time.Duration(p.rng.Int64N(2*int64(dl.jitter))) - dl.jitter
	}
	return max(extra, 0)
}

// waitLink waits while the link from the source IP from is cut; false once
// the proxy has stopped.
func (p *Proxy) waitLink(from string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.isCut(from) && !p.closed {
		p.cond.Wait()
	}
	return !p.closed
}

// drop closes both sides of a connection and forgets them; the reader of
// the other direction then ends too.
func (p *Proxy) drop(a, b net.Conn) {
	p.mu.Lock()
	delete(p.conns, a)
	delete(p.conns, b)
	p.mu.Unlock()
	_ = a.Close()
	_ = b.Close()
}
