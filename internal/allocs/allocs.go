// Package allocs is for tests only: what a function allocates on the heap,
// for the tests that bound what untrusted input may cost per byte.
package allocs

import "runtime"

// Of returns the bytes fn allocates on the heap (after a collection, so
// that earlier garbage is not counted).
func Of(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
