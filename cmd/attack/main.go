// Command attack runs a scenario's traffic for real against a rate limiter:
// the built-in target on loopback (the same limiter over a memory or eventual
// store) or any URL, with vegeta, and writes the same summary.json as
// simulate plus a vegeta results file. See internal/attackcmd for the flags.
package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/overshoot-dev/overshoot/internal/attackcmd"
)

func main() {
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	os.Exit(attackcmd.Main(os.Args[1:], attackcmd.Env{Stdout: os.Stdout, Stderr: os.Stderr, Signals: sig}))
}
