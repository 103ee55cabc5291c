// Package plantest holds what the cross-driver test of the plan shares
// between packages: the scenarios whose requests both drivers must agree
// on, the transcript of those requests that internal/plan writes as a
// golden file, and the comparison each driver's test makes with it. It is
// imported by tests only.
//
// A transcript lists, for every point of a scenario (each sweep point), for
// every population, the first Requests requests of its first Clients
// clients, one a line:
//
//	<population> <client> <n> <caller> <ip> <location>
//
// client is the run-wide client number, n the request's number for its
// client (from 0), caller the limiter's caller identity (token:ip), ip the
// address sent ("-" for none) and location the index of the location it
// arrives at, or "*" followed by the locations it may arrive at when it is
// drawn at random (each driver draws its own way). An open loop's line
// "arrivals <population> <expected>" gives the requests it is expected to
// send over the run: clients x HitsBy of its time in the run.
package plantest

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

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
}

// Driver returns the requests of population pop of pl that a transcript
// lists (the first Requests of each of its first Clients clients, client
// by client), as one driver builds them.
type Driver func(pl *plan.Plan, pop int) ([]Request, error)

// FromPlan is the plan's own answer, from plan.Population: what the golden
// transcript holds. A location drawn at random is -1.
func FromPlan(pl *plan.Plan, pop int) ([]Request, error) {
	p := &pl.Populations[pop]
	var out []Request
	for k := range min(Clients, p.Clients) {
		for n := range int64(Requests) {
			r := Request{Client: p.First + k, N: n, Caller: plan.Caller(p.Token(k, n), p.IP(k)), IP: p.IP(k), Location: -1}
			if !p.DrawsLocation() {
				r.Location = p.Location(n, 0)
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
		pl := pt.Plan
		fmt.Fprintf(&b, "# point %s\n", pt.Label)
		for i := range pl.Populations {
			p := &pl.Populations[i]
			fmt.Fprintf(&b, "population %d %s clients %d first %d\n", i, p.Name, p.Clients, p.First)
			reqs, err := d(pl, i)
			if err != nil {
				return "", fmt.Errorf("%s %s population %s: %v", c.Name, pt.Label, p.Name, err)
			}
			for _, r := range reqs {
				ip, loc := r.IP, strconv.Itoa(r.Location)
				if ip == "" {
					ip = "-"
				}
				if r.Location < 0 {
					loc = "*" + join(arrivesAt(p))
				}
				fmt.Fprintf(&b, "%d %d %d %s %s %s\n", i, r.Client, r.N, r.Caller, ip, loc)
			}
			if e, ok := ExpectedArrivals(p); ok {
				fmt.Fprintf(&b, "arrivals %d %.6f\n", i, e)
			}
		}
	}
	return b.String(), nil
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

// arrivesAt returns the locations a population drawing its location can
// arrive at: those Location returns for some u on a grid of 4096 points
// (every location of weight 1/4096 of the total or more).
func arrivesAt(p *plan.Population) []int {
	var out []int
	for i := range 4096 {
		if l := p.Location(0, (float64(i)+0.5)/4096); !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out
}

func join(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// Compare compares a driver's transcript got with the golden want, line by
// line: equal, except that where want's location is "*<set>" got's must
// be one of the set (a driver's transcript is written with the same
// Transcript, so a drawn location appears there as a number). It returns
// a description of the first differences, or "" when they agree.
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
		if w == g || drawnMatch(w, g) {
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

// drawnMatch reports whether request line g matches golden line w whose
// location is drawn: the same fields before it and a location in w's set.
func drawnMatch(w, g string) bool {
	i, j := strings.LastIndexByte(w, ' '), strings.LastIndexByte(g, ' ')
	if i < 0 || j < 0 || w[:i] != g[:j] || !strings.HasPrefix(w[i+1:], "*") {
		return false
	}
	return slices.Contains(strings.Split(w[i+2:], ","), g[j+1:])
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
