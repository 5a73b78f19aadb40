//go:build race

package faultinject

// raceEnabled reports whether the race detector is on: the referee's
// tests then judge fewer objects, since the detector slows them tenfold.
const raceEnabled = true
