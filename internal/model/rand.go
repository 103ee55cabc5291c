package model

import "math/rand/v2"

// splitmix64 is Vigna's SplitMix64 step: it turns a counter into well-mixed
// seeds.
func splitmix64(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// TrialRand returns the random source of trial i of a run with the given
// seed: a PCG seeded by SplitMix64 from seed and i. Trials are independent
// and each is reproducible on its own, whatever order they run in.
func TrialRand(seed uint64, trial int) *rand.Rand {
	x := seed
	splitmix64(&x)
	x += uint64(trial) * 0xd1b54a32d192ed03
	hi := splitmix64(&x)
	lo := splitmix64(&x)
	return rand.New(rand.NewPCG(hi, lo))
}
