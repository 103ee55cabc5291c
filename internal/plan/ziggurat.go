package plan

import "math"

// An Exp(1) draw from counter-based bits by Marsaglia and Tsang's
// ziggurat (2000), as math/rand/v2's ExpFloat64 draws it from a
// generator: most draws take a table look-up and a multiplication, where
// -log(u) takes about 90 instructions. The tables are built once, by the
// paper's recurrence, for 256 boxes.

const (
	zigR = 7.69711747013104972  // the base box's right edge
	zigV = 3.949659822581572e-3 // every box's area
	zigM = 4294967296.0         // 2^32
)

var (
	zigK [256]uint32
	zigW [256]float32
	zigF [256]float32
)

func init() {
	de := zigR
	q := zigV / math.Exp(-de)
	zigK[0], zigK[1] = uint32((de/q)*zigM), 0
	zigW[0], zigW[255] = float32(q/zigM), float32(de/zigM)
	zigF[0], zigF[255] = 1, float32(math.Exp(-de))
	te := de
	for i := 254; i >= 1; i-- {
		de = -math.Log(zigV/de + math.Exp(-de))
		zigK[i+1] = uint32((de / te) * zigM)
		te = de
		zigF[i] = float32(math.Exp(-de))
		zigW[i] = float32(de / zigM)
	}
}

// expFrom returns an Exp(1) draw from the 64 well-mixed bits x; when the
// ziggurat rejects, it mixes x again for fresh bits.
func expFrom(x uint64) float64 {
	for {
		j, i := uint32(x), uint8(x>>32)
		v := float64(j) * float64(zigW[i])
		if j < zigK[i] {
			return v
		}
		x = mix64(x + 0x9e3779b97f4a7c15)
		u := float64(x>>11) / (1 << 53)
		if i == 0 {
			return zigR - math.Log(1-u) // the tail beyond the base box
		}
		if zigF[i]+float32(u)*(zigF[i-1]-zigF[i]) < float32(math.Exp(-v)) {
			return v
		}
		x = mix64(x + 0x9e3779b97f4a7c15)
	}
}
