package sqlitestore

import (
	"context"
	"fmt"

	"github.com/agentgw/agentgw/store"
)

var _ store.Counter = (*SQLite)(nil)

// Count implements store.Counter with a range of the key's index (SQLite
// compares TEXT byte by byte).
func (s *SQLite) Count(ctx context.Context, prefix string) (int64, error) {
	q, args := `SELECT count(*) FROM store WHERE key >= ? AND expires > ? AND claim IS NULL`, []any{prefix, s.now().UnixNano()}
	if end := store.PrefixEnd(prefix); end != "" {
		q, args = q+` AND key < ?`, append(args, end)
	}
	var n int64
	if err := s.db.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: counting the keys %q… of %s: %w", prefix, s.path, err)
	}
	return n, nil
}
