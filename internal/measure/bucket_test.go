package measure

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// TestBucketOfIsLogBucket holds bucketOf's tables to the logarithm they
// replace: every float64 within 512 steps of a bucket's lowest value, or
// of a table slice's start, gets logBucket's bucket, and so do a million
// values drawn across the tables' range and beyond, and latencies of whole
// nanoseconds. Far from a bound the logarithm's rounding cannot change a
// bucket, so these are where a table could disagree.
func TestBucketOfIsLogBucket(t *testing.T) {
	check := func(v float64) {
		t.Helper()
		want := int32(math.MinInt32)
		if v > 0.001 {
			want = logBucket(v)
		}
		if got := bucketOf(v); got != want {
			t.Fatalf("bucketOf(%v) = %d, want %d", v, got, want)
		}
	}
	around := func(x float64) { near(x, 512, check) }
	for _, x := range bucketLow {
		around(x)
	}
	for i := range sliceBuckets {
		around(math.Float64frombits(uint64(i+sliceLow) << sliceShift))
	}
	around(0.001)
	around(sliceHigh)
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 1000000; i++ {
		check(math.Exp(r.Float64()*40 - 10)) // e^-10 (below 0.001) to e^30 (beyond the tables)
		check(float64(time.Duration(r.Int64N(int64(10*time.Second)))) / float64(time.Millisecond))
	}
	for _, v := range []float64{0, -1, math.NaN(), math.Inf(1), math.SmallestNonzeroFloat64, math.MaxFloat64} {
		check(v)
	}
}

// BenchmarkLatency is the recorder's cost per latency recorded.
func BenchmarkLatency(b *testing.B) {
	r := NewRecorder(Config{Limit: 1, Window: time.Second, Populations: []Population{{Name: "p"}}})
	d := 50 * time.Millisecond
	for b.Loop() {
		r.Latency(d)
		d += 997
		if d > time.Second {
			d = time.Millisecond
		}
	}
}

// TestDenseHistIsLogHist holds denseHist.add, which finds a dense bucket
// from bucketOf's tables itself, to LogHist.Add: values a few steps either
// side of every bucket's lowest value, and values outside the dense
// buckets, give the same histogram.
func TestDenseHistIsLogHist(t *testing.T) {
	for _, outside := range []bool{false, true} { // the larger values outside, or not
		var d denseHist
		var want LogHist
		add := func(v float64) {
			d.add(v)
			want.Add(v)
		}
		for range denseAfter { // past the map, into the dense buckets
			add(1)
		}
		for _, x := range bucketLow {
			near(x, 8, add)
		}
		if outside {
			for _, v := range []float64{0, -1, 0.001, math.Nextafter(0.001, 1), sliceHigh, 1e300, math.Inf(1), math.NaN()} {
				add(v)
			}
		}
		if got := d.hist(); !reflect.DeepEqual(got, want) {
			t.Errorf("denseHist counted N %d, sum %v, max %v, %d buckets; LogHist N %d, sum %v, max %v, %d buckets",
				got.N, got.Sum, got.MaxV, len(got.Counts), want.N, want.Sum, want.MaxV, len(want.Counts))
		}
	}
}

// TestVisibilityIn holds VisibilityIn to the bins' edges in milliseconds:
// whatever bin it remembers from the read before, a read lands in the last
// bin whose edge float64(since) / 1e6 reaches (the first, below them all),
// at every edge, a nanosecond either side of it, and far beyond the last.
func TestVisibilityIn(t *testing.T) {
	want := func(since time.Duration) int {
		ms := float64(since) / float64(time.Millisecond)
		i := len(visibilityEdgesMs) - 1
		for i > 0 && ms < visibilityEdgesMs[i] {
			i--
		}
		return i
	}
	var sinces []time.Duration
	for _, e := range visibilityEdgesMs {
		d := time.Duration(e * float64(time.Millisecond))
		sinces = append(sinces, d-2, d-1, d, d+1)
	}
	sinces = append(sinces, -time.Second, math.MinInt64, time.Hour, 1<<53-1, 1<<53, 1<<53+1, math.MaxInt64)
	// Each since from a fresh bin, and from every other since's bin.
	starts := []VisBin{{}}
	for _, since := range sinces {
		var b VisBin
		b.find(since)
		starts = append(starts, b)
	}
	for _, since := range sinces {
		for _, start := range starts {
			got := NewKVCounters()
			b := start
			got.VisibilityIn(&b, since, 0, true)
			w := want(since)
			if got.VisReads[w] != 1 || got.VisFresh[w] != 1 || int(b.i) != w || since < b.from || since >= b.to && b.to != math.MaxInt64 {
				t.Fatalf("since %v from bin %+v: reads %v, bin %+v, want bin %d", since, start, got.VisReads, b, w)
			}
		}
		// Visibility counts in the same bin.
		got := NewKVCounters()
		got.Visibility(since, 0, true)
		if got.VisReads[want(since)] != 1 {
			t.Fatalf("Visibility(%v): reads %v, want bin %d", since, got.VisReads, want(since))
		}
	}
}

// near calls f on x and on the n floats next to it on either side: a
// bucket's bound is where a table and a logarithm would disagree.
func near(x float64, n int, f func(float64)) {
	lo, hi := x, x
	for i := 0; i < n; i++ {
		lo, hi = math.Nextafter(lo, 0), math.Nextafter(hi, math.Inf(1))
		f(lo)
		f(hi)
	}
	f(x)
}
