package queue

import (
	"context"
	"fmt"
	"time"
)

// StatusStats is what the queue holds in one status: how many messages,
// and when the oldest of them was queued.
type StatusStats struct {
	Status Status
	Count  int64
	// Oldest is when the oldest message was queued; zero when none.
	Oldest time.Time
}

// Stats tells how many messages wait (QUEUED) and run (RUNNING), across
// every replica, and when the oldest of each was queued: the queue's depth
// and age, for metrics. Both statuses are always returned, in that order.
func (q *Queue) Stats(ctx context.Context) ([]StatusStats, error) {
	out := []StatusStats{{Status: StatusQueued}, {Status: StatusRunning}}
	for i := range out {
		// One status at a time: each is a range of the status index.
		var n, oldest int64
		err := q.b.conn().QueryRow(ctx, `SELECT count(*), coalesce(min(created_at), 0) FROM handoff_messages WHERE status = ?`,
			string(out[i].Status)).Scan(&n, &oldest)
		if err != nil {
			return nil, fmt.Errorf("queue: counting the %s messages: %w", out[i].Status, err)
		}
		out[i].Count = n
		if n > 0 {
			out[i].Oldest = fromUnixNano(oldest)
		}
	}
	return out, nil
}
