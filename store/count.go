package store

import (
	"context"
	"strings"
)

// Counter is implemented by every backend (Memory, sqlitestore, pgstore):
// counting the live keys that begin with a prefix (the paused runs, for
// metrics).
type Counter interface {
	// Count returns how many live (not expired, not claimed) keys begin
	// with prefix.
	Count(ctx context.Context, prefix string) (int64, error)
}

var _ Counter = (*Memory)(nil)

// PrefixEnd is the least string greater than every string that begins
// with prefix, "" when there is none (prefix is empty or all 0xff): the
// keys with prefix are the range [prefix, PrefixEnd) in byte order.
func PrefixEnd(prefix string) string {
	b := []byte(prefix)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1])
		}
	}
	return ""
}

// Count implements Counter.
func (m *Memory) Count(_ context.Context, prefix string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	var n int64
	for k, it := range m.items {
		if strings.HasPrefix(k, prefix) && now.Before(it.expires) && it.claim == "" {
			n++
		}
	}
	return n, nil
}
