// Command kvemu runs the Workers KV API emulator (internal/kvemu) on a
// loopback address, so the cloudflare store can be tried without an account:
//
//	go run ./cmd/kvemu -addr 127.0.0.1:8787
//
// It prints the base URL, account ID, namespace ID and token to use, logs each
// request, and stops on Ctrl-C; see `kvemu -h`.
package main

import (
	"os"

	"github.com/overshoot-dev/overshoot/internal/kvemucmd"
)

func main() {
	os.Exit(kvemucmd.Main(os.Args[1:], os.Stdout, os.Stderr))
}
