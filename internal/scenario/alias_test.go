package scenario

import (
	"errors"
	"strings"
	"testing"
)

// TestAliasesRefused: a YAML alias is refused at its own position and
// field, so that no error blames the anchor's field (question), no
// self-referencing anchor reaches the unknown-field check, and no value
// skips the checks made before decoding (a seed of 1.5 through an alias
// became 1). An anchor that is not used is fine.
func TestAliasesRefused(t *testing.T) {
	const rest = "traffic: [{name: bot, closed_loop: {}}]\n"
	tests := []struct {
		name, file string
		set        string
		path       string
		line, col  int
	}{
		{"limit through a question's anchor", "name: x\nquestion: &q \"what?\"\nlimiter: {limit: *q, window: 10s}\n" + rest, "", "limiter.limit", 3, 18},
		{"store inside its own anchor", "name: x\nlimiter: {limit: 5, window: 10s}\nstore: &s {kv: *s}\n" + rest, "", "store.kv", 3, 16},
		{"seed 1.5 through an alias", "name: x\nquestion: &q 1.5\nseed: *q\nlimiter: {limit: 5, window: 10s}\n" + rest, "", "seed", 3, 7},
		{"trials through an alias", "name: x\nlimiter: {limit: &n 5, window: 10s}\ntrials: *n\n" + rest, "", "trials", 3, 9},
		{"a population through an alias", "name: x\nlimiter: {limit: 5, window: 10s}\ntraffic:\n  - &b {name: bot, closed_loop: {}}\n  - *b\n", "", "traffic.pop1", 5, 5},
		{"a merge key", "name: x\nlimiter: &l {limit: 5, window: 10s}\nstore: {<<: *l}\n" + rest, "", "store.<<", 3, 13},
		{"in a -set", "name: x\nquestion: &q what\nlimiter: {limit: 5, window: 10s}\n" + rest, "limiter.limit=*q", "limiter.limit", 1, 15},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sets []string
			if tt.set != "" {
				sets = []string{tt.set}
			}
			s, err := ParseWithOverrides("x.yaml", []byte(tt.file), sets)
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("got %v (seed %v), want an *Error", err, seedOf(s))
			}
			if !strings.Contains(err.Error(), "alias") || strings.Contains(err.Error(), "did you mean") {
				t.Errorf("%q: want the alias named as the problem", err)
			}
			if se.Line != tt.line || se.Column != tt.col || se.Path != tt.path || strings.HasPrefix(se.Msg, "question") {
				t.Errorf("%q at %d:%d path %q, want %d:%d path %q", err, se.Line, se.Column, se.Path, tt.line, tt.col, tt.path)
			}
			if (tt.set != "") != (se.Set == 1) {
				t.Errorf("%q: set %d", err, se.Set)
			}
		})
	}
	if _, err := Parse("x.yaml", []byte("name: x\nquestion: &q what\nlimiter: {limit: 5, window: 10s}\n"+rest)); err != nil {
		t.Errorf("an anchor that is not used: %v", err)
	}
}

func seedOf(s *Scenario) any {
	if s == nil {
		return nil
	}
	return s.Seed
}
