package store

import "time"

// SetClock makes m read the time from now (tests in package store_test).
func SetClock(m *Memory, now func() time.Time) { m.now = now }
