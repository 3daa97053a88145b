//go:build !unix

package index

import "time"

// cpuTime is 0 where getrusage is not at hand.
func cpuTime() time.Duration { return 0 }
