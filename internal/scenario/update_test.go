package scenario

import (
	"fmt"
	"testing"
)

// TestUpdateDefaultKeepsTheHash: a scenario that names the seed's
// read-then-write update is the scenario that names none, hash and all;
// atomic is another scenario.
func TestUpdateDefaultKeepsTheHash(t *testing.T) {
	const base = "limiter: {limit: 5, window: 1m%s}\nstore: {kind: memory}\ntraffic:\n  - name: bot\n    closed_loop: {concurrency: 1}\n"
	hash := func(extra string) string {
		sc, err := Parse("u.yaml", []byte(fmt.Sprintf(base, extra)))
		if err != nil {
			t.Fatal(err)
		}
		return sc.Hash()
	}
	none, rtw, atomic := hash(""), hash(", update: read-then-write"), hash(", update: atomic")
	if none != rtw || atomic == none {
		t.Errorf("hashes: none %s, read-then-write %s, atomic %s; want the first two equal and atomic apart", none, rtw, atomic)
	}
}
