package redis_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/overshoot-dev/overshoot/internal/faults"
	"github.com/overshoot-dev/overshoot/internal/kv"
	"github.com/overshoot-dev/overshoot/internal/limiter"
	"github.com/overshoot-dev/overshoot/internal/measure"
	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/redis"
	"github.com/overshoot-dev/overshoot/internal/redis/redistest"
)

// direct checks each read of the store it wraps against the primary
// itself: just before the read is sent it reads the key on the primary
// (with one caller per key, one request at a time, that is the count last
// acknowledged), and counts the read stale when it returns another count.
type direct struct {
	kv.Store
	primary *goredis.Client
	prefix  string
	mu      sync.Mutex
	reads   int64 // reads of a key the primary held
	stale   int64
}

func (d *direct) Get(ctx context.Context, key string) (string, bool, error) {
	p, perr := d.primary.Get(ctx, d.prefix+key).Result()
	v, found, err := d.Store.Get(ctx, key)
	if err != nil || perr != nil { // goredis.Nil: a key not written yet
		return v, found, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.reads++
	if !found || v != p {
		d.stale++
	}
	return v, found, nil
}

// TestStaleReadsReplicas runs three callers, each on its own key one
// request at a time, for two seconds with the replication links 50 ms
// behind, reading from the replicas and from the primary. The ledger's
// stale reads and reads of written keys must equal what direct finds by
// reading the primary before each read; with primary reads there are
// none, with replica reads many. Lost updates with replica reads (a
// writer that read a stale count) are the servers' own count of them: the
// writes acknowledged less what the primary holds.
func TestStaleReadsReplicas(t *testing.T) {
	for _, replica := range []bool{true, false} {
		t.Run(fmt.Sprintf("replica reads %v", replica), func(t *testing.T) {
			c := redistest.Start(t)
			ctx := ctxFor(t, 60*time.Second)
			prefix := "stale:"
			s := newStore(t, redis.Config{Sentinels: c.SentinelAddrs(), MasterName: redistest.MasterName, ReadReplicas: replica,
				Timeout: time.Second, Prefix: prefix})
			led := redis.NewLedger(s)
			if replica {
				led = redis.NewReplicaLedger(s)
			}
			pc := c.Primary.Client(t)
			d := &direct{Store: led, primary: pc, prefix: prefix}
			lim, err := limiter.New(limiter.Config{Name: "t", Limit: 1 << 40, Window: time.Hour, Policy: limiter.FailOpen})
			if err != nil {
				t.Fatal(err)
			}
			applied := faults.Run(ctx, []plan.Fault{{At: 0, Kind: plan.LinkLatency, Target: plan.TargetReplicas, Latency: 50 * time.Millisecond}},
				time.Now(), 10*time.Second, 1, c.Faults())
			for _, a := range applied {
				if a.Err != nil {
					t.Fatalf("fault %s", a)
				}
			}
			const callers = 3
			end := time.Now().Add(2 * time.Second)
			var wg sync.WaitGroup
			for i := range callers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for time.Now().Before(end) && ctx.Err() == nil {
						lim.Check(ctx, d, time.Now(), fmt.Sprint("caller", i))
						time.Sleep(2 * time.Millisecond)
					}
				}()
			}
			wg.Wait()
			if err := led.Settle(ctx); err != nil {
				t.Fatal(err)
			}

			k := measure.NewKVCounters()
			led.AddTo(k)
			var reads int64
			for _, n := range k.VisReads {
				reads += n
			}
			t.Logf("ledger: %d reads of written keys, %d stale, %d lost; direct: %d reads, %d stale", reads, k.StaleReads, k.LostUpdates, d.reads, d.stale)
			if reads != d.reads || k.StaleReads != d.stale {
				t.Errorf("the ledger counts %d stale in %d reads of written keys, the primary %d in %d: want them equal", k.StaleReads, reads, d.stale, d.reads)
			}
			if d.reads < 100 {
				t.Errorf("%d reads of written keys: too few to judge", d.reads)
			}
			if !replica {
				if k.StaleReads != 0 || k.LostUpdates != 0 {
					t.Errorf("primary reads: %d stale, %d lost; want none", k.StaleReads, k.LostUpdates)
				}
				return
			}
			if k.StaleReads < d.reads/10 {
				t.Errorf("%d stale reads in %d with the replicas 50ms behind: want many", k.StaleReads, d.reads)
			}
			var serverLost int64
			for key, n := range led.Acked() {
				v, err := pc.Get(ctx, prefix+key).Result()
				if err != nil {
					t.Fatal(err)
				}
				held, _ := strconv.ParseInt(v, 10, 64)
				serverLost += max(0, n-held)
			}
			t.Logf("the servers lost %d increments", serverLost)
			if k.LostUpdates == 0 || k.LostUpdates != serverLost {
				t.Errorf("the ledger counts %d lost, the servers %d: want them equal, above 0", k.LostUpdates, serverLost)
			}
		})
	}
}
