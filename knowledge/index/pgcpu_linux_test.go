//go:build linux

package index

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// serverCPU is the CPU time so far (user and system) of the PostgreSQL
// server's backends connected to db's database, from /proc/PID/schedstat
// (the server must run on this machine), and whether it could be read. A
// backend that exits between two readings takes its time with it: the
// benchmark reads it while its pools are open.
func serverCPU(ctx context.Context, db string) (time.Duration, bool) {
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		return 0, false
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
	if err != nil {
		return 0, false
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return 0, false
	}
	var total time.Duration
	for _, pid := range pids {
		// The first field of schedstat is the time spent on a CPU, in
		// nanoseconds (user and system).
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid))
		if err != nil {
			return 0, false
		}
		f := strings.Fields(string(b))
		if len(f) < 1 {
			return 0, false
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, false
		}
		total += time.Duration(ns)
	}
	return total, true
}
