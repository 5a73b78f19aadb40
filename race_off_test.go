//go:build !race

package saidex

// raceEnabled reports whether the race detector is on: sync.Pool then
// drops items at random, so allocation counts are not those of a normal
// build.
const raceEnabled = false
