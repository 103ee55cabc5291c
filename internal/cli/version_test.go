package cli

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionOf: the version line names the command, the module version
// and the VCS revision, and says what is unknown.
func TestVersionOf(t *testing.T) {
	tests := []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "attack (unknown), revision unknown"},
		{"go run, no VCS", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "attack (devel), revision unknown"},
		{"built from a clean checkout", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "c9fdaba0"}, {Key: "vcs.time", Value: "2026-11-30T18:54:50Z"}, {Key: "vcs.modified", Value: "false"}}},
			"attack v1.2.3, revision c9fdaba0 (2026-11-30T18:54:50Z)"},
		{"built with local changes", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "c9fdaba0"}, {Key: "vcs.modified", Value: "true"}}},
			"attack (devel), revision c9fdaba0, modified"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := versionOf("attack", tc.info); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestParse: -version prints the version on stdout and stops like -h
// (flag.ErrHelp); other arguments parse as fs.Parse would.
func TestParse(t *testing.T) {
	tests := []struct {
		args    []string
		wantOut string
		wantErr error
	}{
		{[]string{"-version"}, "kvemu ", ErrVersionShown},
		{[]string{"-h"}, "", flag.ErrHelp},
		{[]string{"-n", "3", "file"}, "", nil},
	}
	for _, tc := range tests {
		fs := flag.NewFlagSet("kvemu", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		n := fs.Int("n", 0, "a number")
		var out bytes.Buffer
		err := Parse(fs, tc.args, &out)
		if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
			t.Errorf("%v: error %v, want %v", tc.args, err, tc.wantErr)
		}
		if tc.wantErr != nil && !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%v: error %v does not match flag.ErrHelp", tc.args, err)
		}
		if !strings.HasPrefix(out.String(), tc.wantOut) || (tc.wantOut == "") != (out.Len() == 0) {
			t.Errorf("%v: stdout %q, want it to start %q", tc.args, out.String(), tc.wantOut)
		}
		if tc.wantErr == nil && (*n != 3 || fs.Arg(0) != "file") {
			t.Errorf("%v: parsed n=%d args %v", tc.args, *n, fs.Args())
		}
	}
}
