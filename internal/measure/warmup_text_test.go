package measure

import (
	"bytes"
	"strings"
	"testing"
)

// TestWriteTextWarmup: a live run's line says how many warm-up requests
// came before it and, when it was warmed up for a while (the built-in
// target on Redis), for how long; nothing when there were none.
func TestWriteTextWarmup(t *testing.T) {
	for _, tc := range []struct {
		name string
		live Live
		want string
	}{
		{"soak", Live{WarmupRequests: 12345, SoakSeconds: 1}, ", after 12,345 warm-up requests that opened its connections and warmed its target up for 1s (not counted)"},
		{"connections", Live{WarmupRequests: 8}, ", after 8 warm-up requests that opened its connections (not counted)"},
		{"none", Live{}, ""},
	} {
		s := &Summary{Mode: "attack", Limiter: LimiterRef{Limit: 5}, Totals: Totals{Requests: 10, Allowed: 5, Denied: 5}, Live: &tc.live}
		var b bytes.Buffer
		if err := WriteText(&b, s); err != nil {
			t.Fatal(err)
		}
		line := ""
		for _, l := range strings.Split(b.String(), "\n") {
			if strings.HasPrefix(l, "  live: ") {
				line = l
			}
		}
		if !strings.HasSuffix(line, " s"+tc.want) {
			t.Errorf("%s: the live line %q, want it to end %q", tc.name, line, tc.want)
		}
	}
}
