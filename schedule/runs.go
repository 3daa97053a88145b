package schedule

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/agentgw/agentgw/internal/dbconn"
)

// runColumns are a run's columns, in scanRun's order.
const runColumns = `id, schedule_id, due, manual, status, started_at, finished_at, result, error, replica`

// runSpace is the namespace of RunID's name-based UUIDs.
var runSpace = uuid.MustParse("7b0e2d7c-61a4-4c38-9a0e-3f5f3c8e2b91")

// RunID is the id of the run of schedule scheduleID due at due: a UUID
// derived from both, the same on every replica.
func RunID(scheduleID string, due time.Time) string {
	return uuid.NewSHA1(runSpace, []byte(scheduleID+"\x00"+strconv.FormatInt(due.UnixNano(), 10))).String()
}

// Runs returns the runs of schedule scheduleID that the store keeps,
// newest first (none for an unknown schedule).
func (s *Store) Runs(ctx context.Context, scheduleID string) ([]Run, error) {
	return s.runs(ctx, `SELECT `+runColumns+` FROM schedule_runs WHERE schedule_id = ? ORDER BY seq DESC`, scheduleID)
}

// Run returns run id, or ErrNotFound (a run the store no longer keeps, or
// never had).
func (s *Store) Run(ctx context.Context, id string) (Run, error) {
	r, err := scanRun(s.pool.QueryRow(ctx, `SELECT `+runColumns+` FROM schedule_runs WHERE id = ?`, id))
	if dbconn.IsNoRows(err) {
		return Run{}, fmt.Errorf("%w: no run with the id %q", ErrNotFound, id)
	}
	if err != nil {
		return Run{}, fmt.Errorf("schedule: reading run %s: %w", id, err)
	}
	return r, nil
}

func (s *Store) runs(ctx context.Context, query string, args ...any) ([]Run, error) {
	rs, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("schedule: reading runs: %w", err)
	}
	defer rs.Close()
	var out []Run
	for rs.Next() {
		r, err := scanRun(rs)
		if err != nil {
			return nil, fmt.Errorf("schedule: reading runs: %w", err)
		}
		out = append(out, r)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("schedule: reading runs: %w", err)
	}
	return out, nil
}

func scanRun(r dbconn.Row) (Run, error) {
	var run Run
	var due, manual, started, finished int64
	var status, result string
	err := r.Scan(&run.ID, &run.ScheduleID, &due, &manual, &status, &started, &finished, &result, &run.Error, &run.Replica)
	if err != nil {
		return Run{}, err
	}
	run.Due, run.Started, run.Finished = fromUnixNano(due), fromUnixNano(started), fromUnixNano(finished)
	run.Manual, run.Status = manual != 0, Status(status)
	if result != "" {
		run.Result = json.RawMessage(result)
	}
	return run, nil
}

// due returns up to limit enabled schedules whose next run is at or before
// now, the most overdue first.
func (s *Store) due(ctx context.Context, now time.Time, limit int) ([]Schedule, error) {
	rs, err := s.pool.Query(ctx, `SELECT `+columns+` FROM schedules WHERE next_run > 0 AND next_run <= ? AND enabled = 1
		ORDER BY next_run LIMIT ?`, unixNano(now), limit)
	if err != nil {
		return nil, fmt.Errorf("schedule: finding due schedules: %w", err)
	}
	defer rs.Close()
	var out []Schedule
	for rs.Next() {
		sc, _, err := scanSchedule(rs)
		if err != nil {
			return nil, fmt.Errorf("schedule: finding due schedules: %w", err)
		}
		out = append(out, sc)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("schedule: finding due schedules: %w", err)
	}
	return out, nil
}

// nextDue is the earliest next run of the enabled schedules, if any.
func (s *Store) nextDue(ctx context.Context) (time.Time, bool, error) {
	var n *int64
	err := s.pool.QueryRow(ctx, `SELECT min(next_run) FROM schedules WHERE next_run > 0 AND enabled = 1`).Scan(&n)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("schedule: finding the next run: %w", err)
	}
	if n == nil {
		return time.Time{}, false, nil
	}
	return fromUnixNano(*n), true, nil
}

// claim is what a replica asks to take the run of sc due at due.
type claim struct {
	sc      Schedule
	due     time.Time
	now     time.Time
	grace   time.Duration
	lease   time.Duration
	replica string
	// mine are the runs in progress in the claiming process: in progress,
	// whatever their lease says.
	mine []string
}

// claim takes the run of c.sc due at c.due, for this replica alone: in one
// transaction, a compare-and-swap moves the schedule's next_run from c.due
// to the time following it; only the replica whose update hits goes on
// (ok), the others find next_run moved and get false. The winner then
// records the run: SKIPPED when it was missed under MissedSkip (more than
// c.grace late) or when another run of the schedule is in progress,
// RUNNING otherwise (last_run and run_count updated, a lease of c.lease
// after which a run whose replica died is taken as interrupted). A once
// schedule is disabled in the same transaction: its one time is taken.
func (s *Store) claim(ctx context.Context, c claim) (run Run, ok bool, err error) {
	next, _ := c.sc.Spec.Following(c.due, c.now)
	run = Run{ID: RunID(c.sc.ID, c.due), ScheduleID: c.sc.ID, Due: c.due, Started: c.now, Replica: c.replica}
	err = s.inTx(ctx, func(tx dbconn.Conn) error {
		n, err := tx.Exec(ctx, `UPDATE schedules SET next_run = ? WHERE id = ? AND next_run = ? AND enabled = 1`,
			unixNano(next), c.sc.ID, unixNano(c.due))
		if err != nil || n == 0 {
			return err
		}
		ok = true
		if c.sc.Spec.Kind() == KindOnce {
			// Its one time is taken: the schedule is done, and says so
			// (enabled false) rather than stay enabled with no next run.
			if _, err := tx.Exec(ctx, `UPDATE schedules SET enabled = 0, updated_at = ? WHERE id = ?`,
				unixNano(c.now), c.sc.ID); err != nil {
				return err
			}
		}
		// The same schedule and due time once more (a clock set back):
		// a run id of its own.
		var dup int64
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM schedule_runs WHERE id = ?`, run.ID).Scan(&dup); err != nil {
			return err
		}
		if dup > 0 {
			run.ID = uuid.NewString()
		}
		// The update holds the schedule's row (Postgres) or the file
		// (SQLite) until commit: a RunNow of the schedule waits, and what
		// follows sees its run if it committed first.
		skip := ""
		if late := c.now.Sub(c.due); c.sc.Missed == MissedSkip && late > c.grace {
			skip = fmt.Sprintf("missed: due at %s, found %s late (no replica was running, or none had room); the missed-run policy is %s",
				c.due.Format(time.RFC3339), late.Round(time.Second), MissedSkip)
		} else if other, err := s.running(ctx, tx, c.sc.ID, c.now, c.mine); err != nil {
			return err
		} else if other != "" {
			skip = fmt.Sprintf("the run %s is still in progress; runs of a schedule do not overlap", other)
		}
		if skip != "" {
			run.Status, run.Finished, run.Error = StatusSkipped, c.now, skip
			return s.insertRun(ctx, tx, run, 0)
		}
		if _, err := tx.Exec(ctx, `UPDATE schedules SET last_run = ?, run_count = run_count + 1 WHERE id = ?`,
			unixNano(c.now), c.sc.ID); err != nil {
			return err
		}
		run.Status = StatusRunning
		return s.insertRun(ctx, tx, run, unixNano(c.now.Add(c.lease)))
	})
	if err != nil {
		return Run{}, false, fmt.Errorf("schedule: claiming the run of %s due at %s: %w", c.sc.Name, c.due.Format(time.RFC3339), err)
	}
	return run, ok, nil
}

// startManual records a RunNow run of schedule id, RUNNING with the lease
// lease gives the schedule, unless one of its runs is in progress
// (ErrRunning). It counts in run_count and
// last_run and leaves next_run as it is.
func (s *Store) startManual(ctx context.Context, id string, now time.Time, lease func(Schedule) time.Duration, replica string, mine ...string) (Schedule, Run, error) {
	var sc Schedule
	run := Run{ID: uuid.NewString(), ScheduleID: id, Due: now, Manual: true, Status: StatusRunning, Started: now, Replica: replica}
	err := s.inTx(ctx, func(tx dbconn.Conn) error {
		n, err := tx.Exec(ctx, `UPDATE schedules SET last_run = ?, run_count = run_count + 1 WHERE id = ?`, unixNano(now), id)
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("%w: no schedule with the id %q", ErrNotFound, id)
		}
		if sc, _, err = scanSchedule(tx.QueryRow(ctx, `SELECT `+columns+` FROM schedules WHERE id = ?`, id)); err != nil {
			return err
		}
		other, err := s.running(ctx, tx, id, now, mine)
		if err != nil {
			return err
		}
		if other != "" {
			return fmt.Errorf("%w: schedule %s is running (run %s)", ErrRunning, sc.Name, other)
		}
		return s.insertRun(ctx, tx, run, unixNano(now.Add(lease(sc))))
	})
	if err != nil {
		return Schedule{}, Run{}, fmt.Errorf("schedule: running %s now: %w", id, err)
	}
	return sc, run, nil
}

// running is the id of a run of schedule id in progress at now (RUNNING,
// its lease not passed, or one of mine: in progress in the asking
// process), or "".
func (s *Store) running(ctx context.Context, tx dbconn.Conn, id string, now time.Time, mine []string) (string, error) {
	var other string
	query := `SELECT id FROM schedule_runs WHERE schedule_id = ? AND status = ? AND (lease_until > ?`
	args := []any{id, string(StatusRunning), unixNano(now)}
	if len(mine) > 0 {
		query += ` OR id IN (?` + strings.Repeat(", ?", len(mine)-1) + `)`
		for _, m := range mine {
			args = append(args, m)
		}
	}
	err := tx.QueryRow(ctx, query+`) LIMIT 1`, args...).Scan(&other)
	if dbconn.IsNoRows(err) {
		return "", nil
	}
	return other, err
}

// insertRun records run with its lease, and deletes the schedule's
// finished runs beyond the newest s.keep.
func (s *Store) insertRun(ctx context.Context, tx dbconn.Conn, run Run, lease int64) error {
	if _, err := tx.Exec(ctx, `INSERT INTO schedule_runs (id, schedule_id, due, manual, status, started_at, finished_at,
		lease_until, result, error, replica) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		run.ID, run.ScheduleID, unixNano(run.Due), boolInt(run.Manual), string(run.Status), unixNano(run.Started),
		unixNano(run.Finished), lease, string(run.Result), run.Error, run.Replica); err != nil {
		return fmt.Errorf("recording run %s: %w", run.ID, err)
	}
	_, err := tx.Exec(ctx, `DELETE FROM schedule_runs WHERE schedule_id = ? AND status <> ? AND seq <=
		(SELECT seq FROM schedule_runs WHERE schedule_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
		run.ScheduleID, string(StatusRunning), run.ScheduleID, s.keep)
	if err != nil {
		return fmt.Errorf("deleting the old runs of %s: %w", run.ScheduleID, err)
	}
	return nil
}

// finish records the outcome of run (its Status, Finished, Result and
// Error). It reports false when the run is no longer kept (its schedule
// deleted) or has an outcome already. A run that a sweep recorded
// interrupted (its replica's heartbeats did not reach the database) is
// given its real outcome.
//
// With disable set (a Runner's DisableError), the run's schedule is
// disabled in the same transaction, disable its DisabledReason, when the
// outcome was recorded.
func (s *Store) finish(ctx context.Context, run Run, disable string) (bool, error) {
	const query = `UPDATE schedule_runs SET status = ?, finished_at = ?, result = ?, error = ?, lease_until = 0
		WHERE id = ? AND (status = ? OR (status = ? AND error = ?))`
	args := []any{string(run.Status), unixNano(run.Finished), string(run.Result), run.Error, run.ID, string(StatusRunning),
		string(StatusFailed), interruptedError}
	if disable == "" {
		n, err := s.pool.Exec(ctx, query, args...)
		if err != nil {
			return false, fmt.Errorf("schedule: recording the outcome of run %s: %w", run.ID, err)
		}
		return n == 1, nil
	}
	var n int64
	err := s.inTx(ctx, func(tx dbconn.Conn) error {
		var err error
		if n, err = tx.Exec(ctx, query, args...); err != nil || n != 1 {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE schedules SET enabled = 0, next_run = 0, disabled_reason = ?, updated_at = ? WHERE id = ?`,
			disable, unixNano(run.Finished), run.ScheduleID)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("schedule: recording the outcome of run %s and disabling its schedule: %w", run.ID, err)
	}
	return n == 1, nil
}

// renew sets the lease of run id, while it is RUNNING, to until.
func (s *Store) renew(ctx context.Context, id string, until time.Time) error {
	if _, err := s.pool.Exec(ctx, `UPDATE schedule_runs SET lease_until = ? WHERE id = ? AND status = ?`,
		unixNano(until), id, string(StatusRunning)); err != nil {
		return fmt.Errorf("schedule: renewing the lease of run %s: %w", id, err)
	}
	return nil
}

// interruptedError is the error of a run its replica stopped in the
// middle of, as sweep records it.
const interruptedError = "interrupted: the replica running it stopped before it finished"

// sweep records as FAILED (interrupted) the runs still RUNNING whose lease
// has passed at now, but for those of mine (the runs in progress in this
// process): their replica stopped in the middle of them.
//
// It first reads whether any run is RUNNING past its lease (one read of
// the status index, which finds nothing when nothing runs) and writes
// only when one is: an idle replica takes no write lock for it.
func (s *Store) sweep(ctx context.Context, now time.Time, mine []string) (int64, error) {
	var found int64
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM schedule_runs WHERE status = ? AND lease_until <= ? LIMIT 1) r`,
		string(StatusRunning), unixNano(now)).Scan(&found)
	if err != nil {
		return 0, fmt.Errorf("schedule: looking for interrupted runs: %w", err)
	}
	if found == 0 {
		return 0, nil
	}
	query := `UPDATE schedule_runs SET status = ?, finished_at = ?, lease_until = 0, error = ?
		WHERE status = ? AND lease_until <= ?`
	args := []any{string(StatusFailed), unixNano(now), interruptedError, string(StatusRunning), unixNano(now)}
	if len(mine) > 0 {
		query += ` AND id NOT IN (?` + strings.Repeat(", ?", len(mine)-1) + `)`
		for _, id := range mine {
			args = append(args, id)
		}
	}
	n, err := s.pool.Exec(ctx, query, args...)
	if err != nil {
		return 0, fmt.Errorf("schedule: recording interrupted runs: %w", err)
	}
	return n, nil
}
