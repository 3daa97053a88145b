//go:build !linux

package openaiapi_test

import "time"

// processCPU is 0 where getrusage is not at hand.
func processCPU() time.Duration { return 0 }
