package attack

import (
	"fmt"

	"github.com/overshoot-dev/overshoot/internal/scenario"
)

// newEventual returns the eventual store; it needs internal/model's KV,
// which is not there yet.
func newEventual(sc *scenario.Scenario, seed uint64) (*BuiltinStore, error) {
	return nil, fmt.Errorf("-store eventual is not available yet (it needs the simulator's KV model): use -store memory")
}
