package scenario

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"github.com/overshoot-dev/overshoot/internal/limiter"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/scenarios"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// minimal is the smallest valid scenario: every other field defaults.
const minimal = `
limiter:
  limit: 5
  window: 1d
traffic:
  - name: bot
    closed_loop: {concurrency: 1}
`

// TestGoldenErrors loads every bad file under testdata/errors and compares
// the error with its golden text; -update rewrites the golden files.
func TestGoldenErrors(t *testing.T) {
	files, err := filepath.Glob("testdata/errors/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no bad files: %v", err)
	}
	// The missing file has no YAML: its golden is named after it.
	files = append(files, "testdata/errors/missing-file.yaml.absent")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			_, err := Load(f)
			if err == nil {
				t.Fatalf("Load(%s) succeeded, want an error", f)
			}
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("error is %T, want *Error: %v", err, err)
			}
			got := err.Error() + "\n"
			golden := strings.TrimSuffix(strings.TrimSuffix(f, ".absent"), ".yaml") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("read golden (run go test -update): %v", err)
			}
			if got != string(want) {
				t.Errorf("error mismatch\n got: %s\nwant: %s", got, want)
			}
		})
	}
}

// TestErrorsNameFileLineAndPath checks the parts of the errors the golden
// files show, so that a bad -update cannot hide a regression.
func TestErrorsNameFileLineAndPath(t *testing.T) {
	tests := []struct {
		file       string
		line, col  int
		path, text string
	}{
		{"unknown-field.yaml", 7, 5, "store.kv", `unknown field "cache_tll" in store.kv; did you mean "cache_ttl"?`},
		{"unknown-top-field.yaml", 4, 1, "", `unknown field "trails" in the scenario; did you mean "trials"?`},
		{"bad-unit.yaml", 4, 11, "limiter.window", `has no unit`},
		{"negative-limit.yaml", 2, 10, "limiter.limit", `-5 is out of range`},
		{"negative-duration.yaml", 8, 14, "traffic.bot.closed_loop.think", `is negative`},
		{"zero-concurrency.yaml", 7, 20, "traffic.bot.closed_loop.concurrency", `0 is out of range`},
		{"unknown-sweep-path.yaml", 8, 11, "sweep.0.path", `did you mean "traffic.bot.closed_loop.concurrency"?`},
		{"unknown-latency-field.yaml", 9, 7, "store.kv.write", `did you mean "p99"?`},
		{"unknown-location.yaml", 9, 35, "traffic.bot.arrive.location", `location "lhr" is not in locations (ams, fra)`},
		{"malformed.yaml", 4, 2, "", "malformed YAML"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			_, err := Load("testdata/errors/" + tc.file)
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not an *Error", err)
			}
			if se.File != "testdata/errors/"+tc.file || se.Line != tc.line || se.Column != tc.col || se.Path != tc.path {
				t.Errorf("got %s:%d:%d path %q, want line %d:%d path %q", se.File, se.Line, se.Column, se.Path, tc.line, tc.col, tc.path)
			}
			if !strings.Contains(se.Msg, tc.text) {
				t.Errorf("message %q does not contain %q", se.Msg, tc.text)
			}
		})
	}
}

// TestLibrary loads every scenario file under scenarios/ and expands its
// sweep: each must decode, validate and open with its question.
func TestLibrary(t *testing.T) {
	files, err := filepath.Glob("../../scenarios/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario files: %v", err)
	}
	want := []string{"default", "concurrency-sweep", "botnet", "nat-office", "window-boundary",
		"rotating-cookie", "outage", "free-plan-quota", "store-comparison"}
	var names []string
	for _, f := range files {
		s, err := Load(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		names = append(names, s.Name)
		if !strings.HasSuffix(s.Question, "?") && !strings.Contains(s.Question, "? ") {
			t.Errorf("%s: the opening comment does not state a question: %q", f, s.Question)
		}
		data, _ := os.ReadFile(f)
		if !strings.HasPrefix(string(data), "# ") {
			t.Errorf("%s: does not open with a comment", f)
		}
		if !strings.Contains(string(data), "\nlive:") {
			t.Errorf("%s: has no live section", f)
		}
		if s.Live.Duration.D() > 30*time.Second {
			t.Errorf("%s: live.duration %v is long for a loopback attack", f, s.Live.Duration)
		}
		pts, err := s.Expand()
		if err != nil {
			t.Errorf("%s: Expand: %v", f, err)
		}
		if len(pts) == 0 {
			t.Errorf("%s: no points", f)
		}
	}
	for _, n := range want {
		if !slices.Contains(names, n) {
			t.Errorf("scenario %q is missing from scenarios/", n)
		}
	}
}

// TestDefaultScenario checks the seed's endpoint as default.yaml states it.
func TestDefaultScenario(t *testing.T) {
	s, err := Load("../../scenarios/default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Limiter.Limit != 5 || s.Limiter.Window.D() != 24*time.Hour || s.Limiter.Algorithm != "fixed-window" ||
		s.Limiter.ErrorPolicy != "fail-open" || s.Store.Kind != KindKV || s.Trials != 200 {
		t.Errorf("default.yaml is not the seed's endpoint: %+v", s.Limiter)
	}
	if len(s.Traffic) != 1 || s.Traffic[0].ClosedLoop == nil || s.Traffic[0].ClosedLoop.Concurrency != 1 ||
		s.Traffic[0].ClosedLoop.Think.MeanDuration() != 0 {
		t.Errorf("default.yaml's traffic is not one bot loop: %+v", s.Traffic)
	}
	// The trial must cross a window boundary.
	end := s.Start.Add(s.Duration.D())
	if s.Start.Truncate(24 * time.Hour).Equal(end.Truncate(24 * time.Hour)) {
		t.Errorf("trial %v + %v does not cross a daily boundary", s.Start, s.Duration)
	}
}

// TestEmbeddedDefault checks that Default is scenarios/default.yaml.
func TestEmbeddedDefault(t *testing.T) {
	a, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load("../../scenarios/default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if a.Hash() != b.Hash() || a.Source() != "scenarios/default.yaml" {
		t.Errorf("embedded default %s (%s) differs from the file %s", a.Hash(), a.Source(), b.Hash())
	}
	c, err := Default("trials=5")
	if err != nil || c.Trials != 5 {
		t.Errorf("Default(trials=5): %v %v", c, err)
	}
}

// TestStartUTC checks that a start with an offset is the same instant in UTC.
func TestStartUTC(t *testing.T) {
	s, err := Parse("x.yaml", []byte(minimal+"start: 2026-01-01T10:00:00+02:00\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 1, 1, 8, 0, 0, 0, time.UTC); !s.Start.Equal(want) || s.Start.Location() != time.UTC {
		t.Errorf("start %v, want %v", s.Start, want)
	}
}

// TestDefaults checks that a minimal file gets every sourced default.
func TestDefaults(t *testing.T) {
	s, err := Parse("min.yaml", []byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	kv := s.Store.KV
	checks := []struct {
		name      string
		got, want any
	}{
		{"name", s.Name, "min"},
		{"trials", s.Trials, 200},
		{"duration", s.Duration.D(), 48 * time.Hour},
		{"start", s.Start, DefaultStart},
		{"algorithm", s.Limiter.Algorithm, "fixed-window"},
		{"error_policy", s.Limiter.ErrorPolicy, "fail-open"},
		{"limiter.name", s.Limiter.Name, "roast"},
		{"token", s.Limiter.Token, Token{From: "header", Name: "X-Anon-Token"}},
		{"store.kind", s.Store.Kind, "kv"},
		{"cache_ttl", kv.CacheTTL.D(), 60 * time.Second},
		{"hot_read", kv.HotRead, DefaultHotRead()},
		{"write", kv.Write, DefaultWrite()},
		{"read_your_writes_failure", kv.ReadYourWritesP, 0.0},
		{"purge.enabled", kv.Purge.Enabled, true},
		{"purge.lag", kv.Purge.Lag, DefaultPurgeLag()},
		{"cache_domains", kv.CacheDomains, 1},
		{"write_limit", kv.WriteLimit, WriteLimit{PerSecond: 1, Scope: "location"}},
		{"daily_write_quota", kv.DailyWriteQuota, int64(0)},
		{"locations", s.Locations, []Location{{Name: "loc0", Weight: 1}}},
		{"identity", s.Traffic[0].Identity, Identity{Token: "per-client", IP: "per-client"}},
		{"arrive", s.Traffic[0].Arrive, Arrive{Mode: "one", Location: "loc0"}},
		{"think", s.Traffic[0].ClosedLoop.Think, Constant(0)},
		{"clients", s.Traffic[0].Clients, 1},
		{"durable_object.location", s.Store.DurableObject.Location, "first-request"},
		{"rate_limit.sync", s.Store.RateLimit.Sync.D(), time.Second},
		{"durable_object.max_rps", s.Store.DurableObject.MaxRPS, 1000.0},
		{"live.duration", s.Live.Duration.D(), 10 * time.Second},
		{"live.time_scale", s.Live.TimeScale, 1.0},
	}
	for _, c := range checks {
		if !equalJSON(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if got := len(kv.ColdRead.Points); got != 5 || kv.ColdRead.Quantile(0.95) != 50*time.Millisecond || kv.ColdRead.Quantile(0.99) != 250*time.Millisecond {
		t.Errorf("cold_read %v does not go through the published p95 50ms and p99 250ms", kv.ColdRead)
	}
	// SetDefaults is idempotent.
	before := string(s.Canonical())
	s.SetDefaults()
	if after := string(s.Canonical()); after != before {
		t.Errorf("SetDefaults changed a defaulted scenario:\n%s\n%s", before, after)
	}
}

// TestExplicitOffKept checks that an explicit off (purge disabled, no write
// limit) is not replaced by the default.
func TestExplicitOffKept(t *testing.T) {
	s, err := Parse("x.yaml", []byte(minimal+"store:\n  kv:\n    purge: {enabled: false}\n    write_limit: {per_second: 0}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Store.KV.Purge.Enabled || s.Store.KV.WriteLimit.PerSecond != 0 {
		t.Errorf("explicit off was overridden: purge %+v write_limit %+v", s.Store.KV.Purge, s.Store.KV.WriteLimit)
	}
}

// TestOverrides applies -set overrides: typed and validated as in the file.
func TestOverrides(t *testing.T) {
	base := []byte(minimal)
	tests := []struct {
		sets    []string
		check   func(*Scenario) bool
		wantErr string
	}{
		{[]string{"limiter.limit=10"}, func(s *Scenario) bool { return s.Limiter.Limit == 10 }, ""},
		{[]string{"store.kind=memory"}, func(s *Scenario) bool { return s.Store.Kind == KindMemory }, ""},
		{[]string{"store.kv.cache_ttl=30s"}, func(s *Scenario) bool { return s.Store.KV.CacheTTL.D() == 30*time.Second }, ""},
		{[]string{"traffic.bot.closed_loop.concurrency=8"}, func(s *Scenario) bool { return s.Traffic[0].ClosedLoop.Concurrency == 8 }, ""},
		{[]string{"traffic.0.closed_loop.concurrency=4"}, func(s *Scenario) bool { return s.Traffic[0].ClosedLoop.Concurrency == 4 }, ""},
		{[]string{"traffic.bot.closed_loop.think={dist: uniform, min: 1ms, max: 3ms}"}, func(s *Scenario) bool {
			return s.Traffic[0].ClosedLoop.Think.MeanDuration() == 2*time.Millisecond
		}, ""},
		{[]string{"store.kv.hot_read=5ms"}, func(s *Scenario) bool { return reflect.DeepEqual(s.Store.KV.HotRead, Constant(5*time.Millisecond)) }, ""},
		{[]string{"limiter.limit=1", "limiter.limit=2"}, func(s *Scenario) bool { return s.Limiter.Limit == 2 }, ""},
		{[]string{"store.kv.cache_ttl=10s"}, nil, `x.yaml: -set #1 store.kv.cache_ttl=10s: store.kv.cache_ttl: 10s is below`},
		{[]string{"store.kv.cache_tll=30s"}, nil, `unknown path "store.kv.cache_tll": no field "cache_tll" in store.kv; did you mean "store.kv.cache_ttl"?`},
		{[]string{"traffic.bto.clients=2"}, nil, `did you mean "traffic.bot.clients"?`},
		{[]string{"traffic.7.clients=2"}, nil, `traffic has no element "7"`},
		{[]string{"limiter.window=60"}, nil, `has no unit`},
		{[]string{"limiter.limit"}, nil, `an override is path=value`},
		{[]string{"limiter.limit.x=1"}, nil, `limiter.limit is a single value`},
		{[]string{"limiter.limit=[1"}, nil, `is not valid YAML`},
		{[]string{"traffic.0.open_loop.rate=5/s"}, nil, `x.yaml: -set #1 traffic.0.open_loop.rate=5/s: traffic.bot: gives 2 of closed_loop`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.sets, " "), func(t *testing.T) {
			s, err := ParseWithOverrides("x.yaml", base, tc.sets)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(s) {
				t.Errorf("override not applied: %s", s.Canonical())
			}
		})
	}
	// With applies on top of earlier overrides and leaves the receiver alone.
	s, err := ParseWithOverrides("x.yaml", base, []string{"limiter.limit=7"})
	if err != nil {
		t.Fatal(err)
	}
	s2, err := s.With("trials=3")
	if err != nil {
		t.Fatal(err)
	}
	if s2.Limiter.Limit != 7 || s2.Trials != 3 || s.Trials != 200 {
		t.Errorf("With: got limit %d trials %d (receiver trials %d)", s2.Limiter.Limit, s2.Trials, s.Trials)
	}
	if got := s2.Overrides(); !slices.Equal(got, []string{"limiter.limit=7", "trials=3"}) {
		t.Errorf("Overrides() = %v", got)
	}
}

// TestOverrideCreatesSections sets a field whose sections the file lacks.
func TestOverrideCreatesSections(t *testing.T) {
	s, err := ParseWithOverrides("x.yaml", []byte(minimal), []string{
		"store.kv.error_rate.write=0.25",
		"store.kv.outages=[{start: 1m, duration: 30s, ops: write}]",
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.Store.KV.ErrorRate.Write != 0.25 || len(s.Store.KV.Outages) != 1 || s.Store.KV.Outages[0].Ops != "write" {
		t.Errorf("got %+v", s.Store.KV)
	}
	_, err = ParseWithOverrides("x.yaml", []byte(minimal), []string{"store.kv.error_rate.write=2"})
	var se *Error
	if !errors.As(err, &se) || se.Line != 0 || se.Origin != "-set store.kv.error_rate.write=2" || se.Path != "store.kv.error_rate.write" {
		t.Errorf("error %#v: want no line, the override as origin and the path", err)
	}
}

// TestExpand checks the grid: cartesian, in order, each point decoded.
func TestExpand(t *testing.T) {
	src := minimal + `
sweep:
  - path: store.kind
    values: [kv, memory]
  - path: traffic.bot.closed_loop.concurrency
    values: [1, 4, 16]
`
	s, err := Parse("grid.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	pts, err := s.Expand()
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	hashes := map[string]bool{}
	for i, p := range pts {
		labels = append(labels, p.Label())
		if p.Index != i || p.Scenario.Sweep != nil {
			t.Errorf("point %d: index %d sweep %v", i, p.Index, p.Scenario.Sweep)
		}
		if p.Scenario.Store.Kind != p.Params[0].Value {
			t.Errorf("point %s: store.kind %s", p.Label(), p.Scenario.Store.Kind)
		}
		if got := p.Scenario.Traffic[0].ClosedLoop.Concurrency; p.Params[1].Value != itoa(got) {
			t.Errorf("point %s: concurrency %d", p.Label(), got)
		}
		hashes[p.Scenario.Hash()] = true
	}
	want := []string{
		"store.kind=kv,traffic.bot.closed_loop.concurrency=1",
		"store.kind=kv,traffic.bot.closed_loop.concurrency=4",
		"store.kind=kv,traffic.bot.closed_loop.concurrency=16",
		"store.kind=memory,traffic.bot.closed_loop.concurrency=1",
		"store.kind=memory,traffic.bot.closed_loop.concurrency=4",
		"store.kind=memory,traffic.bot.closed_loop.concurrency=16",
	}
	if !slices.Equal(labels, want) {
		t.Errorf("labels\n got %v\nwant %v", labels, want)
	}
	if len(hashes) != len(pts) {
		t.Errorf("%d distinct hashes for %d points", len(hashes), len(pts))
	}
	// No sweep: one point, the scenario itself.
	one, err := Parse("x.yaml", []byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	pts, err = one.Expand()
	if err != nil || len(pts) != 1 || pts[0].Scenario != one || pts[0].Label() != "base" {
		t.Errorf("Expand without sweep: %v %v", pts, err)
	}
	// A bad value names its point.
	_, err = Parse("x.yaml", []byte(minimal+"sweep:\n  - path: limiter.limit\n    values: [5, 0]\n"))
	if err == nil || !strings.Contains(err.Error(), "sweep point limiter.limit=0: limiter.limit: 0 is out of range") {
		t.Errorf("bad sweep value: %v", err)
	}
}

// TestExpandGoBuilt expands a Scenario built in Go (no source YAML).
func TestExpandGoBuilt(t *testing.T) {
	s := &Scenario{
		Name:    "go-built",
		Limiter: Limiter{Limit: 5, Window: Duration(time.Minute)},
		Traffic: []Population{{Name: "bot", ClosedLoop: &ClosedLoop{Concurrency: 1}}},
		Sweep:   []Sweep{{Path: "limiter.limit", Values: []string{"3", "9"}}},
	}
	s.SetDefaults()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	pts, err := s.Expand()
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 2 || pts[0].Scenario.Limiter.Limit != 3 || pts[1].Scenario.Limiter.Limit != 9 {
		t.Fatalf("points %+v", pts)
	}
	// The marshalled form keeps every value: a point equals s but for the
	// swept field and the sweep itself.
	base := *s
	base.Sweep = nil
	base.Limiter.Limit = 3
	if got, want := string(pts[0].Scenario.Canonical()), string(base.Canonical()); got != want {
		t.Errorf("round trip through YAML changed the scenario:\n got %s\nwant %s", got, want)
	}
}

// TestExpandAfterChange checks that a scenario changed in Go after Load
// expands with the change (as cmd/simulate sets -trials on it).
func TestExpandAfterChange(t *testing.T) {
	s, err := Parse("x.yaml", []byte(minimal+"sweep:\n  - path: limiter.limit\n    values: [3, 4]\n"))
	if err != nil {
		t.Fatal(err)
	}
	s.Trials = 7
	pts, err := s.Expand()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pts {
		if p.Scenario.Trials != 7 {
			t.Errorf("point %s lost the change: trials %d", p.Label(), p.Scenario.Trials)
		}
	}
	w, err := s.With("limiter.window=1h")
	if err != nil || w.Trials != 7 || w.Limiter.Window.D() != time.Hour || w.Source() != "x.yaml" {
		t.Errorf("With after a change: %v %v", w, err)
	}
}

// TestHash checks that the hash ignores layout and comments but not values.
func TestHash(t *testing.T) {
	a, err := Parse("a.yaml", []byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse("a.yaml", []byte("limiter: {limit: 5, window: 24h, algorithm: fixed-window}\ntraffic: [{name: bot, closed_loop: {concurrency: 1, think: 0s}}] # a comment\n"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Hash() != b.Hash() {
		t.Errorf("same scenario, different hashes: %s %s\n%s\n%s", a.Hash(), b.Hash(), a.Canonical(), b.Canonical())
	}
	c, err := a.With("limiter.limit=6")
	if err != nil {
		t.Fatal(err)
	}
	if c.Hash() == a.Hash() || len(a.Hash()) != 12 {
		t.Errorf("hash %q vs %q", a.Hash(), c.Hash())
	}
}

// TestBaseHash checks that the base hash is the hash of the text as
// written: the same under -set (however applied) and for every sweep point,
// another for another text even where -set makes the scenarios equal.
func TestBaseHash(t *testing.T) {
	a, err := Parse("a.yaml", []byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	if a.BaseHash() != a.Hash() {
		t.Errorf("no overrides: base hash %s, hash %s", a.BaseHash(), a.Hash())
	}
	set, err := ParseWithOverrides("a.yaml", []byte(minimal), []string{"limiter.limit=6"})
	if err != nil {
		t.Fatal(err)
	}
	with, err := a.With("limiter.limit=6")
	if err != nil {
		t.Fatal(err)
	}
	with2, err := with.With("traffic.bot.closed_loop.concurrency=3")
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*Scenario{"-set": set, "With": with, "With twice": with2} {
		if s.BaseHash() != a.Hash() || s.Hash() == a.Hash() {
			t.Errorf("%s: base hash %s, hash %s; want base %s and another hash", name, s.BaseHash(), s.Hash(), a.Hash())
		}
	}
	// Another file that -set makes equal to a: the same hash, another base.
	six := strings.Replace(minimal, "limit: 5", "limit: 6", 1)
	b, err := ParseWithOverrides("a.yaml", []byte(six), []string{"limiter.limit=5"})
	if err != nil {
		t.Fatal(err)
	}
	if b.Hash() != a.Hash() || b.BaseHash() == a.BaseHash() {
		t.Errorf("limit 6 set to 5: hash %s base %s; want hash %s and another base", b.Hash(), b.BaseHash(), a.Hash())
	}
	// Every sweep point has the base hash of the scenario as written.
	sw, err := Parse("grid.yaml", []byte(minimal+"sweep:\n  - path: limiter.limit\n    values: [3, 4]\n"))
	if err != nil {
		t.Fatal(err)
	}
	pts, err := sw.Expand()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pts {
		if p.Scenario.BaseHash() != sw.Hash() || p.Scenario.Hash() == sw.Hash() {
			t.Errorf("point %s: base hash %s, hash %s; want base %s", p.Label(), p.Scenario.BaseHash(), p.Scenario.Hash(), sw.Hash())
		}
	}
	// A text that is no scenario without its overrides: the hash of the text.
	zero := strings.Replace(minimal, "limit: 5", "limit: 0", 1)
	z, err := ParseWithOverrides("z.yaml", []byte(zero), []string{"limiter.limit=5"})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(zero))
	if want := hex.EncodeToString(sum[:])[:12]; z.BaseHash() != want {
		t.Errorf("invalid base: base hash %s, want the text's %s", z.BaseHash(), want)
	}
}

// TestParseShapes covers documents that are not a scenario mapping.
func TestParseShapes(t *testing.T) {
	tests := []struct{ data, want string }{
		{"", "x.yaml: the file is empty"},
		{"---\n", "x.yaml: the file is empty"},
		{"limiter: {limit: 5, window: 1d}\n", "traffic: is empty"},
		{"traffic: [{name: a, closed_loop: {}}]\n", "x.yaml: limiter.limit: is missing: give the number of requests"},
		{"limiter: {limit: 5}\ntraffic: [{name: a, closed_loop: {}}]\n", "x.yaml:1:10: limiter.window: is missing: give the limiter's window"},
		{"limiter: {limit: 0, window: 1d}\ntraffic: [{name: a, closed_loop: {}}]\n", "limiter.limit: 0 is out of range"},
		{"- a\n- b\n", "a scenario is a mapping of fields"},
		{"just text\n", "a scenario is a mapping of fields"},
		{minimal + "---\n" + minimal, "one YAML document"},
		{"limiter: {limit: 5, window: 1d}\nlimiter: {limit: 6}\n", "x.yaml:2:1"},
		{"limiter: {limit: 5, window: 1d}\ntraffic: [{name: a, clients: 2}]\n", "gives 0 of closed_loop"},
		{"limiter: {limit: 5, window: 1d}\ntraffic: [{name: a, closed_loop: {}, start: 3d}]\n", "traffic.a.start: 3d is not before the end of the trial"},
		{"limiter: {limit: 5, window: 1d}\ntraffic: [{name: a, closed_loop: {}, identity: {token: rotating}}]\n", "rotate_every: 0 is out of range"},
		{"limiter: {limit: 5, window: 1d}\ntraffic: [{name: a, closed_loop: {}, identity: {ip: nat}}]\n", "nat_pool: 0 is out of range"},
		{"limiter: {limit: 5, window: 1d}\ntraffic: [{name: a, open_loop: {rate: 0/s}}]\n", "open_loop.rate: must be above 0"},
		{"limiter: {limit: 5, window: 1d}\ntraffic: [{name: a, closed_loop: {}, identity: {token: pool}}]\n", "token_pool: 0 is out of range"},
		{"limiter: {limit: 5, window: 1d}\ntraffic: [{name: a, closed_loop: {}, identity: {ip: pool}}]\n", "ip_pool: 0 is out of range"},
		{"limiter: {limit: 5, window: 1d}\ntraffic: [{name: a, closed_loop: {}, identity: {ip_pool: 3}}]\n", `identity.ip_pool: is set but identity.ip is "per-client": use ip: pool`},
		{"limiter: {limit: 5, window: 1d}\ntraffic: [{name: a, closed_loop: {}, identity: {token: shared, token_pool: 3}}]\n", `identity.token_pool: is set but identity.token is "shared": use token: pool`},
		{"limiter: {limit: 5, window: 1d}\ntraffic: [{name: a, closed_loop: {}, identity: {token: none, ip: shared}}]\n", ""},
		{"limiter: {limit: 5, window: 1d, key: ip}\ntraffic: [{name: a, closed_loop: {}, identity: {token: pool, token_pool: 50, ip: pool, ip_pool: 20}}]\n", ""},
		{"limiter: {limit: 5, window: 1d, key: cookie}\ntraffic: [{name: a, closed_loop: {}}]\n", `limiter.key: "cookie" is unknown: use one of token-ip, ip, token`},
		{"limiter: {limit: 5, window: 1d}\ntraffic: [{name: a, closed_loop: {}, arrive: {mode: one, per: client}}]\n", "arrive.per: is set but arrive.mode is one"},
		{"limiter: {limit: 5, window: 1d}\ntraffic: [{name: a, closed_loop: {}, arrive: {mode: spread, per: minute}}]\n", `arrive.per: "minute" is unknown`},
		{"limiter: {limit: 5, window: 1d}\ntraffic: [{name: a, closed_loop: {}, arrive: {mode: spread, per: request}}]\n", ""},
		{"limiter: {limit: 5, window: 1d}\ntraffic: [{name: a, open_loop: {rate: 1/10s}}]\n", ""},
		{"limiter: {limit: 5, window: 1d}\ntraffic: [{name: a, arrive: {mode: weighted, weights: [{location: x, weight: 1}]}, closed_loop: {}}]\n", `location "x" is not in locations`},
		{"limiter: {limit: 5, window: 1d}\nstore: {kind: dynamodb}\ntraffic: [{name: a, closed_loop: {}}]\n", `store.kind: "dynamodb" is unknown`},
		{"limiter: {limit: 5, window: 1d}\ntrials: 100001\ntraffic: [{name: a, closed_loop: {}}]\n", "trials: 100001 is out of range"},
		{"limiter: {limit: 5, window: 1d}\nlocations: [{name: a}, {name: a}]\ntraffic: [{name: a, closed_loop: {}}]\n", `"a" is used twice`},
		{"limiter: {limit: 5, window: 1d}\nsweep: [{path: limiter.limit, values: [1]}, {path: limiter.limit, values: [2]}]\ntraffic: [{name: a, closed_loop: {}}]\n", "swept twice"},
		{"limiter: " + strings.Repeat("[", 100) + strings.Repeat("]", 100), "x.yaml:1:74: malformed YAML: brackets nested deeper than 64"},
		{strings.Repeat("- ", 100) + "1", "x.yaml:1:1: malformed YAML: sequences nested deeper than 64"},
		{"question: '[[[[ it''s # not [ nesting'\n" + minimal, ""},
		{"limiter: {limit: 5.5, window: 1d}\ntraffic: [{name: a, closed_loop: {}}]\n", "x.yaml:1:18: limiter.limit: 5.5 is not a whole number"},
		{"limiter: {limit: 5, window: 1d}\nseed: -1\ntraffic: [{name: a, closed_loop: {}}]\n", "x.yaml:2:7: seed: -1 is negative"},
		{"limiter: {limit: 5, window: 1d}\nstart: yesterday\ntraffic: [{name: a, closed_loop: {}}]\n", `x.yaml:2:8: start: "yesterday" is not a time`},
		{"limiter: {limit: 5, window: 1d}\nlocations: {a: 1}\ntraffic: [{name: a, closed_loop: {}}]\n", "locations: mapping was used where sequence is expected"},
		{"limiter: {limit: 5, window: 1d}\nsweep: [{path: limiter.limit, value: [1]}]\ntraffic: [{name: a, closed_loop: {}}]\n", `unknown field "value" in sweep.0; did you mean "values"?`},
	}
	for _, tc := range tests {
		_, err := Parse("x.yaml", []byte(tc.data))
		if tc.want == "" {
			if err != nil {
				t.Errorf("Parse(%q): %v", tc.data, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", tc.data, err, tc.want)
		}
	}
}

// TestExpandSweepless holds the points Expand decodes from the file with
// its sweep entry blanked (sweepless) to those it would decode from the
// whole file: the same scenario and question at every point, and a bad
// value's error at the same line and column.
func TestExpandSweepless(t *testing.T) {
	src := `# Does the grid decode the same without its sweep?
limiter:
  limit: 5
  window: 1d
sweep:   # in the middle, with comments
  - path: traffic.bot.closed_loop.concurrency
    values: [1, 4]
  # between entries
  - path: limiter.limit
    values: [5, 7]
traffic:
  - name: bot
    closed_loop: {concurrency: 1}
`
	s, err := ParseWithOverrides("grid.yaml", []byte(src), []string{"limiter.window=1h"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := sweepless(s.src); !ok {
		t.Fatal("sweepless refused a block-style sweep")
	}
	pts, err := s.Expand()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pts {
		whole, _, err := decode(s.src.file, s.src.data, p.Scenario.src.sets)
		if err != nil {
			t.Fatal(err)
		}
		whole.Sweep = nil
		if got, want := string(p.Scenario.Canonical()), string(whole.Canonical()); got != want {
			t.Errorf("point %s:\n got %s\nwant %s", p.Label(), got, want)
		}
		if p.Scenario.Question != whole.Question || p.Scenario.Question == "" {
			t.Errorf("point %s: question %q, want %q", p.Label(), p.Scenario.Question, whole.Question)
		}
		// A point lets go of its syntax tree and parses it again when
		// asked what was given: the answers are the whole decode's.
		if p.Scenario.src.body != nil {
			t.Errorf("point %s keeps its syntax tree", p.Label())
		}
		for _, path := range []string{"limiter.limit", "limiter.window", "traffic.0.closed_loop.concurrency", "traffic.0.clients", "traffic.0.name", "limiter", "store.kv.cache_ttl"} {
			if got, want := p.Scenario.given(path), whole.given(path); got != want {
				t.Errorf("point %s: given(%s) %v, want %v", p.Label(), path, got, want)
			}
		}
	}
	// A bad value: the error is at the value, line 10 column 17.
	_, err = Parse("grid.yaml", []byte(strings.Replace(src, "[5, 7]", "[5, 0]", 1)))
	var e *Error
	if !errors.As(err, &e) || e.Line != 10 || e.Column != 17 {
		t.Errorf("bad value: %v (%+v), want line 10 column 17", err, e)
	}
	// A sweep given with -set is decoded the slow way.
	s, err = ParseWithOverrides("grid.yaml", []byte(minimal), []string{"sweep=[{path: limiter.limit, values: [1, 2]}]"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := sweepless(s.src); ok {
		t.Error("sweepless accepted a sweep given with -set")
	}
	if pts, err := s.Expand(); err != nil || len(pts) != 2 {
		t.Errorf("Expand of a -set sweep: %d points, %v", len(pts), err)
	}
}

// TestExpandMemory holds what a sweep point keeps once expanded: its
// scenario and overrides, not the syntax tree it was decoded from (about
// 35 KB for the commented default.yaml, 8 KB for a bare file), so that a
// sweep of 10,000 points stays within a few tens of MB before it runs.
func TestExpandMemory(t *testing.T) {
	data, err := scenarios.FS.ReadFile(scenarios.DefaultFile)
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]string, 1000)
	for i := range vals {
		vals[i] = fmt.Sprintf("%dus", i)
	}
	src := string(data) + "\nsweep:\n  - path: traffic.bot.closed_loop.think\n    values: [" + strings.Join(vals, ", ") + "]\n"
	s, err := Parse("default.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	pts, err := s.Expand()
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / int64(len(pts))
	if most := int64(6 << 10); per > most {
		t.Errorf("%d points hold %d bytes each, want at most %d: does a point keep its syntax tree?", len(pts), per, most)
	}
	runtime.KeepAlive(pts)
}

// TestAllErrorsAtOnce: a scenario with mistakes in several parts is
// refused with each of them, one a line, each at its line and column, so
// that a user fixes them in one go; errors.As still finds the first.
func TestAllErrorsAtOnce(t *testing.T) {
	data := `limiter: {limit: 0, window: 1d}
locations: [{name: a}, {name: b, weight: -1}]
traffic:
  - name: bots
    clients: 0
    closed_loop: {}
  - name: users
    arrive: {mode: one, location: c}
    open_loop: {rate: 1/s}
live: {duration: 10s, max_requests: -3}
`
	_, err := Parse("x.yaml", []byte(data))
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		"x.yaml:1:18: limiter.limit: 0 is out of range",
		"x.yaml:2:42: locations.b.weight: -1 is out of range",
		"x.yaml:5:14: traffic.bots.clients: 0 is out of range",
		`x.yaml:8:35: traffic.users.arrive.location: location "c" is not in locations`,
		"x.yaml:10:37: live.max_requests: -3 is negative",
	} {
		if !strings.Contains(err.Error(), want+"") {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if n := strings.Count(err.Error(), "\n") + 1; n != 5 {
		t.Errorf("%d problems reported, want 5:\n%v", n, err)
	}
	var first *Error
	if !errors.As(err, &first) || first.Path != "limiter.limit" {
		t.Errorf("errors.As found %+v, want the first problem, limiter.limit", first)
	}
}

// TestLimiterFaultsInTheLimitersWords: a limiter fault in a scenario is
// reported with the words limiter.New gives the same fault, at the
// field's path: one check, not two.
func TestLimiterFaultsInTheLimitersWords(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		cfg  limiter.Config
	}{
		{"{limit: 0, window: 1d}", limiter.Config{Name: DefaultLimiterName, Window: 24 * time.Hour}},
		{"{limit: 5, window: 1500us}", limiter.Config{Name: DefaultLimiterName, Limit: 5, Window: 1500 * time.Microsecond}},
		{"{limit: 5, window: 1d, algorithm: leaky}", limiter.Config{Name: DefaultLimiterName, Limit: 5, Window: 24 * time.Hour, Algorithm: "leaky"}},
		{"{limit: 5, window: 1d, error_policy: maybe}", limiter.Config{Name: DefaultLimiterName, Limit: 5, Window: 24 * time.Hour, Policy: "maybe"}},
	} {
		_, err := Parse("x.yaml", []byte("limiter: "+tc.yaml+"\ntraffic: [{name: a, closed_loop: {}}]\n"))
		_, lerr := limiter.New(tc.cfg)
		var ce *limiter.ConfigError
		if err == nil || !errors.As(lerr, &ce) {
			t.Fatalf("%s: scenario %v, limiter %v: want both to refuse", tc.yaml, err, lerr)
		}
		if want := "limiter." + ce.Field + ": " + ce.Msg; !strings.Contains(err.Error(), want) {
			t.Errorf("%s: scenario says %q, want the limiter's %q", tc.yaml, err, want)
		}
	}
}
