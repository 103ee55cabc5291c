// Package scenarios embeds the scenario library (the *.yaml files in this
// directory), so that commands find default.yaml wherever they run from.
package scenarios

import "embed"

// FS holds every scenario file of the library, by base name
// ("default.yaml", "botnet.yaml", ...).
//
//go:embed *.yaml
var FS embed.FS

// DefaultFile is the name of the scenario commands run when given none.
const DefaultFile = "default.yaml"
