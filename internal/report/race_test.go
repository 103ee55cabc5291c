//go:build race

package report

// raceEnabled is true when the tests run under the race detector, where
// drawing a figure takes ten times as long and finds nothing: figure code
// is single-threaded. FuzzWrite then checks the report's text only; the
// figures get their fuzzing without -race.
const raceEnabled = true
