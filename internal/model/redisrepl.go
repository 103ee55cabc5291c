package model

// repItem is a write queued at a replica: what it applies and when.
type repItem struct {
	key, value          string
	version, seq        uint64
	committed, expires  int64
	applyAt, nextCommit int64 // nextCommit: the commit of the key's next queued write
	next                *repItem
}

// enqueue queues write w, version v and number seq, committed at t, at
// replica r, to apply lag later and never before r's previous write.
func (s *Redis) enqueue(r *rnode, w PendingWrite, v, seq uint64, t, lag int64) {
	it := s.free
	if it != nil {
		s.free = it.next
		*it = repItem{}
	} else {
		it = &repItem{}
	}
	*it = repItem{key: w.Key, value: w.Value, version: v, seq: seq, committed: t, expires: after(t, int64(w.TTL)),
		applyAt: max(after(t, lag), r.lastApply)}
	r.lastApply = it.applyAt
	s.push(r, it)
}

// track counts queued write it in its key's entry at r.
func (s *Redis) track(r *rnode, it *repItem) {
	e := r.data[it.key]
	if e == nil {
		e = &rentry{}
		r.data[it.key] = e
	}
	if e.npending == 0 {
		e.pendingFirst = it.committed
	} else {
		e.lastPending.nextCommit = it.committed
	}
	e.lastPending = it
	e.npending++
}

// blocked reports whether replica r can apply nothing now: it is paused or
// dead, or its primary is gone, paused or cut off.
func (s *Redis) blocked(r *rnode) bool {
	if r.dead || r.paused || s.primary < 0 {
		return true
	}
	src := s.nodes[s.primary]
	return src.dead || src.paused || src.cut
}

// deliver applies at every replica the queued writes due by t, each at
// its time or when the replica could apply again, whichever is later.
func (s *Redis) deliver(t int64) {
	for _, r := range s.nodes {
		if r.isPrimary || r.head == nil || s.blocked(r) {
			continue
		}
		for it := r.head; it != nil && max(it.applyAt, r.unblockedAt) <= t; it = r.head {
			s.apply(r, it)
		}
	}
}

// apply applies r's first queued write, it.
func (s *Redis) apply(r *rnode, it *repItem) {
	e := r.data[it.key]
	e.value, e.version, e.committed, e.expires = it.value, it.version, it.committed, it.expires
	r.seq = it.seq
	s.untrack(e, it)
	r.head = it.next
	if r.head == nil {
		r.tail = nil
	}
	it.next, it.key, it.value = s.free, "", ""
	s.free = it
}

// untrack takes queued write it out of its key's entry e.
func (s *Redis) untrack(e *rentry, it *repItem) {
	e.npending--
	if e.npending > 0 {
		e.pendingFirst = it.nextCommit
	} else {
		e.lastPending = nil
	}
}

// truncate drops r's queued writes numbered above seq (writes of a
// history a failover ended) and counts the rest again.
func (s *Redis) truncate(r *rnode, seq uint64) {
	var kept []*repItem
	for it := r.head; it != nil; it = it.next {
		if it.seq <= seq {
			kept = append(kept, it)
		}
	}
	for _, e := range r.data {
		e.npending, e.lastPending = 0, nil
	}
	r.head, r.tail = nil, nil
	for _, it := range kept {
		it.next, it.nextCommit = nil, 0
		s.push(r, it)
	}
	if r.tail == nil {
		r.lastApply = 0
	}
}

// resync makes node r a copy of node from, as a full synchronisation
// does, with nothing queued.
func (s *Redis) resync(r, from *rnode) {
	r.head, r.tail, r.lastApply = nil, nil, 0
	r.data = make(map[string]*rentry, len(from.data))
	for k, e := range from.data {
		if e.version != 0 {
			r.data[k] = &rentry{value: e.value, version: e.version, committed: e.committed, expires: e.expires}
		}
	}
	r.seq = from.seq
}

// push appends it to r's queue of writes to apply, in order, and tracks it.
func (s *Redis) push(r *rnode, it *repItem) {
	if r.tail == nil {
		r.head = it
	} else {
		r.tail.next = it
	}
	r.tail = it
	s.track(r, it)
}
