// Package redistest starts real Redis servers for tests (internal/redis/harness:
// redis-server and redis-sentinel, each on a free loopback port in the
// test's temporary directory) and stops them when the test ends, pass or
// fail, printing the last lines of each log on failure. Start gives a
// primary, two replicas and three sentinels, every server behind a proxy
// for faults; StartServer gives one server alone.
//
// A test on a machine without the binaries skips and prints the install
// line; with OVERSHOOT_REQUIRE_REDIS=1 (CI) it fails instead.
//
// It is imported by tests only.
package redistest

import (
	"os"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/redis/harness"
)

// The harness's names, for the tests that use it through this package.
const (
	MasterName      = harness.MasterName
	InstallLine     = harness.InstallLine
	StartTimeout    = harness.StartTimeout
	DownAfter       = harness.DownAfter
	FailoverTimeout = harness.FailoverTimeout
	NodePrimary     = harness.NodePrimary
	NodeReplicas    = harness.NodeReplicas
	SentinelSource  = harness.SentinelSource
)

// EnvRequire makes a missing binary a failure instead of a skip.
const EnvRequire = "OVERSHOOT_REQUIRE_REDIS"

// Cluster and Server are the harness's.
type (
	Cluster = harness.Cluster
	Server  = harness.Server
)

// SentinelMaster is harness.SentinelMaster.
var SentinelMaster = harness.SentinelMaster

// require skips t (fails it under OVERSHOOT_REQUIRE_REDIS=1) when the
// binaries are missing.
func require(t testing.TB) {
	t.Helper()
	if _, _, err := harness.Binaries(); err != nil {
		if os.Getenv(EnvRequire) == "1" {
			t.Fatal(err.Error() + "; " + EnvRequire + "=1 requires them")
		}
		t.Skip(err.Error())
	}
}

// StartServer starts one redis-server with no replicas and no sentinels,
// killed when the test ends.
func StartServer(t testing.TB) *Server {
	t.Helper()
	require(t)
	s, err := harness.StartServer(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Kill()
		logs(t, s)
	})
	return s
}

// Start starts a primary, two replicas of it and three sentinels monitoring
// it as MasterName (quorum 2), every server behind a proxy, and waits until
// replication is online and the sentinels know each other; all stopped when
// the test ends.
func Start(t testing.TB) *Cluster {
	t.Helper()
	require(t)
	c, err := harness.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Stop()
		logs(t, c.Servers()...)
	})
	return c
}

// logs prints the last lines of each server's log if t failed.
func logs(t testing.TB, ss ...*Server) {
	if !t.Failed() {
		return
	}
	for _, s := range ss {
		t.Logf("redistest: %s at %s, last lines of its log:\n%s", s.Name, s.Addr, s.LogTail(20))
	}
}
