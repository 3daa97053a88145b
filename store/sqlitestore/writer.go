package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// The store's writes (Put, Swap, Take, Claim, Release, Finish, Sweep) go
// through one writer per store (soak finding F4): a goroutine with a
// connection of its own that takes the writes queued meanwhile, in the
// order they came, and commits them in one transaction, each caller
// answered once that commit is done. Before, every write was a
// transaction of its own on one of the write pool's connections, each
// waiting for SQLite's one write lock in SQLite's busy handler, which
// polls with growing sleeps (up to 100 ms) and serves whoever polls at
// the right moment, not who waited longest: under load (2,000 clients
// reconnecting after a restart) the writes that had waited longest kept
// losing to new ones until their deadline ended, and each write paid for
// a lock, a transaction and a commit of its own. Now a write waits in a
// FIFO queue, behind at most the writes queued before it, and the lock is
// taken once per batch.
//
// A write waits for the lock as long as its caller's context allows
// (a context without a deadline: writeWait), rather than busy_timeout:
// the writer keeps trying while another connection or process holds the
// lock. A write whose context ends before its batch takes it is not
// applied and answers with the context's error; once taken it runs to its
// outcome (a statement and a commit, milliseconds, never a wait for the
// lock), so its caller's answer is always what happened.
//
// A write that fails inside a batch (its statement's error) answers with
// its error; the batch is rolled back and the others are run again in a
// new transaction, so one write's failure is not another's. A failed
// commit fails every write of the batch with its error: none of them is
// applied.

// maxBatch bounds the writes of one transaction, so that a batch holds
// the lock for a bounded time.
const maxBatch = 256

// writerBusySlice is the writer connection's busy_timeout: how long one
// attempt to begin a transaction waits for another connection's lock
// before the writer looks at its queue again (drops the writes whose
// context ended) and tries again.
const writerBusySlice = 100 * time.Millisecond

// errClosed answers the writes queued when the store closes.
var errClosed = errors.New("the store is closed")

// A write's states: queued until the writer takes it into a batch or its
// caller gives up (dropped); taken writes are answered by the writer.
const (
	opQueued int32 = iota
	opTaken
	opDropped
)

// writeOp is one write: run is its statements, on the batch's transaction.
type writeOp struct {
	ctx   context.Context
	since time.Time // when it was queued
	run   func(ctx context.Context, tx *sql.Tx) error
	state atomic.Int32
	err   error // its outcome, set before done is closed
	done  chan struct{}
}

// writer runs the store's writes on its one connection, batched.
type writer struct {
	db   *sql.DB // one connection
	busy time.Duration
	ops  chan *writeOp
	stop chan struct{}
	done chan struct{}
	once sync.Once

	// queued counts the writes in the queue or a batch, not yet
	// answered (a test waits for writes to queue with it).
	queued atomic.Int64
}

// newWriter starts the writer on db, which must hold at most one
// connection; busy bounds the wait for the lock of a write whose context
// has no deadline. close stops it.
func newWriter(db *sql.DB, busy time.Duration) *writer {
	w := &writer{db: db, busy: busy, ops: make(chan *writeOp, maxBatch), stop: make(chan struct{}), done: make(chan struct{})}
	go w.loop()
	return w
}

// do runs fn as one write of a batch and returns its outcome, or ctx's
// error when ctx ends before the writer took it (fn was not applied).
func (w *writer) do(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	op := &writeOp{ctx: ctx, since: time.Now(), run: fn, done: make(chan struct{})}
	select {
	case w.ops <- op:
	case <-ctx.Done():
		return ctx.Err()
	case <-w.stop:
		return errClosed
	}
	w.queued.Add(1)
	defer w.queued.Add(-1)
	select {
	case <-op.done:
		return op.err
	case <-ctx.Done():
		if op.state.CompareAndSwap(opQueued, opDropped) {
			return ctx.Err()
		}
		<-op.done // taken: its outcome comes at once
		return op.err
	}
}

// close stops the writer once its batch is done; the writes still
// queued answer errClosed.
func (w *writer) close() error {
	w.once.Do(func() { close(w.stop) })
	<-w.done
	return w.db.Close()
}

// finish answers op with err.
func finish(op *writeOp, err error) {
	op.err = err
	close(op.done)
}

// loop takes the queued writes and commits them, batch by batch, until
// close.
func (w *writer) loop() {
	defer close(w.done)
	var pending []*writeOp
	for {
		if len(pending) == 0 {
			select {
			case op := <-w.ops:
				pending = append(pending, op)
			case <-w.stop:
				w.drop(nil)
				return
			}
		}
		tx, err := w.begin(&pending)
		if err != nil {
			w.drop(pending)
			if errors.Is(err, errClosed) {
				return
			}
			pending = nil
			continue
		}
		pending = w.batch(tx, w.take(pending))
	}
}

// drop answers pending, and the writes still queued, with errClosed
// when the writer stops, or with the error of a begin that failed.
func (w *writer) drop(pending []*writeOp) {
	closed := false
	select {
	case <-w.stop:
		closed = true
	default:
	}
	for _, op := range pending {
		if op.state.Load() == opTaken || op.state.CompareAndSwap(opQueued, opTaken) {
			finish(op, op.err)
		}
	}
	if !closed {
		return
	}
	for {
		select {
		case op := <-w.ops:
			if op.state.CompareAndSwap(opQueued, opTaken) {
				finish(op, errClosed)
			}
		default:
			return
		}
	}
}

// begin begins a transaction (BEGIN IMMEDIATE: the write lock), trying
// again while another connection holds the lock and a write of pending
// still wants it. A write whose context ended, or that has no deadline
// and waited busy, leaves pending answered with its error; begin fails
// (with pending's writes' err set) when none is left or on an error
// other than the lock's.
func (w *writer) begin(pending *[]*writeOp) (*sql.Tx, error) {
	for {
		tx, err := w.db.BeginTx(context.Background(), nil)
		if err == nil {
			return tx, nil
		}
		busy := isBusy(err)
		if !busy {
			err = fmt.Errorf("beginning a transaction: %w", err)
		}
		now := time.Now()
		left := (*pending)[:0]
		for _, op := range *pending {
			switch {
			case !busy:
				op.err = err
				left = append(left, op)
			case op.ctx.Err() != nil:
				if op.state.Load() == opTaken || op.state.CompareAndSwap(opQueued, opTaken) {
					finish(op, op.ctx.Err())
				}
			case op.state.Load() == opDropped:
			case !hasDeadline(op.ctx) && now.Sub(op.since) >= w.busy:
				if op.state.Load() == opTaken || op.state.CompareAndSwap(opQueued, opTaken) {
					finish(op, fmt.Errorf("waiting %s for the write lock: %w", w.busy, err))
				}
			default:
				left = append(left, op)
			}
		}
		*pending = left
		if !busy {
			return nil, err
		}
		// The writes queued meanwhile join the wait.
		w.fill(pending)
		if len(*pending) == 0 {
			select {
			case <-w.stop:
				return nil, errClosed
			default:
			}
			return nil, errors.New("no write left")
		}
		select {
		case <-w.stop:
			for _, op := range *pending {
				op.err = errClosed
			}
			return nil, errClosed
		default:
		}
	}
}

// fill moves the writes queued now into pending, up to maxBatch.
func (w *writer) fill(pending *[]*writeOp) {
	for len(*pending) < maxBatch {
		select {
		case op := <-w.ops:
			*pending = append(*pending, op)
		default:
			return
		}
	}
}

// take fills pending and marks its writes taken, in order: those whose
// caller gave up are left out.
func (w *writer) take(pending []*writeOp) []*writeOp {
	w.fill(&pending)
	out := pending[:0]
	for _, op := range pending {
		if op.state.Load() == opTaken || op.state.CompareAndSwap(opQueued, opTaken) {
			out = append(out, op)
		}
	}
	return out
}

// batch runs ops on tx and commits. A write that fails is answered with
// its error and the transaction rolled back: the writes after it are
// returned, with those before it, to run again in the next transaction.
func (w *writer) batch(tx *sql.Tx, ops []*writeOp) (again []*writeOp) {
	ctx := context.Background()
	for i, op := range ops {
		if err := op.run(ctx, tx); err != nil {
			_ = tx.Rollback()
			finish(op, err)
			return append(ops[:i:i], ops[i+1:]...)
		}
	}
	err := tx.Commit()
	if err != nil {
		// A COMMIT that failed may leave the transaction open on the
		// connection, where database/sql no longer sees it.
		_, _ = w.db.ExecContext(ctx, `ROLLBACK`)
		err = fmt.Errorf("committing: %w", err)
	}
	for _, op := range ops {
		finish(op, err)
	}
	return nil
}

// isBusy reports SQLite's "database is locked": another connection holds
// the write lock.
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// hasDeadline reports whether ctx has a deadline.
func hasDeadline(ctx context.Context) bool {
	_, ok := ctx.Deadline()
	return ok
}
