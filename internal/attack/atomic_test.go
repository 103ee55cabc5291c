package attack

import (
	"strings"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/model"
)

// TestAtomicLiveAndModel runs the race (32 clients behind one identity,
// 20 ms per store operation) and the sequential client live on the
// built-in target's memory store and in the model, in both update shapes:
// read-then-write lets the race through in both drivers; atomic allows
// exactly the limit in a window in both, as one request at a time does in
// either shape.
func TestAtomicLiveAndModel(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		latency    time.Duration
	}{{"race", raceYAML, 20 * time.Millisecond}, {"sequential", sequentialYAML, time.Millisecond}} {
		for _, update := range []string{"read-then-write", "atomic"} {
			t.Run(tc.name+" "+update, func(t *testing.T) {
				y := strings.Replace(tc.yaml, "store: {kind: memory}", "store: {kind: memory, latency: {dist: constant, value: "+tc.latency.String()+"}}", 1)
				y = strings.Replace(y, "limiter: {name: t,", "limiter: {name: t, update: "+update+",", 1)
				sc := parse(t, y)
				live := runBuiltin(t, sc, &kv.Delayed{Store: kv.NewMemory(kv.MemoryOptions{}), Delay: func() time.Duration { return tc.latency }}, Options{})
				pred, err := model.Run(livePlan(t, sc), model.Options{Seed: 1, Trials: 1})
				if err != nil {
					t.Fatal(err)
				}
				for who, o := range map[string]int64{"live": live.Overshoot.MaxAllowed, "model": pred.Overshoot.MaxAllowed} {
					switch {
					case (update == "atomic" || tc.name == "sequential") && o != 5:
						t.Errorf("%s: at most %d allowed in a window, want exactly the limit 5", who, o)
					case update == "read-then-write" && tc.name == "race" && o <= 5:
						t.Errorf("%s: at most %d allowed in a window, want the race past the limit 5", who, o)
					}
				}
			})
		}
	}
}
