package queue

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agentgw/agentgw/internal/dbconn"
)

// answered is what Enqueue answered one member of a batch.
type answered struct {
	rec   Record
	fresh bool
	err   error
}

// batchOf queues envs in one batch, as Enqueues that arrived while
// another batch was written are, and returns what each is answered.
func batchOf(t *testing.T, q *Queue, envs ...Envelope) []answered {
	t.Helper()
	calls := make([]*enqueueCall, len(envs))
	for i, env := range envs {
		if err := check(&env); err != nil {
			t.Fatal(err)
		}
		calls[i] = &enqueueCall{ctx: t.Context(), env: env, done: make(chan struct{})}
	}
	q.runBatch(calls)
	out := make([]answered, len(calls))
	for i, c := range calls {
		<-c.done
		out[i].rec, out[i].fresh, out[i].err = q.answer(c)
	}
	return out
}

// stored says whether message id is in the queue, and how many River jobs
// deliver it.
func stored(t *testing.T, q *Queue, id string) (bool, int) {
	t.Helper()
	_, err := q.Get(t.Context(), id)
	if err != nil && !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	var jobs int
	if err := q.b.conn().QueryRow(t.Context(), `SELECT count(*) FROM river_job j WHERE `+q.b.jobMessage()+` = ?`, id).Scan(&jobs); err != nil {
		t.Fatal(err)
	}
	return err == nil, jobs
}

// TestEnqueueBatchOneFails: a batch whose one member's statement fails
// (PostgreSQL refuses a task id that is not UTF-8) commits nothing as a
// batch; each member is queued again alone, so the others are queued and
// answered fresh, each with its one job, and only the failing one gets
// the error.
func TestEnqueueBatchOneFails(t *testing.T) {
	tr := &stmtLog{}
	q := tracedPostgres(t, Config{Handler: answerAtOnce}, tr)
	tr.take() // the migrations
	got := batchOf(t, q, Envelope{ID: "a", TaskID: "t1"}, Envelope{ID: "bad", TaskID: "t\xff"},
		Envelope{ID: "b", TaskID: "t2"}, Envelope{ID: "c"})
	for i, id := range []string{"a", "bad", "b", "c"} {
		in, jobs := stored(t, q, id)
		if id == "bad" {
			if got[i].err == nil || in || jobs != 0 {
				t.Errorf("bad: answered %+v; stored %v with %d jobs", got[i], in, jobs)
			}
			continue
		}
		if got[i].err != nil || !got[i].fresh || got[i].rec.Status != StatusQueued || !in || jobs != 1 {
			t.Errorf("%s: answered %+v; stored %v with %d jobs", id, got[i], in, jobs)
		}
	}
	// The batch was tried once, its four INSERTs in one round trip, and
	// rolled back.
	log := tr.take()
	if len(log) < 2 || strings.Count(log[0], "INSERT INTO handoff_messages") != 4 || log[1] != "rollback" {
		t.Errorf("the batch's round trips, then each message's alone:\n%s", strings.Join(log, "\n"))
	}
}

// cutter is a pgx tracer that closes the connection a statement whose
// name (as stmtLog names them) begins with match is about to be sent on,
// left times: the store's connection cut.
type cutter struct {
	match string
	left  atomic.Int64
}

func (c *cutter) TraceQueryStart(ctx context.Context, conn *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	if strings.HasPrefix(short(d.SQL), c.match) && c.left.Add(-1) >= 0 {
		_ = conn.PgConn().Conn().Close()
	}
	return ctx
}

func (c *cutter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TraceBatchStart implements pgx.BatchTracer: a batch holding a statement
// named match is cut as one.
func (c *cutter) TraceBatchStart(ctx context.Context, conn *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	for _, qq := range d.Batch.QueuedQueries {
		if strings.HasPrefix(short(qq.SQL), c.match) {
			return c.TraceQueryStart(ctx, conn, pgx.TraceQueryStartData{SQL: qq.SQL})
		}
	}
	return ctx
}

func (c *cutter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

func (c *cutter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// TestEnqueueBatchCut: a batch cut by the store (its connection closed)
// acknowledges no message that was not committed. Cut before its commit
// once, each member is queued again alone and acknowledged, stored once
// with one job; cut at its commit, every member is answered the error and
// none is stored (the commit was not sent), and each queues fresh after;
// cut for longer, every member is answered an error, none is stored.
func TestEnqueueBatchCut(t *testing.T) {
	for _, tc := range []struct {
		name   string
		match  string
		cuts   int64
		queued bool
	}{
		{"River's insert, once", "river:JobInsertFastMany", 1, true},
		{"the commit", "commit", 1, false},
		{"River's insert, lasting", "river:JobInsertFastMany", 100, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cut := &cutter{match: tc.match}
			q := tracedPostgres(t, Config{Handler: answerAtOnce}, cut)
			if _, _, err := q.Enqueue(t.Context(), Envelope{ID: "warm"}); err != nil {
				t.Fatal(err)
			}
			cut.left.Store(tc.cuts)
			ids := []string{"m1", "m2", "m3"}
			got := batchOf(t, q, Envelope{ID: ids[0], TaskID: "t"}, Envelope{ID: ids[1], TaskID: "t"}, Envelope{ID: ids[2]})
			for i, id := range ids {
				in, jobs := stored(t, q, id)
				if tc.queued != (got[i].err == nil) || in != tc.queued || jobs != map[bool]int{true: 1}[tc.queued] {
					t.Errorf("%s: answered %+v; stored %v with %d jobs", id, got[i], in, jobs)
				}
			}
			cut.left.Store(0)
			for _, id := range ids {
				if _, fresh, err := q.Enqueue(t.Context(), Envelope{ID: id, TaskID: "t"}); err != nil || fresh == tc.queued {
					t.Errorf("%s queued again after the cut: fresh %v, %v", id, fresh, err)
				}
			}
		})
	}
}

// TestEnqueueBatchOrder: in one batch, a task's messages keep their order
// (their seq and their River jobs), its bound counts the batch's earlier
// messages of the task (the third of a task of two is DEAD, its error
// counting the two), and a second Enqueue of an id in the same batch is
// answered with the first's record, not fresh.
func TestEnqueueBatchOrder(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		q := openQueue(t, db, Config{Handler: answerAtOnce, MaxMessagesPerTask: 2})
		got := batchOf(t, q, Envelope{ID: "z1", TaskID: "z"}, Envelope{ID: "a1", TaskID: "a"},
			Envelope{ID: "z2", TaskID: "z"}, Envelope{ID: "z1", TaskID: "z"}, Envelope{ID: "z3", TaskID: "z"})
		for i, a := range got {
			if a.err != nil {
				t.Fatalf("member %d: %v", i, a.err)
			}
		}
		z1, a1, z2, dup, z3 := got[0], got[1], got[2], got[3], got[4]
		if !z1.fresh || !a1.fresh || !z2.fresh || !z3.fresh || dup.fresh {
			t.Errorf("fresh: %v %v %v %v, the repeated id %v", z1.fresh, a1.fresh, z2.fresh, z3.fresh, dup.fresh)
		}
		if !(z1.rec.Seq < z2.rec.Seq && z2.rec.Seq < z3.rec.Seq) {
			t.Errorf("seq of task z: %d, %d, %d", z1.rec.Seq, z2.rec.Seq, z3.rec.Seq)
		}
		if dup.rec.Seq != z1.rec.Seq || dup.rec.Status != StatusQueued {
			t.Errorf("the repeated id answered %+v", dup.rec)
		}
		if z1.rec.Status != StatusQueued || z2.rec.Status != StatusQueued || z3.rec.Status != StatusDead ||
			!strings.Contains(z3.rec.Error, "task z holds 2 hand-off messages already") {
			t.Errorf("task z: %s, %s, %s %q", z1.rec.Status, z2.rec.Status, z3.rec.Status, z3.rec.Error)
		}
		rows, err := q.b.conn().Query(t.Context(), `SELECT `+q.b.jobMessage()+` FROM river_job j ORDER BY j.id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var jobs []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			jobs = append(jobs, id)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if j := strings.Join(jobs, " "); j != "a1 z1 z2" && j != "z1 z2 a1" {
			t.Errorf("River's jobs in order: %s, want z1 before z2, one each, none for z3", j)
		}
		for _, a := range []answered{z1, a1, z2, z3} {
			rec, err := q.Get(t.Context(), a.rec.ID)
			if err != nil || rec.Seq != a.rec.Seq || rec.Status != a.rec.Status || rec.Error != a.rec.Error {
				t.Errorf("%s: answered %+v, stored %+v, %v", a.rec.ID, a.rec, rec, err)
			}
		}
	})
}

// writesOf runs stmts (each a query and its args; a query with RETURNING
// is read as a row of one column) in one batch of writes, as the claims
// and outcomes of runs that meet are, and returns what each is answered:
// the rows affected, or 1 for a row read and 0 for none.
func writesOf(t *testing.T, q *Queue, stmts ...[]any) ([]int64, []error) {
	t.Helper()
	calls := make([]*writeCall, len(stmts))
	read := make([]bool, len(stmts))
	for i, st := range stmts {
		c := &writeCall{ctx: t.Context(), query: st[0].(string), args: st[1:], done: make(chan struct{})}
		if strings.Contains(c.query, "RETURNING") {
			c.scan = func(r dbconn.Row) error {
				var s string
				err := r.Scan(&s)
				read[i] = err == nil
				if dbconn.IsNoRows(err) {
					return nil
				}
				return err
			}
		}
		calls[i] = c
	}
	q.runWrites(calls)
	ns, errs := make([]int64, len(calls)), make([]error, len(calls))
	for i, c := range calls {
		<-c.done
		ns[i], errs[i] = q.written(c)
		if c.scan != nil && read[i] {
			ns[i] = 1
		}
	}
	return ns, errs
}

// errorOf reads message id's error column.
func errorOf(t *testing.T, q *Queue, id string) string {
	t.Helper()
	rec, err := q.Get(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return rec.Error
}

// TestWriteBatchOneFails: a batch of writes (claims and outcomes are such
// statements) whose one member fails commits none of them as a batch;
// each is written alone, so the others take effect, each answered as
// alone (its rows affected, its row read), and only the failing one gets
// an error.
func TestWriteBatchOneFails(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		q := openQueue(t, db, Config{Handler: answerAtOnce})
		enqueue(t, q, Envelope{ID: "m1"})
		enqueue(t, q, Envelope{ID: "m2"})
		ns, errs := writesOf(t, q,
			[]any{`UPDATE handoff_messages SET error = ? WHERE id = ?`, "one", "m1"},
			[]any{`UPDATE handoff_messages SET no_such_column = ? WHERE id = ?`, "bad", "m2"},
			[]any{`UPDATE handoff_messages SET error = ? WHERE id = ? RETURNING id`, "two", "m2"},
			[]any{`UPDATE handoff_messages SET error = ? WHERE id = ? RETURNING id`, "none", "nobody"},
			[]any{`UPDATE handoff_messages SET error = ? WHERE id = ?`, "none", "nobody"})
		if errs[1] == nil || errs[0] != nil || errs[2] != nil || errs[3] != nil || errs[4] != nil {
			t.Errorf("errors %v", errs)
		}
		if ns[0] != 1 || ns[2] != 1 || ns[3] != 0 || ns[4] != 0 {
			t.Errorf("answered %v, want 1, -, 1, 0, 0", ns)
		}
		if e1, e2 := errorOf(t, q, "m1"), errorOf(t, q, "m2"); e1 != "one" || e2 != "two" {
			t.Errorf("m1 %q, m2 %q", e1, e2)
		}
	})
}

// TestWriteBatchCut: a batch of writes whose connection is cut as it is
// sent takes no effect as a batch; each write is then written alone and
// answered as alone. A cut that lasts fails every write, each answered
// its error, and nothing is written.
func TestWriteBatchCut(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cuts    int64
		written bool
	}{
		{"once", 1, true},
		{"lasting", 100, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cut := &cutter{match: "UPDATE handoff_messages SET error = $1 WHERE id = $2"}
			q := tracedPostgres(t, Config{Handler: answerAtOnce}, cut)
			enqueue(t, q, Envelope{ID: "m1"})
			enqueue(t, q, Envelope{ID: "m2"})
			cut.left.Store(tc.cuts)
			ns, errs := writesOf(t, q,
				[]any{`UPDATE handoff_messages SET error = ? WHERE id = ?`, "one", "m1"},
				[]any{`UPDATE handoff_messages SET error = ? WHERE id = ? RETURNING id`, "two", "m2"})
			cut.left.Store(0)
			for i, want := range []string{"one", "two"} {
				id := []string{"m1", "m2"}[i]
				got := errorOf(t, q, id)
				if tc.written != (errs[i] == nil) || tc.written != (ns[i] == 1) || tc.written != (got == want) {
					t.Errorf("%s: answered %d, %v; its error column %q", id, ns[i], errs[i], got)
				}
			}
		})
	}
}
