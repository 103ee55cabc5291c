package scenario

import (
	"fmt"
	"testing"

	"github.com/goccy/go-yaml"
)

// TestWarmupDefault checks live.warmup: unset, on for a closed loop and
// left unset without one; false and true kept as written, also through a
// marshal and parse (as calibrated.yaml is written and read).
func TestWarmupDefault(t *testing.T) {
	closed := "traffic:\n  - name: b\n    closed_loop: {concurrency: 2}\n"
	open := "traffic:\n  - name: b\n    open_loop: {rate: 10/s}\n"
	tests := []struct {
		name, traffic, live string
		want                string // the value after defaults: "nil", "true" or "false"
	}{
		{"closed loop, unset", closed, "", "true"},
		{"closed loop, false", closed, "live: {warmup: false}\n", "false"},
		{"closed loop, true", closed, "live: {warmup: true}\n", "true"},
		{"open loop, unset", open, "", "nil"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := Parse("w.yaml", []byte("name: w\nlimiter: {limit: 5, window: 10s}\n"+tc.traffic+tc.live))
			if err != nil {
				t.Fatal(err)
			}
			b, err := yaml.Marshal(sc)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Parse("again.yaml", b)
			if err != nil {
				t.Fatal(err)
			}
			for what, s := range map[string]*Scenario{"parsed": sc, "marshalled and parsed again": again} {
				got := "nil"
				if w := s.Live.Warmup; w != nil {
					got = fmt.Sprint(*w)
				}
				if got != tc.want {
					t.Errorf("%s: live.warmup %s, want %s", what, got, tc.want)
				}
			}
		})
	}
}
