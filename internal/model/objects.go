package model

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
)

// Objects is the durable-object and per-location stores: each key has an
// owner that reads, decides and writes atomically.
//
// durable-object: one object per key, living near the first request for
// it (where Cloudflare places a new object), or at the location
// durable_object.location pins; a request from the object's location pays
// the local round trip, from elsewhere the rtt, half each way; an object
// that has admitted max_rps requests in the current virtual second
// refuses more with "overloaded" until the next second (the soft limit;
// 0: none).
//
// per-location: a counter per location, as the Rate Limiting binding
// documents its counters ("a unique limit per Cloudflare location"), cached
// where the Worker runs and updated asynchronously: a decision reads the
// location's count as it was when the cache last refreshed, at most
// rate_limit.sync ago (View), while each increment lands on the location's
// count itself (Get, Put). A request pays store.latency, half each way,
// and never leaves its location.
type Objects struct {
	perLocation bool
	home        int // -1: each object near its first request (homes)
	homes       map[string]int
	sync        int64
	views       []map[string]*view // per location: the cached counts
	rtt, local  plan.Dist
	maxRPS      float64
	rng         *rand.Rand
	ctr         *measure.KVCounters
	data        []map[string]*entry // per owner location
	nextSweep   int64
}

// NewDurableObjects returns the durable-object store with p's parameters
// for a run with the given number of locations.
func NewDurableObjects(p plan.DurableObjectParams, locations int, rng *rand.Rand, counters *measure.KVCounters) (*Objects, error) {
	if locations < 1 {
		return nil, fmt.Errorf("durable-object store: the scenario has no locations: add at least one under locations")
	}
	if rng == nil {
		return nil, fmt.Errorf("durable-object store: no random source")
	}
	if p.Home < -1 || p.Home >= locations {
		return nil, fmt.Errorf("durable-object store: home location %d is not one of the %d locations", p.Home, locations)
	}
	return &Objects{rng: rng, ctr: counters, home: p.Home, homes: map[string]int{}, maxRPS: p.MaxRPS, rtt: p.RTT, local: p.Local,
		data: []map[string]*entry{{}}, nextSweep: sweepEvery}, nil
}

// view is a location's cached copy of a key's count: what its value was
// at the refresh.
type view struct {
	value string
	found bool
	at    int64
}

// NewPerLocation returns the per-location store: one counter per location,
// operations taking lat, decisions reading a cached count at most sync old
// (0: the count itself).
func NewPerLocation(lat plan.Dist, sync time.Duration, locations int, rng *rand.Rand, counters *measure.KVCounters) (*Objects, error) {
	if locations < 1 {
		return nil, fmt.Errorf("per-location store: the scenario has no locations: add at least one under locations")
	}
	if rng == nil {
		return nil, fmt.Errorf("per-location store: no random source")
	}
	if sync < 0 {
		return nil, fmt.Errorf("per-location store: sync %v is negative", sync)
	}
	o := &Objects{perLocation: true, rtt: lat, local: lat, rng: rng, ctr: counters, nextSweep: sweepEvery, sync: int64(sync)}
	o.data = make([]map[string]*entry, locations)
	o.views = make([]map[string]*view, locations)
	for i := range o.data {
		o.data[i], o.views[i] = map[string]*entry{}, map[string]*view{}
	}
	return o, nil
}

// Lagged reports whether decisions read a cached view (View) rather than
// the count itself.
func (o *Objects) Lagged() bool { return o.perLocation && o.sync > 0 }

// View returns the count a decision at owner reads: the location's cached
// copy, refreshed from the count when it is sync old or more. It counts
// as the check's one read; Fresh then reads the count itself uncounted.
func (o *Objects) View(now time.Duration, owner int, key string) (string, bool) {
	t := int64(now)
	if o.ctr != nil {
		o.ctr.Read(nil)
	}
	i := o.objectIndex(owner)
	v := o.views[i][key]
	if v == nil || t-v.at >= o.sync {
		if v == nil {
			v = &view{}
			o.views[i][key] = v
		}
		c := o.data[i][key]
		v.found = c != nil && c.live(t) != 0
		v.value, v.at = "", t
		if v.found {
			v.value = c.value
		}
	}
	return v.value, v.found
}

// Route implements Owned.
func (o *Objects) Route(now time.Duration, loc int, key string) (owner int, in, out time.Duration) {
	if o.perLocation {
		owner = loc
	}
	if o.perLocation && (loc < 0 || loc >= len(o.data)) {
		owner = 0 // a driver's mistake; keep going rather than crash
	}
	home := o.home
	if !o.perLocation && home < 0 {
		h, ok := o.homes[key]
		if !ok {
			h = loc
			o.homes[key] = h
		}
		home = h
	}
	var rt time.Duration
	if o.perLocation || loc == home {
		rt = o.local.Sample(o.rng)
	} else {
		rt = o.rtt.Sample(o.rng)
	}
	in = rt / 2
	return owner, in, rt - in
}

// objectIndex maps an owner to its map: per-location stores keep one per
// location, durable objects all live in one.
func (o *Objects) objectIndex(owner int) int {
	if o.perLocation && owner >= 0 && owner < len(o.data) {
		return owner
	}
	return 0
}

// Fresh returns key's count itself at owner, for the increment of a check
// decided on View; it counts nothing.
func (o *Objects) Fresh(now time.Duration, owner int, key string) (string, bool) {
	c := o.data[o.objectIndex(owner)][key]
	if c == nil || c.live(int64(now)) == 0 {
		return "", false
	}
	return c.value, true
}

// Admit implements Owned: the Durable Object soft limit.
func (o *Objects) Admit(now time.Duration, owner int, key string) error {
	t := int64(now)
	o.tick(t)
	if o.perLocation || o.maxRPS <= 0 {
		return nil
	}
	m := o.data[0]
	c := m[key]
	if c == nil {
		c = &entry{}
		m[key] = c
	}
	sec := t / int64(time.Second)
	if c.second != sec {
		c.second, c.inSecond = sec, 0
	}
	if float64(c.inSecond) >= o.maxRPS {
		err := &kv.Error{Kind: kv.Unavailable, Op: "get", Key: key, Msg: "Durable Object is overloaded. Too many requests queued."}
		if o.ctr != nil {
			o.ctr.Read(err)
		}
		return err
	}
	c.inSecond++
	return nil
}

// Get implements Owned.
func (o *Objects) Get(now time.Duration, owner int, key string) (string, bool) {
	t := int64(now)
	c := o.data[o.objectIndex(owner)][key]
	found := c != nil && c.live(t) != 0
	if o.ctr != nil {
		o.ctr.Read(nil)
		if found {
			o.ctr.Visibility(time.Duration(t-c.committed), 0, true)
		}
	}
	if !found {
		return "", false
	}
	return c.value, true
}

// Put implements Owned. The object's storage enforces no TTL floor, but the
// key expires ttl after the put, as the limiter asks.
func (o *Objects) Put(now time.Duration, owner int, key, value string, ttl time.Duration) error {
	t := int64(now)
	if o.ctr != nil {
		o.ctr.Write(nil)
	}
	m := o.data[o.objectIndex(owner)]
	c := m[key]
	if c == nil {
		c = &entry{}
		m[key] = c
	}
	c.value, c.committed, c.expires = value, t, after(t, int64(ttl))
	c.version++
	return nil
}

func (o *Objects) tick(t int64) {
	if t < o.nextSweep {
		return
	}
	o.nextSweep = t + sweepEvery
	sec := t / int64(time.Second)
	for _, m := range o.data {
		for k, c := range m {
			if c.live(t) == 0 && c.second != sec {
				delete(m, k)
			}
		}
	}
	for k := range o.homes {
		if o.data[0][k] == nil {
			delete(o.homes, k)
		}
	}
	for i, vs := range o.views {
		for k, v := range vs {
			if t-v.at >= o.sync && o.data[i][k] == nil {
				delete(vs, k)
			}
		}
	}
}

// Len returns how many keys the store holds, for tests of memory growth.
func (o *Objects) Len() (n int) {
	for _, m := range o.data {
		n += len(m)
	}
	for _, vs := range o.views {
		n += len(vs)
	}
	return n + len(o.homes)
}
