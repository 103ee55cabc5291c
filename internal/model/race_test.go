//go:build race

package model

// raceEnabled says the race detector is on: heavy smoke tests do less.
const raceEnabled = true
