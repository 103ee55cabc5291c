package measure

import "fmt"

// Published prices, paid plan, beyond each plan's included amounts; the
// sources and the date they were read are in docs/facts.md ("Prices").
const (
	// Workers KV (developers.cloudflare.com/kv/platform/pricing).
	usdPerMillionReads  = 0.50
	usdPerMillionWrites = 5.00
	// Workers requests, Standard usage model: $0.30 per million beyond 10
	// million a month (developers.cloudflare.com/workers/platform/pricing).
	// CPU time ($0.02 per million CPU-ms) is left out: a limiter's check
	// takes about a millisecond, $0.00002 per million requests.
	usdPerMillionWorkerRequests = 0.30
	// Durable Objects: $0.15 per million requests beyond 1 million a month;
	// duration $12.50 per million GB-s beyond 400,000 GB-s, wall-clock
	// while the object is active, at 128 MB per object
	// (developers.cloudflare.com/durable-objects/platform/pricing).
	usdPerMillionObjectRequests = 0.15
	usdPerMillionGBs            = 12.50
	objectGB                    = 0.128
	// objectActiveSecs is how long one limiter request keeps its object
	// active (billed duration). Not published: an assumption, the ~16 ms
	// per warm transaction one benchmark measured (facts: lumenize.com);
	// requests that overlap share it, so this is an upper bound.
	objectActiveSecs = 0.016
	// The Rate Limiting binding publishes no price of its own: its calls
	// are priced at $0, the Worker's request fee aside (an assumption).
	usdPerMillionLimitCalls = 0
	// Free-plan daily quotas of Durable Object and Worker requests.
	freeObjectRequestsPerDay = 100000
	freeWorkerRequestsPerDay = 100000
)

// price fills out's dollars and basis for the store's work per million
// requests (Workers KV's accepted reads and writes; a Durable Object's one
// request per check, whatever keys it reads there) and the Workers request
// fee that every design pays. The memory store is priced as the Workers KV binding it stands
// for, marked as a reference.
func price(out *Cost, store string) {
	workers := fmt.Sprintf("Workers requests $%.2f per million", usdPerMillionWorkerRequests)
	out.WorkersUSDPerMillionRequests = usdPerMillionWorkerRequests
	reads, writes := out.ReadsPerMillionRequests/1e6, out.WritesPerMillionRequests/1e6
	switch store {
	case "durable-object":
		gbs := 1e6 * objectActiveSecs * objectGB
		out.StoreUSDPerMillionRequests = usdPerMillionObjectRequests + gbs/1e6*usdPerMillionGBs
		out.Basis = fmt.Sprintf("Durable Object requests $%.2f per million and duration $%.2f per million GB-s (128 MB, %.0f ms active a request, assumed); %s",
			usdPerMillionObjectRequests, usdPerMillionGBs, objectActiveSecs*1000, workers)
	case "per-location":
		out.StoreUSDPerMillionRequests = usdPerMillionLimitCalls
		out.Basis = "Rate Limiting binding calls $0 (no price of its own is published; assumed); " + workers
	default:
		out.StoreUSDPerMillionRequests = reads*usdPerMillionReads + writes*usdPerMillionWrites
		out.Basis = fmt.Sprintf("Workers KV reads $%.2f and writes $%.2f per million; %s", usdPerMillionReads, usdPerMillionWrites, workers)
		if store == "memory" {
			out.Reference = true
			out.Basis = "the memory reference, priced as the KV binding it stands for: " + out.Basis
		}
	}
	out.Basis += " (paid plan, beyond the included amounts)"
	out.USDPerMillionRequests = out.StoreUSDPerMillionRequests + out.WorkersUSDPerMillionRequests
}
