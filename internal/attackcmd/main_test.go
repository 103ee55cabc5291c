package attackcmd

import (
	"os"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/report"
)

// TestMain writes the command's reports without figures: rendering them
// takes most of a report's time (many seconds each under the race
// detector) and internal/report tests them; these tests are about the
// command's flow and its files.
func TestMain(m *testing.M) {
	writeReport = func(dir string, s *measure.Summary, o report.Options) error {
		o.NoFigures = true
		return report.Write(dir, s, o)
	}
	os.Exit(m.Run())
}
