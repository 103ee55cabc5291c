package simulatecmd

import (
	"os"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/report"
)

// TestMain writes the command's reports without figures, as attackcmd's
// tests do: drawing them takes most of a report's time (seconds each under
// the race detector) and internal/report tests them; these tests are about
// the command's flow, its text and its files.
func TestMain(m *testing.M) {
	writeReport = func(root string, s *measure.Summary, now time.Time, o report.Options) (string, error) {
		o.NoFigures = true
		return report.WriteNew(root, s, now, o)
	}
	os.Exit(m.Run())
}
