//go:build !race

package faultinject

// raceEnabled reports whether the race detector is on.
const raceEnabled = false
