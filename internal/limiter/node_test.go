package limiter

import (
	"errors"
	"os"
	"os/exec"
	"testing"
)

// findNode says which node binary checks the JavaScript tables: the one
// OVERSHOOT_NODE names when it is set (.ci/run sets it to the node 22 that
// examples/worker/dev.sh installs), else node on the PATH. When there is none
// it says why, and required is true when OVERSHOOT_REQUIRE_NODE=1 (as in CI),
// where a missing node fails the test instead of skipping it.
func findNode(getenv func(string) string, lookPath func(string) (string, error)) (node, missing string, required bool) {
	required = getenv("OVERSHOOT_REQUIRE_NODE") == "1"
	if p := getenv("OVERSHOOT_NODE"); p != "" {
		if _, err := lookPath(p); err != nil {
			return "", "OVERSHOOT_NODE=" + p + " is not an executable (" + err.Error() + "): point it at a node binary", true
		}
		return p, "", required
	}
	if p, err := lookPath("node"); err == nil {
		return p, "", required
	}
	missing = "node is not on the PATH and OVERSHOOT_NODE is not set: " +
		"`examples/worker/dev.sh node-path` installs node 22 and prints the path to set OVERSHOOT_NODE to"
	if required {
		missing += " (OVERSHOOT_REQUIRE_NODE=1 requires node)"
	}
	return "", missing, required
}

// nodeBinary returns the node binary for a test, or skips the test when there
// is none and none is required (see findNode).
func nodeBinary(t *testing.T) string {
	t.Helper()
	node, missing, required := findNode(os.Getenv, exec.LookPath)
	switch {
	case node != "":
		return node
	case required:
		t.Fatal(missing)
	default:
		t.Skipf("%s; the tables are checked by hand instead", missing)
	}
	return ""
}

func TestFindNode(t *testing.T) {
	onPath := func(name string) (string, error) {
		if name == "node" || name == "/opt/node/bin/node" {
			return "/usr/bin/" + name, nil
		}
		return "", errors.New("not found")
	}
	nowhere := func(string) (string, error) { return "", errors.New("not found") }
	tests := []struct {
		name     string
		env      map[string]string
		look     func(string) (string, error)
		node     string
		required bool
	}{
		{"node on the PATH", nil, onPath, "/usr/bin/node", false},
		{"OVERSHOOT_NODE wins", map[string]string{"OVERSHOOT_NODE": "/opt/node/bin/node"}, onPath, "/opt/node/bin/node", false},
		{"no node: skip", nil, nowhere, "", false},
		{"no node but required: fail", map[string]string{"OVERSHOOT_REQUIRE_NODE": "1"}, nowhere, "", true},
		{"required and found", map[string]string{"OVERSHOOT_REQUIRE_NODE": "1"}, onPath, "/usr/bin/node", true},
		{"OVERSHOOT_NODE wrong: fail even when not required", map[string]string{"OVERSHOOT_NODE": "/nope/node"}, onPath, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			node, missing, required := findNode(func(k string) string { return tt.env[k] }, tt.look)
			if node != tt.node || required != tt.required || (node == "") != (missing != "") {
				t.Errorf("findNode = %q, %q, required %v; want %q, required %v, and a reason exactly when there is no node",
					node, missing, required, tt.node, tt.required)
			}
		})
	}
}
