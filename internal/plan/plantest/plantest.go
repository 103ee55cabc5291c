// Package plantest holds what the cross-driver tests of the plan share
// between packages: the scenarios whose requests both drivers must agree
// on (the library's, this package's testdata, and generated ones), the
// transcript of those requests that internal/plan writes as a golden file,
// and the comparison each driver's test makes with it. It is imported by
// tests only.
//
// A transcript lists, for every point of a scenario (each sweep point), for
// every population, the first Requests requests of its first Clients
// clients, one a line:
//
//	<population> <client> <n> <caller> <ip> <location> <at> <think>
//
// client is the run-wide client number, n the request's number for its
// client (from 0), caller the limiter's caller identity as it keys, ip the
// address sent ("-" for none), location the index of the location it
// arrives at, at when an open loop's or a burst's request leaves (in
// nanoseconds from the run's start; "-" for a closed loop, whose times
// follow its responses) and think a closed-loop client's n-th think time
// in nanoseconds ("-" for none). Every value is exact: the traffic's
// randomness is the plan's counter-based draws, so both drivers must build
// these very requests. An open loop's line "arrivals <population>
// <expected>" gives the requests it is expected to send over the run:
// clients x HitsBy of its time in the run.
package plantest

import (
	"embed"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/overshoot-dev/overshoot/internal/plan"
	"github.com/overshoot-dev/overshoot/internal/scenario"
	"github.com/overshoot-dev/overshoot/scenarios"
)

// Clients and Requests bound a transcript: the first Clients clients of
// each population, Requests requests each (enough to see every library
// token rotate).
const (
	Clients  = 3
	Requests = 12
)

// extra holds scenarios for what the library does not exercise: constant
// and ramped open loops, weighted arrival, bursts, cookie tokens.
//
//go:embed testdata/*.yaml
var extra embed.FS

// Case is one scenario file: its name (the file's base name without
// .yaml) and the plan of each of its points, compiled for a live run as
// both the attack command and simulate -compare compile it.
type Case struct {
	Name   string
	Points []Point
}

// Point is one point of a scenario: its label ("base" without a sweep)
// and its plan.
type Point struct {
	Label string
	Plan  *plan.Plan
}

// Cases returns every scenario of the library (scenarios/*.yaml) and of
// this package's testdata, each sweep point compiled.
func Cases() ([]Case, error) {
	var out []Case
	for _, src := range []struct {
		fsys fs.FS
		dir  string
	}{{scenarios.FS, "."}, {extra, "testdata"}} {
		files, err := fs.Glob(src.fsys, path.Join(src.dir, "*.yaml"))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			data, err := fs.ReadFile(src.fsys, f)
			if err != nil {
				return nil, err
			}
			sc, err := scenario.Parse(f, data)
			if err != nil {
				return nil, err
			}
			points, err := sc.Expand()
			if err != nil {
				return nil, fmt.Errorf("%s: %v", f, err)
			}
			c := Case{Name: strings.TrimSuffix(path.Base(f), ".yaml")}
			for _, p := range points {
				pl, err := plan.CompileLive(p.Scenario)
				if err != nil {
					return nil, fmt.Errorf("%s %s: %v", f, p.Label(), err)
				}
				c.Points = append(c.Points, Point{Label: p.Label(), Plan: pl})
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// GoldenPath returns the golden transcript of case name:
// internal/plan/testdata/requests/<name>.txt.
func GoldenPath(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", "requests", name+".txt")
}

// Request is one request as a driver builds it.
type Request struct {
	// Client is the run-wide client number; N the request's number for its
	// client, from 0.
	Client int
	N      int64
	// Caller is the limiter's caller identity; IP the address sent, ""
	// for none.
	Caller, IP string
	// Location is the index of the location where it arrives.
	Location int
	// At is when an open loop's or a burst's request leaves, from the
	// run's start (math.MaxInt64: never); -1 for a closed loop, whose
	// times follow its responses.
	At time.Duration
	// Think is a closed-loop client's think N (its N-th pause between a
	// response and its next request); -1 when it does not think.
	Think time.Duration
}

// Driver returns the requests of population pop of pl that a transcript
// lists (the first Requests of each of its first Clients clients, client
// by client), as one driver builds them for trial 0 of the plan's seed.
type Driver func(pl *plan.Plan, pop int) ([]Request, error)

// FromPlan is the plan's own answer, from plan.Population, one client at
// a time: what the golden transcript holds. An open loop's or a burst's
// client's requests end with the last due before the population's end.
func FromPlan(pl *plan.Plan, pop int) ([]Request, error) {
	p := &pl.Populations[pop]
	s := plan.NewStream(pl.Seed, 0)
	var out []Request
	for k := range min(Clients, p.Clients) {
		d := s.Client(p, k)
		y := 0.0
		for n := range int64(Requests) {
			r := Request{Client: p.First + k, N: n, Caller: p.Caller(k, n), IP: p.IP(k, n), Location: p.Location(d, n), At: -1, Think: -1}
			switch p.Send {
			case plan.Open:
				y = p.Arrival(d, k, n, y)
				r.At = p.ArrivalAt(y)
			case plan.Burst:
				size, c := int64(p.BurstSize), int64(p.Clients)
				r.At = p.BurstTime(n/size*c*size + n%size*c + int64(k))
			}
			if r.At >= p.End {
				break // sent at the population's end or later: not sent
			}
			switch p.Send {
			case plan.Closed:
				if !p.Think.IsZero() {
					r.Think = p.ThinkTime(d, n)
				}
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// Transcript writes the transcript of case c with the requests d builds.
func Transcript(c Case, d Driver) (string, error) {
	var b strings.Builder
	for _, pt := range c.Points {
		if err := transcriptOf(&b, pt.Label, pt.Plan, d); err != nil {
			return "", fmt.Errorf("%s %s: %v", c.Name, pt.Label, err)
		}
	}
	return b.String(), nil
}

// transcriptOf writes the transcript of one point, labelled label.
func transcriptOf(b *strings.Builder, label string, pl *plan.Plan, d Driver) error {
	fmt.Fprintf(b, "# point %s\n", label)
	for i := range pl.Populations {
		p := &pl.Populations[i]
		fmt.Fprintf(b, "population %d %s clients %d first %d\n", i, p.Name, p.Clients, p.First)
		reqs, err := d(pl, i)
		if err != nil {
			return fmt.Errorf("population %s: %v", p.Name, err)
		}
		for _, r := range reqs {
			ip := r.IP
			if ip == "" {
				ip = "-"
			}
			fmt.Fprintf(b, "%d %d %d %s %s %d %s %s\n", i, r.Client, r.N, r.Caller, ip, r.Location, when(r.At), when(r.Think))
		}
		if e, ok := ExpectedArrivals(p); ok {
			fmt.Fprintf(b, "arrivals %d %.6f\n", i, e)
		}
	}
	return nil
}

// when prints a transcript's time: nanoseconds, "-" for none, "never".
func when(d time.Duration) string {
	switch {
	case d < 0:
		return "-"
	case d == math.MaxInt64:
		return "never"
	}
	return strconv.FormatInt(int64(d), 10)
}

// ExpectedArrivals returns the requests an open loop is expected to send
// over its time in the run: clients x HitsBy(end - start). ok is false for
// other ways of sending.
func ExpectedArrivals(p *plan.Population) (e float64, ok bool) {
	if p.Send != plan.Open {
		return 0, false
	}
	return float64(p.Clients) * p.HitsBy(p.End-p.Start), true
}

// Compare compares a driver's transcript got with the golden want, line by
// line. It returns a description of the first differences, or "" when
// they agree.
func Compare(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	var diffs []string
	for i := range max(len(wl), len(gl)) {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w == g {
			continue
		}
		diffs = append(diffs, fmt.Sprintf("line %d:\n\twant %q\n\tgot  %q", i+1, w, g))
		if len(diffs) == 5 {
			diffs = append(diffs, "...")
			break
		}
	}
	return strings.Join(diffs, "\n")
}

// CheckDriver checks that driver d, named who, sends the requests of every
// case's golden transcript, and calls each (when set) with every case for
// the driver's own checks.
func CheckDriver(t testing.TB, who string, d Driver, each func(c Case)) {
	t.Helper()
	cases, err := Cases()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		want, err := os.ReadFile(GoldenPath(c.Name))
		if err != nil {
			t.Fatalf("%v (go test ./internal/plan -run RequestsGolden -update writes it)", err)
		}
		got, err := Transcript(c, d)
		if err != nil {
			t.Fatal(err)
		}
		if diff := Compare(string(want), got); diff != "" {
			t.Errorf("%s: %s's requests are not the plan's:\n%s", c.Name, who, diff)
		}
		if each != nil {
			each(c)
		}
	}
}

// CheckGenerated checks that driver d, named who, builds the plan's own
// requests (FromPlan) for n generated scenarios (Generate(i), i < n),
// each as one point.
func CheckGenerated(t testing.TB, who string, d Driver, n int) {
	t.Helper()
	failed := 0
	for i := range n {
		sc := Generate(uint64(i))
		pl, err := plan.CompileLive(sc)
		if err != nil {
			t.Fatalf("generated scenario %d does not compile: %v\n%s", i, err, sc.Name)
		}
		var want, got strings.Builder
		if err := transcriptOf(&want, "generated", pl, FromPlan); err != nil {
			t.Fatal(err)
		}
		if err := transcriptOf(&got, "generated", pl, d); err != nil {
			t.Fatalf("generated scenario %d: %v", i, err)
		}
		if diff := Compare(want.String(), got.String()); diff != "" {
			t.Errorf("generated scenario %d (plantest.Generate(%d): %s): %s's requests are not the plan's:\n%s", i, i, Describe(sc), who, diff)
			if failed++; failed == 3 {
				t.Fatalf("stopping after %d scenarios", failed)
			}
		}
	}
}
