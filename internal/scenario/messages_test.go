package scenario

import (
	"errors"
	"strings"
	"testing"
)

// TestSetValueErrorInSet: an error in a node a -set's value put in the
// tree is positioned in that -set, not at the value's own line and column
// taken as the file's (traffic.bot=null said x.yaml:1:1).
func TestSetValueErrorInSet(t *testing.T) {
	_, err := ParseWithOverrides("x.yaml", []byte(minimal), []string{"traffic.bot=null"})
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("got %v, want an *Error", err)
	}
	if se.Set != 1 || se.Line != 1 || se.Column != len("traffic.bot=")+1 || strings.HasPrefix(err.Error(), "x.yaml:1") {
		t.Errorf("%q: set %d at %d:%d, want -set #1 at column %d", err, se.Set, se.Line, se.Column, len("traffic.bot=")+1)
	}
}

// TestWindowWholeMilliseconds: a window the limiter cannot use (not whole
// milliseconds) is refused by the scenario, naming the file, line and
// field, rather than later by the limiter with neither.
func TestWindowWholeMilliseconds(t *testing.T) {
	for _, c := range []struct{ file, path string }{
		{"limiter: {limit: 5, window: 1ns}\ntraffic: [{name: bot, closed_loop: {}}]\n", "limiter.window"},
		{"limiter: {limit: 5, window: 1d}\nlive: {window: 1500us}\ntraffic: [{name: bot, closed_loop: {}}]\n", "live.window"},
	} {
		_, err := Parse("x.yaml", []byte(c.file))
		var se *Error
		if !errors.As(err, &se) || se.Path != c.path || se.Line == 0 || !strings.Contains(se.Msg, "whole number of milliseconds") {
			t.Errorf("%q: %v, want an error at %s with its line", c.file, err, c.path)
		}
	}
	if _, err := Parse("x.yaml", []byte("limiter: {limit: 5, window: 1500ms}\ntraffic: [{name: bot, closed_loop: {}}]\n")); err != nil {
		t.Errorf("1500ms: %v", err)
	}
}

// TestSetMadeFieldWrong: a -set under a field that makes it wrong (the
// file alone is valid) is the error's position; a field the file itself
// gets wrong keeps the file's line.
func TestSetMadeFieldWrong(t *testing.T) {
	_, err := ParseWithOverrides("x.yaml", []byte(minimal), []string{"traffic.bot.open_loop={rate: 1/s}"})
	var se *Error
	if !errors.As(err, &se) || se.Set != 1 || se.Line != 0 || se.Path != "traffic.bot" {
		t.Errorf("%v: want the error in -set #1 at traffic.bot, with no line of the file", err)
	}
	both := minimal + "    open_loop: {rate: 1/s}\n"
	_, err = ParseWithOverrides("x.yaml", []byte(both), []string{"traffic.bot.clients=3"})
	if !errors.As(err, &se) || se.Set != 0 || se.Line != 6 || !strings.Contains(err.Error(), "x.yaml:6:5:") {
		t.Errorf("%v: want the file's line 6 (the file is wrong whatever the -set)", err)
	}
}

// TestMisfitValidated: calibrated.misfit, which widens a calibrated band,
// is two numbers, the first in (0, 1] and the second at least 1; anything
// else is refused at its line, so that a hand-edited file cannot narrow a
// band or make it empty.
func TestMisfitValidated(t *testing.T) {
	const head = "limiter: {limit: 5, window: 1s}\ntraffic: [{name: bot, closed_loop: {}}]\ncalibrated: {runs: [a.json], fitted: [server], misfit: "
	for _, tc := range []struct {
		misfit string
		ok     bool
	}{
		{"[0.84, 1]", true},
		{"[1, 1.2]", true},
		{"[0.9, 1.1]", true},
		{"[1.2, 1]", false},
		{"[0.9, 0.95]", false},
		{"[0, 1]", false},
		{"[-1, 2]", false},
		{"[0.9]", false},
		{"[0.9, 1, 2]", false},
		{"[0.9, .inf]", false},
		{"[.nan, 1]", false},
	} {
		_, err := Parse("x.yaml", []byte(head+tc.misfit+"}\n"))
		if tc.ok && err != nil {
			t.Errorf("misfit %s: %v, want it accepted", tc.misfit, err)
		}
		var se *Error
		if !tc.ok && (!errors.As(err, &se) || se.Path != "calibrated.misfit" || se.Line == 0) {
			t.Errorf("misfit %s: %v, want an error at calibrated.misfit with its line", tc.misfit, err)
		}
	}
}
