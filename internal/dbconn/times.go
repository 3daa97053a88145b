package dbconn

import (
	"math"
	"time"
)

// maxUnixNano is the last time unix nanoseconds hold (in 2262).
var maxUnixNano = time.Unix(0, math.MaxInt64)

// UnixNano is t as the tables keep times: unix nanoseconds, 0 for the zero
// time, the largest value for a time after 2262.
func UnixNano(t time.Time) int64 {
	switch {
	case t.IsZero():
		return 0
	case t.After(maxUnixNano):
		return math.MaxInt64
	}
	return t.UnixNano()
}

// FromUnixNano is the inverse of UnixNano, in the local zone.
func FromUnixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}
