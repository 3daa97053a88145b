package pgstore

import (
	"context"
	"fmt"

	"github.com/agentgw/agentgw/store"
)

var _ store.Counter = (*Postgres)(nil)

// Count implements store.Counter with a range of the key's index (bytea compares
// byte by byte).
func (p *Postgres) Count(ctx context.Context, prefix string) (int64, error) {
	q := `SELECT count(*) FROM store WHERE key >= $1 AND claim IS NULL AND expires > COALESCE($2::bigint, ` + pgNow + `)`
	args := []any{[]byte(prefix), p.clock()}
	if end := store.PrefixEnd(prefix); end != "" {
		q, args = q+` AND key < $3`, append(args, []byte(end))
	}
	var n int64
	err := p.retry(func() error { return p.pool.QueryRow(ctx, q, args...).Scan(&n) })
	if err != nil {
		return 0, fmt.Errorf("store: counting the keys %q… of %s: %w", prefix, p.name, err)
	}
	return n, nil
}
