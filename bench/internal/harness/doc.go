// Package harness holds what the bench's programs share to run the gateway
// as a program: finding the repository, building binaries from their own
// modules, starting processes on loopback and stopping them (or killing and
// restarting them), and reading a process's CPU, memory and open files from
// /proc.
//
// It lives in the bench module, which imports nothing of the gateway's, so
// that go run ./bench (the relay's cost) and go run ./bench/soak (hours of
// load and faults) start and watch their processes the same way.
package harness
