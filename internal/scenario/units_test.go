package scenario

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"
)

func itoa(n int) string { return strconv.Itoa(n) }

// equalJSON compares two values by their JSON encodings.
func equalJSON(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		str  string
	}{
		{"0", 0, "0s"},
		{"250ms", 250 * time.Millisecond, "250ms"},
		{"60s", time.Minute, "60s"},
		{"90s", 90 * time.Second, "90s"},
		{"120s", 2 * time.Minute, "2m"},
		{"5m", 5 * time.Minute, "5m"},
		{"2h", 2 * time.Hour, "2h"},
		{"1d", 24 * time.Hour, "1d"},
		{"24h", 24 * time.Hour, "1d"},
		{"1d12h", 36 * time.Hour, "36h"},
		{"1h30m", 90 * time.Minute, "90m"},
		{"1m30s", 90 * time.Second, "90s"},
		{"1.5s", 1500 * time.Millisecond, "1500ms"},
		{"0.5d", 12 * time.Hour, "12h"},
		{"10us", 10 * time.Microsecond, "10us"},
		{"10µs", 10 * time.Microsecond, "10us"},
		{"7ns", 7, "7ns"},
		{"0s", 0, "0s"},
		{" 3s ", 3 * time.Second, "3s"},
		{"2d1ns", 2*24*time.Hour + 1, "172800000000001ns"},
	}
	for _, tc := range tests {
		got, err := ParseDuration(tc.in)
		if err != nil || got.D() != tc.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", tc.in, got.D(), err, tc.want)
			continue
		}
		if s := got.String(); s != tc.str {
			t.Errorf("String(%v) = %q, want %q", tc.want, s, tc.str)
		}
		back, err := ParseDuration(got.String())
		if err != nil || back != got {
			t.Errorf("round trip of %q: %v, %v", tc.in, back, err)
		}
	}
}

func TestParseDurationErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "is empty"},
		{"60", `duration "60" has no unit: write e.g. "60s"`},
		{"1.5", "has no unit"},
		{"-1s", "is negative"},
		{"-0", "is negative"},
		{"1w", `unknown unit "w"`},
		{"1d2", `"2" has no unit`},
		{"s", "expected a number"},
		{"1..2s", "is not a number"},
		{"ten seconds", "expected a number"},
		{"200000d", "too long"},
		{"9223372036854775807ns1ns", "too long"},
		{"1e3s", `unknown unit "e"`},
	}
	for _, tc := range tests {
		_, err := ParseDuration(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseDuration(%q) = %v, want an error containing %q", tc.in, err, tc.want)
		}
	}
}

func TestParseRate(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		str  string
	}{
		{"10/s", 10, "10/s"},
		{"600/m", 10, "10/s"},
		{"2/h", 2.0 / 3600, "2/h"},
		{"5/d", 5.0 / 86400, "5/d"},
		{"90/h", 90.0 / 3600, "90/h"},
		{"3", 3, "3/s"},
		{"0.25", 0.25, "15/m"},
		{"0", 0, "0/s"},
		{"1.5/s", 1.5, "90/m"},
		{" 4 / s ", 4, "4/s"},
		{"1/d", 1.0 / 86400, "1/d"},
		{"0.3/d", 0.3 / 86400, "3.472222222222222e-06/s"},
		{"1/10s", 0.1, "6/m"},
		{"30/5m", 0.1, "6/m"},
		{"0.5/s", 0.5, "30/m"},
		{"3/100ms", 30, "30/s"},
		{"1/1m30s", 1.0 / 90, "40/h"},
		{"2/ 1h ", 2.0 / 3600, "2/h"},
	}
	for _, tc := range tests {
		got, err := ParseRate(tc.in)
		if err != nil || math.Abs(got.PerSecond()-tc.want) > 1e-15 {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			continue
		}
		if s := got.String(); s != tc.str {
			t.Errorf("String(%q) = %q, want %q", tc.in, s, tc.str)
		}
		back, err := ParseRate(got.String())
		if err != nil || back != got {
			t.Errorf("round trip of %q: %v, %v", tc.in, back, err)
		}
	}
	if got := Rate(4).Interval(); got != 250*time.Millisecond {
		t.Errorf("Interval(4/s) = %v", got)
	}
}

func TestParseRateErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "is empty"},
		{"-1/s", "is negative"},
		{"10/w", `unknown unit "w"`},
		{"10/", `unknown unit ""`},
		{"ten/s", "is not a rate"},
		{"NaN", "is not a rate"},
		{"Inf/s", "is not a rate"},
		{"1/s/s", "unknown unit"},
		{"1/0s", `unknown unit "0s"`},
		{"1/10w", `unknown unit "10w"`},
		{"1/-5s", `unknown unit "-5s"`},
	}
	for _, tc := range tests {
		_, err := ParseRate(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseRate(%q) = %v, want an error containing %q", tc.in, err, tc.want)
		}
	}
}

// latencyHolder decodes a latency under a key, as in a scenario.
type latencyHolder struct {
	L Latency `yaml:"l"`
}

func TestLatencyYAML(t *testing.T) {
	ms := func(n int) Duration { return Duration(time.Duration(n) * time.Millisecond) }
	tests := []struct {
		in   string
		want Latency
	}{
		{"20ms", Latency{Dist: DistConstant, Value: ms(20)}},
		{"0", Latency{Dist: DistConstant}},
		{"{dist: constant, value: 5ms}", Latency{Dist: DistConstant, Value: ms(5)}},
		{"{dist: uniform, min: 1ms, max: 3ms}", Latency{Dist: DistUniform, Min: ms(1), Max: ms(3)}},
		{"{min: 1ms, max: 3ms}", Latency{Dist: DistUniform, Min: ms(1), Max: ms(3)}},
		{"{dist: exponential, mean: 10ms}", Latency{Dist: DistExponential, Mean: ms(10)}},
		{"{dist: lognormal, median: 2ms, p99: 12ms}", Lognormal(2*time.Millisecond, 12*time.Millisecond)},
		{"{median: 2ms, p99: 12ms}", Lognormal(2*time.Millisecond, 12*time.Millisecond)},
		{"{dist: empirical, quantiles: [{p: 0.5, value: 20ms}, {p: 1, value: 200ms}]}",
			Latency{Dist: DistEmpirical, Points: []Quantile{{0.5, ms(20)}, {1, ms(200)}}}},
	}
	for _, tc := range tests {
		var h latencyHolder
		if err := yaml.UnmarshalWithOptions([]byte("l: "+tc.in), &h, yaml.DisallowUnknownField()); err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(h.L, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.in, h.L, tc.want)
		}
		if err := h.L.Validate(); err != nil {
			t.Errorf("%s: Validate: %v", tc.in, err)
		}
		// YAML and JSON round trips.
		out, err := yaml.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		var back latencyHolder
		if err := yaml.UnmarshalWithOptions(out, &back, yaml.DisallowUnknownField()); err != nil || !reflect.DeepEqual(back, h) {
			t.Errorf("%s: YAML round trip %q gave %+v, %v", tc.in, out, back, err)
		}
		j, _ := json.Marshal(h.L)
		var jl Latency
		if err := json.Unmarshal(j, &jl); err != nil || !reflect.DeepEqual(jl, h.L) {
			t.Errorf("%s: JSON round trip %s gave %+v, %v", tc.in, j, jl, err)
		}
	}
}

func TestLatencyErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"60", "has no unit"},
		{"-5ms", "is negative"},
		{"[1ms]", "sequence was given where a duration"},
		{"{dist: gamma, mean: 1ms}", `dist "gamma" is unknown`},
		{"{dist: uniform, min: 3ms, max: 1ms}", "min 3ms is above max 1ms"},
		{"{dist: uniform, min: 1ms, max: 3ms, mean: 2ms}", "takes only min and max"},
		{"{dist: lognormal, median: 0s, p99: 1ms}", "median must be above 0"},
		{"{dist: lognormal, median: 5ms, p99: 1ms}", "p99 1ms is below median 5ms"},
		{"{dist: lognormal, median: 5ms}", "needs both median and p99"},
		{"{dist: empirical}", "needs quantiles"},
		{"{dist: empirical, quantiles: [{p: 0, value: 1ms}]}", "quantiles[0].p 0 is out of range"},
		{"{dist: empirical, quantiles: [{p: 1.5, value: 1ms}]}", "out of range"},
		{"{dist: empirical, quantiles: [{p: 0.5, value: 1ms}, {p: 0.4, value: 2ms}]}", "p must increase"},
		{"{dist: empirical, quantiles: [{p: 0.5, value: 3ms}, {p: 0.9, value: 2ms}]}", "values must not decrease"},
		{"{dist: constant, value: 1ms, p99: 2ms}", "takes only value"},
		{"{dist: exponential, mean: 1ms, median: 2ms}", "takes only mean"},
		{"{mean: 1ms, sd: 2ms}", `unknown field "sd"`},
		{"{}", "has no dist"},
	}
	for _, tc := range tests {
		var h latencyHolder
		err := yaml.UnmarshalWithOptions([]byte("l: "+tc.in), &h, yaml.DisallowUnknownField())
		if err == nil {
			err = h.L.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.in, err, tc.want)
		}
	}
}

func TestLatencyMeanAndQuantile(t *testing.T) {
	ms := time.Millisecond
	// Lognormal median 2 ms, p99 12 ms: sigma = ln 6 / z99.
	ln := Lognormal(2*ms, 12*ms)
	sigma := math.Log(6) / 2.3263478740408408
	tests := []struct {
		name      string
		l         Latency
		mean      time.Duration
		quantiles map[float64]time.Duration
	}{
		{"constant", Constant(5 * ms), 5 * ms, map[float64]time.Duration{0: 5 * ms, 0.5: 5 * ms, 1: 5 * ms}},
		{"uniform", Latency{Dist: DistUniform, Min: Duration(ms), Max: Duration(3 * ms)}, 2 * ms,
			map[float64]time.Duration{0: ms, 0.5: 2 * ms, 1: 3 * ms}},
		{"exponential", Latency{Dist: DistExponential, Mean: Duration(10 * ms)}, 10 * ms,
			map[float64]time.Duration{0: 0, 0.5: time.Duration(10 * float64(ms) * math.Ln2)}},
		{"lognormal", ln, time.Duration(2 * float64(ms) * math.Exp(sigma*sigma/2)),
			map[float64]time.Duration{0.5: 2 * ms, 0.99: 12 * ms}},
		// Flat 10 ms below p 0.5, linear to 30 ms at p 1: mean 0.5*10 + 0.5*20.
		{"empirical", Latency{Dist: DistEmpirical, Points: []Quantile{{0.5, Duration(10 * ms)}, {1, Duration(30 * ms)}}}, 15 * ms,
			map[float64]time.Duration{0.1: 10 * ms, 0.75: 20 * ms, 1: 30 * ms}},
		// The last point under 1: flat above it.
		{"empirical-top", Latency{Dist: DistEmpirical, Points: []Quantile{{0.5, Duration(10 * ms)}, {0.9, Duration(10 * ms)}}}, 10 * ms,
			map[float64]time.Duration{0.95: 10 * ms}},
	}
	near := func(a, b time.Duration) bool { return math.Abs(float64(a-b)) <= 1e-6*float64(max(a, b))+1 }
	for _, tc := range tests {
		if got := tc.l.MeanDuration(); !near(got, tc.mean) {
			t.Errorf("%s: mean %v, want %v", tc.name, got, tc.mean)
		}
		for p, want := range tc.quantiles {
			if got := tc.l.Quantile(p); !near(got, want) {
				t.Errorf("%s: quantile(%v) = %v, want %v", tc.name, p, got, want)
			}
		}
	}
	if mu, s := ln.LognormalParams(); !(math.Abs(mu-math.Log(0.002)) < 1e-12 && math.Abs(s-sigma) < 1e-12) {
		t.Errorf("LognormalParams = %v, %v", mu, s)
	}
}

func TestDurationJSON(t *testing.T) {
	b, err := json.Marshal(struct{ D Duration }{Duration(36 * time.Hour)})
	if err != nil || string(b) != `{"D":"36h"}` {
		t.Errorf("marshal: %s %v", b, err)
	}
	var v struct{ D Duration }
	if err := json.Unmarshal([]byte(`{"D":"1d12h"}`), &v); err != nil || v.D.D() != 36*time.Hour {
		t.Errorf("unmarshal: %v %v", v.D, err)
	}
	if err := json.Unmarshal([]byte(`{"D":60}`), &v); err == nil {
		t.Errorf("a bare JSON number was accepted")
	}
	var r struct{ R Rate }
	if err := json.Unmarshal([]byte(`{"R":"600/m"}`), &r); err != nil || r.R != 10 {
		t.Errorf("rate: %v %v", r.R, err)
	}
	if b, _ := json.Marshal(r); string(b) != `{"R":"10/s"}` {
		t.Errorf("rate marshal: %s", b)
	}
}
