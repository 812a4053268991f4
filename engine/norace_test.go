//go:build !race

package engine

// raceDetector is whether the tests run under the race detector (see race_test.go).
const raceDetector = false
