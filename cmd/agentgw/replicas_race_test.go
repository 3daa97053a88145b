//go:build race

package main

// raceEnabled: the test binary has the race detector, so the gateway
// processes TestThreeReplicas starts are built with it too.
const raceEnabled = true
