//go:build race

package engine

// raceDetector is whether the tests run under the race detector, which
// allocates for its own bookkeeping and makes sync.Pool drop what it holds.
const raceDetector = true
