//go:build race

package eval

// raceEnabled: the test binary has the race detector, which makes the
// index's SQLite about ten times slower.
const raceEnabled = true
