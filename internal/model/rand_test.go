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

// TestUniform01 checks that a uniform draw straight from the PCG is the
// draw Rand.Float64 makes: the same value, and the same state after it.
func TestUniform01(t *testing.T) {
	r, src := trialSource(5, 2)
	want := TrialRand(5, 2)
	for i := 0; i < 1000; i++ {
		var got float64
		if i%2 == 0 {
			got = uniform01(src)
		} else {
			got = r.Float64()
		}
		if w := want.Float64(); got != w {
			t.Fatalf("draw %d: %v, want %v", i, got, w)
		}
	}
}
