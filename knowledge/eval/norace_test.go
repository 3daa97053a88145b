//go:build !race

package eval

// raceEnabled: the test binary has no race detector.
const raceEnabled = false
