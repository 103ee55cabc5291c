package measure

import (
	"math"
	"slices"
	"time"

	"github.com/overshoot-dev/overshoot/internal/kv"
)

// visibilityEdgesMs are the bins of t-visibility, in milliseconds since the
// latest write; the last bin is open-ended.
var visibilityEdgesMs = []float64{0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000,
	10000, 20000, 30000, 45000, 60000, 90000, 120000}

// KVCounters is what a store reports as it serves a trial. The store calls
// its methods; the zero value is not ready: NewRecorder or NewKVCounters
// prepares it.
type KVCounters struct {
	Reads, Writes, ReadErrors, WriteErrors     int64
	WriteRateLimited, QuotaErrors, LostUpdates int64
	WriteQuotaErrors                           int64 // the writes among QuotaErrors
	StaleReads                                 int64
	Staleness                                  LogHist
	VisReads, VisFresh                         []int64
}

// NewKVCounters returns counters ready for a store that counts on its own,
// outside a Recorder (the live eventual store).
func NewKVCounters() *KVCounters {
	k := &KVCounters{}
	k.init()
	return k
}

func (k *KVCounters) init() {
	k.VisReads = make([]int64, len(visibilityEdgesMs))
	k.VisFresh = make([]int64, len(visibilityEdgesMs))
}

// Read counts a read and its error, if any.
func (k *KVCounters) Read(err error) {
	k.Reads++
	if err != nil {
		k.ReadErrors++
		if kv.KindOf(err) == kv.DailyQuota {
			k.QuotaErrors++
		}
	}
}

// Write counts a write and its error, if any, by kind.
func (k *KVCounters) Write(err error) {
	k.Writes++
	if err == nil {
		return
	}
	k.WriteErrors++
	switch kv.KindOf(err) {
	case kv.WriteRateLimited:
		k.WriteRateLimited++
	case kv.DailyQuota:
		k.QuotaErrors++
		k.WriteQuotaErrors++
	}
}

// Lost counts n lost updates: increments the store acknowledged that are
// missing from the count a key ended its life with (docs/summary.md).
func (k *KVCounters) Lost(n int64) { k.LostUpdates += n }

// Visibility records a successful read of a key that has been written:
// since is the time since the latest committed write to it, fresh whether
// the read returned that write, and staleFor, for a stale read, how long
// the value it returned had been outdated (since the first write that
// replaced it).
func (k *KVCounters) Visibility(since, staleFor time.Duration, fresh bool) {
	var b VisBin
	k.VisibilityIn(&b, since, staleFor, fresh)
}

// VisBin remembers the visibility bin of a key's last read, for a store
// that keeps one per key (VisibilityIn): the times since the key's latest
// write that fall in it, [from, to). The time since a key's latest write
// grows until the next write, so the next read's is usually in it, found
// with two comparisons. The zero VisBin holds no bin.
type VisBin struct {
	from, to time.Duration
	i        uint8
}

// visibilityFrom holds, per bin, the least time since a write (in whole
// nanoseconds) whose milliseconds, float64(since) / 1e6, reach the bin's
// edge, so that a bin is found with integer comparisons, the same bin as
// from the edges in milliseconds.
var visibilityFrom = func() []time.Duration {
	from := make([]time.Duration, len(visibilityEdgesMs))
	reaches := func(d time.Duration, e float64) bool { return float64(d)/float64(time.Millisecond) >= e }
	for i, e := range visibilityEdgesMs {
		d := time.Duration(e * float64(time.Millisecond))
		for reaches(d-1, e) {
			d--
		}
		for !reaches(d, e) {
			d++
		}
		from[i] = d
	}
	return from
}()

// VisibilityIn is Visibility for a store that keeps, per key, the bin of
// the key's last read (*b, which it sets to this read's).
func (k *KVCounters) VisibilityIn(b *VisBin, since, staleFor time.Duration, fresh bool) {
	if since < b.from || since >= b.to {
		b.find(since)
	}
	k.VisReads[b.i]++
	if fresh {
		k.VisFresh[b.i]++
		return
	}
	k.StaleReads++
	k.Staleness.Add(float64(staleFor) / float64(time.Millisecond))
}

// find sets b to the bin since falls in: the last one whose edge it
// reaches, or the first (a time before the first edge counts there).
func (b *VisBin) find(since time.Duration) {
	i := len(visibilityFrom) - 1
	for i > 0 && since < visibilityFrom[i] {
		i--
	}
	b.i, b.from, b.to = uint8(i), visibilityFrom[i], math.MaxInt64
	if i == 0 {
		b.from = math.MinInt64
	}
	if i+1 < len(visibilityFrom) {
		b.to = visibilityFrom[i+1]
	}
}

// Add pools another trial's (or store's) counters into k.
func (k *KVCounters) Add(o KVCounters) {
	k.Reads += o.Reads
	k.Writes += o.Writes
	k.ReadErrors += o.ReadErrors
	k.WriteErrors += o.WriteErrors
	k.WriteRateLimited += o.WriteRateLimited
	k.QuotaErrors += o.QuotaErrors
	k.WriteQuotaErrors += o.WriteQuotaErrors
	k.LostUpdates += o.LostUpdates
	k.StaleReads += o.StaleReads
	k.Staleness.Merge(o.Staleness)
	if k.VisReads == nil {
		k.init()
	}
	for i := range o.VisReads {
		k.VisReads[i] += o.VisReads[i]
		k.VisFresh[i] += o.VisFresh[i]
	}
}

// LogHist is a histogram of positive values in buckets 2% wide, so that
// quantiles of any number of samples come from constant memory, within 2%.
type LogHist struct {
	Counts map[int32]int64
	N      int64
	Sum    float64
	MaxV   float64
}

const logHistBase = 1.02

// Add records v; values at or below 0.001 share the lowest bucket.
func (h *LogHist) Add(v float64) {
	if math.IsNaN(v) {
		return
	}
	if h.Counts == nil {
		h.Counts = map[int32]int64{}
	}
	h.Counts[bucketOf(v)]++
	h.N++
	h.Sum += v
	h.MaxV = max(h.MaxV, v)
}

// bucketOf returns v's bucket: floor(log(v) / log(1.02)) as logBucket
// computes it, or math.MinInt32 for v <= 0.001 (and NaN). It is called for
// every simulated request's latency, and the logarithm was an eighth of the
// simulator's time, so for values in the tables' range (0.001 to 2^40) it
// finds the same bucket without one: v's exponent and top mantissa bits
// name a slice of the number line narrower than a bucket, so v's bucket is
// the bucket of the slice's start or the next one, and one comparison with
// that next bucket's lowest value tells which. The tables are built from
// logBucket itself, so every value gets the bucket it always had (a test
// holds it around every bucket bound).
func bucketOf(v float64) int32 {
	if !(v > 0.001) {
		return math.MinInt32
	}
	if i := int(math.Float64bits(v)>>sliceShift) - sliceLow; i < len(sliceBuckets) {
		s := &sliceBuckets[i]
		b := s.bucket
		if v >= s.next {
			b++
		}
		return b
	}
	return logBucket(v)
}

// logBucket is the definition of v's bucket, for v > 0.
func logBucket(v float64) int32 {
	return int32(math.Floor(math.Log(v) / math.Log(logHistBase)))
}

// bucketOf's tables. A slice is the float64s that share their exponent and
// top 6 mantissa bits: at most 2^-6 = 1.6% wide, less than a bucket's 2%,
// so no slice spans more than two buckets. Slices run from the one holding
// 0.001 to 2^40.
const (
	sliceShift = 52 - 6
	sliceHigh  = 1 << 40 // the first value the tables leave to logBucket
)

var (
	// sliceLow is the slice number of 0.001's slice.
	sliceLow = int(math.Float64bits(0.001) >> sliceShift)
	// sliceBuckets is, per slice from sliceLow, the bucket of its lowest
	// value and the lowest value of the bucket after it.
	sliceBuckets []sliceBucket
	// bucketLow is, per bucket from bucketLowFirst, the lowest float64 in
	// it.
	bucketLow      []float64
	bucketLowFirst int32
)

// sliceBucket is what bucketOf reads of a slice: the bucket of its lowest
// value, and next, the lowest value of the bucket after it. Kept together,
// they take one look-up and one bounds check.
type sliceBucket struct {
	bucket int32
	next   float64
}

func init() {
	n := int(math.Float64bits(sliceHigh)>>sliceShift) - sliceLow
	sliceBuckets = make([]sliceBucket, n)
	for i := range sliceBuckets {
		sliceBuckets[i].bucket = logBucket(math.Max(math.Float64frombits(uint64(i+sliceLow)<<sliceShift), math.Nextafter(0.001, 1)))
	}
	bucketLowFirst = sliceBuckets[0].bucket
	last := logBucket(sliceHigh) + 1
	bucketLow = make([]float64, last-bucketLowFirst+1)
	for b := bucketLowFirst; b <= last; b++ {
		// Start near the bound (a few float64s from it: building the
		// tables takes about a millisecond) and step to the lowest
		// float64 of bucket b.
		x := math.Exp(float64(b) * math.Log(logHistBase))
		for logBucket(x) >= b {
			x = math.Nextafter(x, 0)
		}
		for logBucket(x) < b {
			x = math.Nextafter(x, math.Inf(1))
		}
		bucketLow[b-bucketLowFirst] = x
	}
	for i := range sliceBuckets {
		sliceBuckets[i].next = bucketLow[sliceBuckets[i].bucket+1-bucketLowFirst]
	}
}

// Merge adds o's samples to h.
func (h *LogHist) Merge(o LogHist) {
	for b, c := range o.Counts {
		if h.Counts == nil {
			h.Counts = map[int32]int64{}
		}
		h.Counts[b] += c
	}
	h.N += o.N
	h.Sum += o.Sum
	h.MaxV = max(h.MaxV, o.MaxV)
}

// Stats returns the histogram's summary; quantiles are bucket midpoints.
func (h *LogHist) Stats() Stats {
	s := Stats{N: h.N, Max: h.MaxV}
	if h.N == 0 {
		return s
	}
	s.Mean = h.Sum / float64(h.N)
	buckets := make([]int32, 0, len(h.Counts))
	for b := range h.Counts {
		buckets = append(buckets, b)
	}
	slices.Sort(buckets)
	q := func(p float64) float64 {
		rank := int64(math.Ceil(p * float64(h.N)))
		var seen int64
		for _, b := range buckets {
			seen += h.Counts[b]
			if seen >= rank {
				if b == math.MinInt32 {
					return 0
				}
				return min(h.MaxV, math.Pow(logHistBase, float64(b)+0.5))
			}
		}
		return h.MaxV
	}
	s.P50, s.P95, s.P99 = q(0.50), q(0.95), q(0.99)
	return s
}
