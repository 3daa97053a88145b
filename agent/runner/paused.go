package runner

import (
	"context"

	"github.com/agentgw/agentgw/store"
)

// CountPaused counts the runs paused in st, waiting for a consent or a
// frontend tool's result: the live records of every replica sharing st
// (for metrics; a process's own pauses and resumes would not tell it, as a
// run paused on one replica may resume on another).
func CountPaused(ctx context.Context, st store.Counter) (int64, error) {
	return st.Count(ctx, pauseKey(""))
}
