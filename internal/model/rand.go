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
	r, _ := trialSource(seed, trial)
	return r
}

// trialSource returns TrialRand(seed, trial) and the PCG it draws from,
// for draws made straight from the PCG (uniform01).
func trialSource(seed uint64, trial int) (*rand.Rand, *rand.PCG) {
	x := seed
	splitmix64(&x)
	x += uint64(trial) * 0xd1b54a32d192ed03
	hi := splitmix64(&x)
	lo := splitmix64(&x)
	src := rand.NewPCG(hi, lo)
	return rand.New(src), src
}

// uniform01 is rand.Rand.Float64 of a Rand over src: the same draw and the
// same value, without Rand's call through its Source interface.
func uniform01(src *rand.PCG) float64 {
	return float64(src.Uint64()<<11>>11) / (1 << 53)
}
