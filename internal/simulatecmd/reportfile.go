package simulatecmd

import "github.com/overshoot-dev/overshoot/internal/report"

// writeReport writes a run's report into a new folder (report.WriteNew).
// It is a variable so that the package's tests can leave the figures out
// (see main_test.go).
var writeReport = report.WriteNew
