package plan

import (
	"fmt"

	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// ServerMode is the serving side the model puts in front of the store
// (scenario server.mode).
type ServerMode uint8

// The server modes.
const (
	// ServerNone is no serving side: each request runs on its own.
	ServerNone ServerMode = iota
	// ServerSingleThread is wrangler dev: one thread runs every request's
	// steps and the local store's operations.
	ServerSingleThread
)

// String returns the mode's scenario name (server.mode).
func (m ServerMode) String() string {
	switch m {
	case ServerNone:
		return scenario.ServerNone
	case ServerSingleThread:
		return scenario.ServerSingleThread
	}
	return fmt.Sprintf("ServerMode(%d)", uint8(m))
}

// ServerParams is the serving side, compiled: the mode and, for
// single-thread, the thread time of each step of a request and the client's
// round trip, ready to sample. The zero value is mode none. A live run keeps
// these unscaled: live.time_scale divides store latencies only.
type ServerParams struct {
	Mode ServerMode
	// BeforeRead runs up to and including the store's read, Between from
	// the value read to the write, AfterWrite the response.
	BeforeRead, Between, AfterWrite Dist
	// RTT is the client's round trip, half each way.
	RTT Dist
	// Wake is how long an idle thread (the server's or the proxy's) takes
	// to start on a request that reaches it; the zero Dist for none.
	Wake Dist
	// BatchMax is the most requests taken from the inbox at once.
	BatchMax int
	// Proxy is set when requests pass a proxy thread on their way in and
	// out, taking ProxyIn and ProxyOut of its time.
	Proxy             bool
	ProxyIn, ProxyOut Dist
	// SendFirst and SendNext space a closed loop's requests sent at one
	// instant: the second leaves SendFirst after the first, each further
	// one SendNext after the one before (scenario.ServerSend; its default
	// when the scenario gives none).
	SendFirst, SendNext Dist
	// Stall is set when each thread stalls now and then: after every
	// StallEvery of its own work, for StallLasts.
	Stall                  bool
	StallEvery, StallLasts Dist
}

// compileServer compiles a validated scenario's server section.
func compileServer(sc *scenario.Scenario) (ServerParams, error) {
	sv := sc.Server
	if sv == nil || sv.Mode == scenario.ServerNone {
		return ServerParams{}, nil
	}
	if sv.Mode != scenario.ServerSingleThread {
		return ServerParams{}, fmt.Errorf("server.mode %q is unknown: use one of %v", sv.Mode, scenario.ServerModes)
	}
	out := ServerParams{Mode: ServerSingleThread, BatchMax: sv.BatchMax, Proxy: sv.Proxy != nil, Stall: sv.Stall != nil}
	to := map[string]*Dist{"server.cpu.before_read": &out.BeforeRead, "server.cpu.between": &out.Between, "server.cpu.after_write": &out.AfterWrite,
		"server.rtt": &out.RTT, "server.wake": &out.Wake, "server.proxy.cpu_in": &out.ProxyIn, "server.proxy.cpu_out": &out.ProxyOut,
		"server.send.first": &out.SendFirst, "server.send.next": &out.SendNext,
		"server.stall.every": &out.StallEvery, "server.stall.lasts": &out.StallLasts}
	for _, l := range sv.LatenciesWithSend() {
		if l.Latency.IsZero() {
			continue // unset (only wake may be): the zero Dist, no wait
		}
		var err error
		if *to[l.Path], err = NewDist(l.Latency); err != nil {
			return ServerParams{}, fmt.Errorf("%s: %v", l.Path, err)
		}
	}
	return out, nil
}
