package queue

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentgw/agentgw/internal/pgtest"
)

// tracedPostgres opens a queue on a fresh PostgreSQL schema over a pool
// whose statements tr records; it does not start the queue.
func tracedPostgres(t *testing.T, cfg Config, tr pgx.QueryTracer) *Queue {
	t.Helper()
	pc, err := pgxpool.ParseConfig(pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	pc.ConnConfig.Tracer = tr
	pool, err := pgxpool.NewWithConfig(context.Background(), pc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	q, err := NewPostgres(context.Background(), pool, testConfig(t, cfg))
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// stmtLog is a pgx tracer keeping the round trips in order: a statement's
// first line (River's are named by their "-- name:" comment), a batch as
// its statements' first lines in brackets.
type stmtLog struct {
	mu  sync.Mutex
	log []string
}

var (
	_ pgx.QueryTracer = (*stmtLog)(nil)
	_ pgx.BatchTracer = (*stmtLog)(nil)
)

var riverName = regexp.MustCompile(`^-- name: (\w+)`)

// short is a statement's name in the log.
func short(sql string) string {
	sql = strings.TrimSpace(sql)
	if m := riverName.FindStringSubmatch(sql); m != nil {
		return "river:" + m[1]
	}
	first, _, _ := strings.Cut(sql, "\n")
	return strings.Join(strings.Fields(first), " ")
}

func (l *stmtLog) add(s string) {
	l.mu.Lock()
	l.log = append(l.log, s)
	l.mu.Unlock()
}

// take returns the log so far and empties it.
func (l *stmtLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.log
	l.log = nil
	return out
}

func (l *stmtLog) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	l.add(short(d.SQL))
	return ctx
}

func (l *stmtLog) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (l *stmtLog) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	var parts []string
	for _, q := range d.Batch.QueuedQueries {
		parts = append(parts, short(q.SQL))
	}
	l.add("[" + strings.Join(parts, "; ") + "]")
	return ctx
}

func (l *stmtLog) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

func (l *stmtLog) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// TestEnqueueRoundTrips (issue 28 item 3): queuing a message into a
// bounded task on PostgreSQL begins the transaction, takes the task's lock
// and inserts the row, its status counted under that lock, in one round
// trip, then River's job, then the commit: three round trips (River may
// add its notification), and a fourth only for a message kept DEAD at the
// bound (its error, with the count). A message past MaxHops or without a
// task takes no lock; its INSERT goes with the BEGIN all the same.
func TestEnqueueRoundTrips(t *testing.T) {
	tr := &stmtLog{}
	q := tracedPostgres(t, Config{Handler: answerAtOnce, MaxMessagesPerTask: 1}, tr)
	const (
		lock   = "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))"
		insert = "INSERT INTO handoff_messages (id, task_id, correlation_id, recipient, priority,"
	)
	// River asks the server's version at its first insert.
	if _, _, err := q.Enqueue(context.Background(), Envelope{ID: "warm"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		env  Envelope
		want []string
	}{
		{"bounded task", Envelope{ID: "m1", TaskID: "t"},
			[]string{"[begin; " + lock + "; " + insert + "]", "river:JobInsertFastMany", "commit"}},
		{"at the bound", Envelope{ID: "m2", TaskID: "t"},
			[]string{"[begin; " + lock + "; " + insert + "]", "SELECT count(*) FROM handoff_messages WHERE owner = $1 AND task_id = $2",
				"UPDATE handoff_messages SET code = $1, error = $2, finished_at = $3 WHERE id = $4", "commit"}},
		{"no task", Envelope{ID: "m3"},
			[]string{"[begin; " + insert + "]", "river:JobInsertFastMany", "commit"}},
		{"past MaxHops", Envelope{ID: "m4", TaskID: "t", Hops: DefaultMaxHops + 1},
			[]string{"[begin; " + insert + "]", "commit"}},
	} {
		tr.take()
		if _, _, err := q.Enqueue(context.Background(), tc.env); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := slices.DeleteFunc(tr.take(), func(s string) bool { return s == "river:PGNotifyMany" })
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: round trips\n%s\nwant\n%s", tc.name, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}

// TestEnqueueFailedBatchReleases: a transaction whose first batch fails
// (its BEGIN sent with it) is rolled back and gives its connection back:
// on a pool of two connections (the migration needs two), two failures
// leave none held, and the next messages queue.
func TestEnqueueFailedBatchReleases(t *testing.T) {
	pc, err := pgxpool.ParseConfig(pgtest.WithParam(pgtest.Schema(t), "pool_max_conns", "2"))
	if err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), pc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	q, err := NewPostgres(context.Background(), pool, testConfig(t, Config{Handler: answerAtOnce}))
	if err != nil {
		t.Fatal(err)
	}
	// PostgreSQL refuses text that is not UTF-8: the lock's key fails.
	for _, id := range []string{"bad1", "bad2"} {
		if _, _, err := q.Enqueue(t.Context(), Envelope{ID: id, TaskID: "t\xff"}); err == nil {
			t.Fatal("a task id that is not UTF-8 was queued")
		}
	}
	if n := pool.Stat().AcquiredConns(); n != 0 {
		t.Fatalf("%d connections still acquired after the failures", n)
	}
	// Bounded, so that a connection held would fail the test, not hang it.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for _, id := range []string{"m1", "m2"} {
		if rec, fresh, err := q.Enqueue(ctx, Envelope{ID: id, TaskID: "t"}); err != nil || !fresh || rec.Status != StatusQueued {
			t.Fatalf("%s after the failure: %+v, fresh %v, %v", id, rec, fresh, err)
		}
	}
	if n := pool.Stat().AcquiredConns(); n != 0 {
		t.Errorf("%d connections still acquired", n)
	}
}
