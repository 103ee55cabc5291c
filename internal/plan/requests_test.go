package plan_test

import (
	"flag"
	"os"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/plan/plantest"
)

var update = flag.Bool("update", false, "rewrite testdata/requests/*.txt from the plan")

// TestRequestsGolden writes, for every library scenario (each sweep point)
// and the cross-driver cases of plantest, the requests the plan says its
// populations send: identity, address and location of the first requests
// of the first clients, and the arrivals an open loop is expected to send
// over the live run. internal/model and internal/attack each build the same
// transcript from their own code paths and compare it with this golden
// (TestRequestsMatchPlan in both). go test -run RequestsGolden -update
// rewrites it after an intended change.
func TestRequestsGolden(t *testing.T) {
	cases, err := plantest.Cases()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		got, err := plantest.Transcript(c, plantest.FromPlan)
		if err != nil {
			t.Fatal(err)
		}
		path := plantest.GoldenPath(c.Name)
		if *update {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test -run RequestsGolden -update writes it)", err)
		}
		if string(want) != got {
			t.Errorf("%s: the plan's requests changed:\n%s\n(go test -run RequestsGolden -update after an intended change)",
				c.Name, plantest.Compare(string(want), got))
		}
	}
}
