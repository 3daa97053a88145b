//go:build unix

package cputime

import "testing"

// TestProcessGrows: CPU spent between two readings shows in the second.
func TestProcessGrows(t *testing.T) {
	before := Process()
	if before <= 0 {
		t.Fatalf("Process() = %v at the start of a test binary, want > 0", before)
	}
	x := 0
	for n := 0; n < 1000 && Process() == before; n++ {
		for i := range 1 << 20 {
			x += i
		}
	}
	if after := Process(); after <= before {
		t.Fatalf("Process() did not grow over a busy loop (%d): %v then %v", x, before, after)
	}
}
