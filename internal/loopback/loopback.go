// Package loopback says whether an address stays on this machine: the
// built-in target, the KV emulator and the live runner's notes about
// shared cores all ask it, so that they agree on what loopback is.
package loopback

import "net"

// Host reports whether host (no port) is a loopback IP (127.0.0.0/8, ::1)
// or "localhost". An empty host means every interface, so it is not
// loopback.
func Host(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
