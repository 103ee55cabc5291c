// Command simulate predicts how many requests a rate limiter on an
// eventually consistent KV store lets through, with a discrete-event model
// run over many seeded trials. Run it with no arguments for the seed
// article's endpoint, or give a scenario file; see `simulate -h`.
package main

import (
	"os"

	"github.com/overshoot-dev/overshoot/internal/simulatecmd"
)

func main() {
	os.Exit(simulatecmd.Main(os.Args[1:], os.Stdout, os.Stderr))
}
