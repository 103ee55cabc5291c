package simulatecmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// adviseYAML is one client at 10 requests a second, limited per minute on
// a small design space: on memory a fixed window allows exactly the limit.
const adviseYAML = `
name: advise-test
trials: 2
duration: 5m
limiter: {limit: 5, window: 60s}
store: {kind: memory, latency: 1ms}
traffic:
  - name: bot
    closed_loop: {concurrency: 1, think: 98ms}
advise:
  budget: ["allowed.max<=7"]
  algorithms: [fixed-window, token-bucket]
  stores: [memory, durable-object]
  policies: [fail-open]
`

func TestAdvise(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.yaml")
	if err := os.WriteFile(file, []byte(adviseYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "reports")
	code, stdout, stderr := runMain(t, "-advise", "-out", out, file)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"budget: allowed.max<=7", "fixed-window on memory, fail-open", "yes     5", "Recommended: "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	var files []string
	filepath.Walk(out, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			files = append(files, filepath.Base(p))
		}
		return nil
	})
	if strings.Join(files, " ") != "advice.json advice.md pareto.png pareto.svg" {
		t.Errorf("files %v", files)
	}
	matches, _ := filepath.Glob(filepath.Join(out, "*", "*", "advice.json"))
	if len(matches) == 1 {
		b, _ := os.ReadFile(matches[0])
		var doc adviceJSON
		if err := json.Unmarshal(b, &doc); err != nil || len(doc.Advice.Options) != 4 || doc.Advice.Recommended < 0 || doc.Advice.Options[doc.Advice.Recommended].Store != "durable-object" || !strings.HasPrefix(doc.Advice.Recommendation, "Recommended:") || doc.Advice.Snippet == "" {
			t.Errorf("advice.json: %v, %+v", err, doc.Advice)
		}
	}
	// The recommended option, simulated again with another seed, meets the
	// budget: the advice holds beyond the trials it was found with.
	if len(matches) == 1 {
		b, _ := os.ReadFile(matches[0])
		var doc adviceJSON
		json.Unmarshal(b, &doc)
		rec := doc.Advice.Options[doc.Advice.Recommended]
		code, out, stderr := runMain(t, "-json", "-no-report", "-sensitivity=false", "-advise=false", "-seed", "99",
			"-set", "limiter.algorithm="+rec.Algorithm, "-set", fmt.Sprintf("limiter.limit=%d", rec.Limit),
			"-set", "limiter.error_policy="+rec.ErrorPolicy, "-set", "store.kind="+rec.Store, file)
		var s measure.Summary
		if code != ExitOK || json.Unmarshal([]byte(out), &s) != nil {
			t.Fatalf("re-simulating the recommendation: exit %d: %s", code, stderr)
		}
		c, _ := measure.ParseCondition("allowed.max<=7")
		if v := measure.Check(&s, []measure.Condition{c}); !v[0].Pass {
			t.Errorf("the recommendation with seed 99: %s", v[0])
		}
	}
	// A budget no design meets exits 3, as a broken gate does.
	code, stdout, _ = runMain(t, "-advise", "-no-report", "-budget", "allowed.max<1", file)
	if code != ExitThreshold || !strings.Contains(stdout, "No design enforces a limit of 5 within the budget") {
		t.Errorf("unmeetable budget: exit %d:\n%s", code, stdout)
	}
	// -limit gives the product's limit; -search-limit asks for the largest
	// limit meeting the budget instead (7 on memory: exactly the limit).
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-limit", "7"}, "yes     7"},
		{[]string{"-limit", "8"}, "allowed.max 8 (bound <=7)"},
		{[]string{"-search-limit"}, "yes     7"},
	} {
		code, stdout, stderr := runMain(t, append(append([]string{"-advise", "-no-report"}, tc.args...), file)...)
		if code == ExitBadInput || !strings.Contains(stdout, tc.want) {
			t.Errorf("%v: exit %d, want %q in:\n%s%s", tc.args, code, tc.want, stdout, stderr)
		}
	}
	// A scenario with an advise budget runs the advice without -advise,
	// and takes -limit so.
	if code, stdout, stderr := runMain(t, "-no-report", "-limit", "7", file); code != ExitOK || !strings.Contains(stdout, "yes     7") {
		t.Errorf("-limit 7 without -advise: exit %d:\n%s%s", code, stdout, stderr)
	}
}

// TestAdviseSeed is the first test: the seed's 5 a day, budgeted at
// ratio.p99<=1.5, gets a design that enforces 5 (not a larger limit whose
// store errors deny first), and that design meets the budget again with
// another seed.
func TestAdviseSeed(t *testing.T) {
	t.Parallel() // the longest in the package: beside each other, on both cores
	// 5 trials a design rank them as advise's default 10 do (the same
	// recommendation, the same 18 designs meeting the budget, none that
	// never binds), in half the time.
	code, out, stderr := runMain(t, "-advise", "-json", "-no-report", "-trials", "5", "-budget", "ratio.p99<=1.5", "../../scenarios/default.yaml")
	var doc adviceJSON
	if code != ExitOK || json.Unmarshal([]byte(out), &doc) != nil || doc.Advice.Recommended < 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rec := doc.Advice.Options[doc.Advice.Recommended]
	if rec.Limit != 5 || !rec.Meets || rec.NeverBinds || rec.Store == "memory" {
		t.Fatalf("recommended %+v, want a Workers store enforcing 5", rec)
	}
	for _, o := range doc.Advice.Options {
		if o.NeverBinds && o.Meets {
			t.Errorf("%s on %s, %s meets the budget but its limit never binds", o.Algorithm, o.Store, o.ErrorPolicy)
		}
	}
	args := []string{"-json", "-no-report", "-sensitivity=false", "-seed", "99", "-trials", "10",
		"-set", "limiter.algorithm=" + rec.Algorithm, "-set", fmt.Sprintf("limiter.limit=%d", rec.Limit),
		"-set", "limiter.error_policy=" + rec.ErrorPolicy, "-set", "store.kind=" + rec.Store}
	if rec.CacheTTL != "" {
		args = append(args, "-set", "store.kv.cache_ttl="+rec.CacheTTL)
	}
	code, out, stderr = runMain(t, append(args, "../../scenarios/default.yaml")...)
	var s measure.Summary
	if code != ExitOK || json.Unmarshal([]byte(out), &s) != nil {
		t.Fatalf("re-simulating the recommendation: exit %d: %s", code, stderr)
	}
	c, _ := measure.ParseCondition("ratio.p99<=1.5")
	if v := measure.Check(&s, []measure.Condition{c}); !v[0].Pass || s.Totals.Denied == s.Totals.FailClosed {
		t.Errorf("the recommendation with seed 99: %s, denied %d, failed closed %d", v[0], s.Totals.Denied, s.Totals.FailClosed)
	}
}

func TestAdviseBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-budget", "allowed.max<1"}, "simulate run does not take -budget: it is a flag of simulate advise"},
		{[]string{"-limit", "5"}, "-limit and -search-limit go with -advise"},
		{[]string{"-search-limit", "-advise=false", "../../scenarios/launch-plan.yaml"}, "-limit and -search-limit go with -advise"},
		{[]string{"-advise", "-budget", "allowed.max<1", "-limit", "-3"}, "-limit -3 is out of range"},
		{[]string{"-advise", "-no-report"}, "-advise needs a budget"},
		{[]string{"-advise", "-budget", "allowed.p42<1"}, "unknown metric"},
		{[]string{"-advise", "-budget", "ratio.max<2", "../../scenarios/concurrency-sweep.yaml"}, "not a sweep"},
	} {
		code, _, stderr := runMain(t, tc.args...)
		if code != ExitBadInput || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestAdviseCapacityReview is the capacity review: one API key
// bursting from eight locations among 2,000 users' keys, 60 a minute per
// key. The advice is at the product's limit of 60 for every design, each
// design that misses says why, every design is priced, and the one
// recommended enforces the limit.
func TestAdviseCapacityReview(t *testing.T) {
	t.Parallel() // the longest in the package: beside each other, on both cores
	code, out, stderr := runMain(t, "-advise", "-json", "-no-report", "-trials", "2", "-set", "duration=90s", "../../scenarios/capacity-review.yaml")
	var doc adviceJSON
	if code == ExitBadInput || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Advice.Options) == 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, o := range doc.Advice.Options {
		name := o.Algorithm + " on " + o.Store + " " + o.CacheTTL + ", " + o.ErrorPolicy
		if o.Limit != 60 {
			t.Errorf("%s: limit %d, want the product's 60", name, o.Limit)
		}
		if !o.Meets && o.WhyNot == "" {
			t.Errorf("%s misses the budget and does not say why", name)
		}
		if _, ok := o.Metrics["cost.usd_per_million"]; !ok || o.Summary == nil || o.Summary.Cost.WorkersUSDPerMillionRequests <= 0 {
			t.Errorf("%s is not priced (or without the Workers request fee)", name)
		}
	}
	if i := doc.Advice.Recommended; i >= 0 && (doc.Advice.Options[i].NeverBinds || !doc.Advice.Options[i].Meets) {
		t.Errorf("recommended %+v", doc.Advice.Options[i])
	}
}
