//go:build race

package saidex_test

// raceDetector reports whether the race detector is on (race_on_test.go
// says so to the internal tests): the soundness run then judges fewer
// objects.
const raceDetector = true
