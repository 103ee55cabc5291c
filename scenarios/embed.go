// Package scenarios holds the scenario library. The files are embedded so
// that the commands run the default scenario from anywhere, with no file to
// find; each file also stands alone for `simulate scenarios/NAME.yaml`.
package scenarios

import "embed"

// Files is every scenario in this folder, by base name.
//
//go:embed *.yaml
var Files embed.FS

// DefaultName is the scenario the commands run when given none.
const DefaultName = "default.yaml"

// Default returns the default scenario file's bytes.
func Default() []byte {
	b, err := Files.ReadFile(DefaultName)
	if err != nil {
		panic("scenarios: default.yaml is not embedded: " + err.Error()) // a build defect, not input
	}
	return b
}
