package store

import (
	"context"
	"fmt"
	"strings"
)

// Counter is implemented by every backend of this package: counting the
// live keys that begin with a prefix (the paused runs, for metrics).
type Counter interface {
	// Count returns how many live (not expired) keys begin with prefix.
	Count(ctx context.Context, prefix string) (int64, error)
}

var (
	_ Counter = (*Memory)(nil)
	_ Counter = (*SQLite)(nil)
	_ Counter = (*Postgres)(nil)
)

// prefixEnd is the least string greater than every string that begins
// with prefix, "" when there is none (prefix is empty or all 0xff): the
// keys with prefix are the range [prefix, prefixEnd) in byte order.
func prefixEnd(prefix string) string {
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
		if strings.HasPrefix(k, prefix) && now.Before(it.expires) {
			n++
		}
	}
	return n, nil
}

// Count implements Counter with a range of the key's index (SQLite
// compares TEXT byte by byte).
func (s *SQLite) Count(ctx context.Context, prefix string) (int64, error) {
	q, args := `SELECT count(*) FROM store WHERE key >= ? AND expires > ?`, []any{prefix, s.now().UnixNano()}
	if end := prefixEnd(prefix); end != "" {
		q, args = q+` AND key < ?`, append(args, end)
	}
	var n int64
	if err := s.db.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: counting the keys %q… of %s: %w", prefix, s.path, err)
	}
	return n, nil
}

// Count implements Counter with a range of the key's index (bytea compares
// byte by byte).
func (p *Postgres) Count(ctx context.Context, prefix string) (int64, error) {
	q := `SELECT count(*) FROM store WHERE key >= $1 AND expires > COALESCE($2::bigint, ` + pgNow + `)`
	args := []any{[]byte(prefix), p.clock()}
	if end := prefixEnd(prefix); end != "" {
		q, args = q+` AND key < $3`, append(args, []byte(end))
	}
	var n int64
	err := p.retry(func() error { return p.pool.QueryRow(ctx, q, args...).Scan(&n) })
	if err != nil {
		return 0, fmt.Errorf("store: counting the keys %q… of %s: %w", prefix, p.name, err)
	}
	return n, nil
}
