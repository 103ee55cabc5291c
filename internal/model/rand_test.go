package model

import "testing"

// TestTrialRand checks that trial sources are reproducible and distinct.
func TestTrialRand(t *testing.T) {
	if TrialRand(7, 3).Uint64() != TrialRand(7, 3).Uint64() {
		t.Error("same seed and trial give different streams")
	}
	seen := map[uint64]bool{}
	for seed := uint64(0); seed < 4; seed++ {
		for i := 0; i < 100; i++ {
			v := TrialRand(seed, i).Uint64()
			if seen[v] {
				t.Fatalf("seed %d trial %d repeats another stream's first draw", seed, i)
			}
			seen[v] = true
		}
	}
}
