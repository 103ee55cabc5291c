package model

import "time"

// halfway is a store whose operations take effect half-way through the
// round trip drawn for them (the way there, to the server) and answer at
// its end (the way back): memory and redis, as a server reached over a
// symmetric round trip. The engine draws a read's round trip when the
// read is sent (Draw), reads at half of it (ReadHalf) and takes the answer
// at its end. A write submitted with WriteHalf commits effect after it is
// submitted and answers at answer. An atomic update (updater) applies at
// half its UpdateLatency and answers at its end.
type halfway interface {
	// Draw draws the round trip of one read.
	Draw() time.Duration
	// ReadHalf reads key at now, half-way through the round trip lat drawn
	// for it; the result's Latency is how long after now its answer
	// reaches the caller.
	ReadHalf(now, lat time.Duration, loc, dom int, key string) ReadResult
	// WriteHalf is Store.Write, telling apart when the write takes effect
	// (effect after now, when the driver calls Commit) and when its answer
	// reaches the caller (answer after now; on error, when the error does).
	WriteHalf(now time.Duration, loc, dom int, key, value string, ttl time.Duration, readVersion uint64) (w PendingWrite, effect, answer time.Duration, err error)
}

var (
	_ halfway = (*Memory)(nil)
	_ halfway = (*Redis)(nil)
)

// half splits a round trip lat into the way there (when the operation
// takes effect) and the way back.
func half(lat time.Duration) (there, back time.Duration) {
	return lat / 2, lat - lat/2
}
