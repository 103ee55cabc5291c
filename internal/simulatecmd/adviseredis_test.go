package simulatecmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdviseRedisFailover runs the advice on the library's
// redis-failover-advice.yaml (a botnet, the primary killed under it, at
// most 1.5 times the limit in a minute): failing open lets each bot's
// outage through, so every fail-open Redis design misses; the recommended
// design is atomic on the primary and fails closed, a store one can ship
// (not the memory reference). The numbers come from the advice run here.
func TestAdviseRedisFailover(t *testing.T) {
	t.Parallel() // CPU-bound: beside the others, so that both cores work when the package runs alone
	code, stdout, stderr := runMain(t, "-trials", "3", "-json", "-no-report", "../../scenarios/redis-failover-advice.yaml")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc adviceJSON
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("advice JSON: %v\n%s", err, stdout)
	}
	a := doc.Advice
	redis := 0
	for _, o := range a.Options {
		if o.Store != "redis" {
			continue
		}
		redis++
		if o.Update == "" || o.RedisRead == "" {
			t.Errorf("%s %s: update %q, redis_read %q: want both named", o.Algorithm, o.ErrorPolicy, o.Update, o.RedisRead)
		}
		if o.ErrorPolicy == "fail-open" && o.Meets {
			t.Errorf("%s on redis (%s, %s) fail-open meets ratio.max<=1.5 through a failover: ratio.max %.2f", o.Algorithm, o.Update, o.RedisRead, o.Metrics["ratio.max"])
		}
	}
	if redis != 18 {
		t.Errorf("%d Redis designs, want 18 (3 algorithms x read-then-write, atomic, replica reads x 2 policies)", redis)
	}
	if a.Recommended < 0 {
		t.Fatalf("nothing recommended: %s", a.Recommendation)
	}
	r := a.Options[a.Recommended]
	if r.Store != "redis" || r.Update != "atomic" || r.RedisRead != "primary" || r.ErrorPolicy != "fail-closed" {
		t.Errorf("recommended %s on %s (%s, %s), %s; want atomic on the redis primary, fail-closed", r.Algorithm, r.Store, r.Update, r.RedisRead, r.ErrorPolicy)
	}
	if !strings.Contains(a.Snippet, "update: atomic") || !strings.Contains(a.Snippet, "kind: redis") {
		t.Errorf("snippet does not ship what is recommended:\n%s", a.Snippet)
	}
	if !strings.Contains(a.Recommendation, "not priced per request") {
		t.Errorf("recommendation does not say Redis is not priced per request: %s", a.Recommendation)
	}
	if len(a.Notes) != 1 || !strings.Contains(a.Notes[0], "apply to the Redis designs only") {
		t.Errorf("notes %q, want one saying the faults apply to the Redis designs only", a.Notes)
	}
}

// TestAdviseRedisOnKV: a scenario on Workers KV whose advise section
// names redis gets the Redis designs, run on the model's redis defaults,
// and the advice says so.
func TestAdviseRedisOnKV(t *testing.T) {
	yaml := strings.Replace(adviseYAML, "stores: [memory, durable-object]", "stores: [memory, redis]", 1)
	file := filepath.Join(t.TempDir(), "a.yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runMain(t, "-no-report", file)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"note: the scenario's store is memory: the Redis designs run on the model's redis defaults",
		"fixed-window on redis (atomic, primary), fail-open", "fixed-window on redis (read-then-write, replica reads), fail-open",
		"token-bucket on redis (read-then-write, primary), fail-open", "not priced (hourly)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
}
