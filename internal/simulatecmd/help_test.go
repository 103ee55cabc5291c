package simulatecmd

import (
	"slices"
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/cli/clitest"
)

// TestHelpListsEveryExitCode: simulate -h, and each mode's -h, lists
// every exit code simulate's code can return (read from the code's
// constants), and no other; the gates' and advise's 3 says so.
func TestHelpListsEveryExitCode(t *testing.T) {
	want := clitest.ExitCodes(t, ".")
	if len(want) < 4 {
		t.Fatalf("exit codes from the code %v: fewer than 0, 1, 2, 3: the scan is wrong", want)
	}
	for _, m := range Modes {
		_, _, help := runMain(t, m.Name, "-h")
		if got := clitest.HelpExitCodes(help); !slices.Equal(got, want) {
			t.Errorf("simulate %s -h lists exit codes %v, the code returns %v:\n%s", m.Name, got, want, help)
		}
		for _, s := range []string{"-threshold", "-max-ratio", "advise"} {
			if _, codes, _ := strings.Cut(help, "\nexit codes of "); !strings.Contains(codes, s) {
				t.Errorf("simulate %s -h: its exit codes do not mention %s:\n%s", m.Name, s, codes)
			}
		}
	}
}
