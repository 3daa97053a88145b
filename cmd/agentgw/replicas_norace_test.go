//go:build !race

package main

// raceEnabled: the test binary has no race detector.
const raceEnabled = false
