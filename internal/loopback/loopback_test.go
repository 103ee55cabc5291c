package loopback

import (
	"net"
	"testing"
)

// TestHost: loopback addresses of both families and localhost are
// loopback; every interface (""), other addresses and names are not.
func TestHost(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "127.8.9.10": true, "::1": true, "localhost": true,
		"": false, "0.0.0.0": false, "::": false, "10.0.0.1": false, "example.com": false, "[::1]": false,
	} {
		if got := Host(host); got != want {
			t.Errorf("Host(%q) = %v, want %v", host, got, want)
		}
	}
}

// FuzzHost: any string is answered without a panic, and a host other
// than localhost that is loopback is an address in 127.0.0.0/8 or ::1.
func FuzzHost(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "::1", "localhost", "", "1.2.3.4", "::ffff:127.0.0.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		if !Host(host) || host == "localhost" {
			return
		}
		ip := net.ParseIP(host)
		if v4 := ip.To4(); !(v4 != nil && v4[0] == 127 || ip.Equal(net.IPv6loopback)) {
			t.Errorf("Host(%q) is loopback, but it is not in 127.0.0.0/8 or ::1", host)
		}
	})
}
