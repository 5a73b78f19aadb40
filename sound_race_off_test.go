//go:build !race

package saidex_test

// raceDetector reports whether the race detector is on (see
// sound_race_on_test.go).
const raceDetector = false
