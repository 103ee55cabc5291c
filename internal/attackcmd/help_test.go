package attackcmd

import (
	"slices"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/cli/clitest"
)

// TestHelpListsEveryExitCode: attack -h, and each mode's -h, lists every
// exit code attack's code can return (read from the code's constants),
// and no other.
func TestHelpListsEveryExitCode(t *testing.T) {
	want := clitest.ExitCodes(t, ".")
	if !slices.Contains(want, 130) {
		t.Fatalf("exit codes from the code %v lack the second Ctrl-C's 130: the scan is wrong", want)
	}
	for _, mode := range []string{"run", "serve", "merge"} {
		_, _, help := runMain(t, Env{}, mode, "-h")
		if got := clitest.HelpExitCodes(help); !slices.Equal(got, want) {
			t.Errorf("attack %s -h lists exit codes %v, the code returns %v:\n%s", mode, got, want, help)
		}
	}
}
