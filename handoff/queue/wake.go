package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river/riverdriver"
)

// waker wakes the queue's River client when this process wrote something
// for it (a job inserted, a retry made available), and counts the client's
// looks for work, for the tests and for anyone measuring the idle cost.
type waker struct {
	// ch wakes the SQLite listener: a notification was committed.
	ch chan struct{}
	// fetches counts River's fetches of available jobs.
	fetches atomic.Int64
	// looks counts the SQLite listener's reads of River's notification
	// table; wakes the reads an in-process commit asked for.
	looks atomic.Int64
	wakes atomic.Int64
	// dormant and woken count River's client stopped while idle (or not
	// started: a queue with nothing to do starts dormant) and started
	// again for work.
	dormant atomic.Int64
	woken   atomic.Int64
	// stalls counts the looks that found River's client fetching nothing
	// while jobs waited (watchFetches).
	stalls atomic.Int64
}

func newWaker() *waker { return &waker{ch: make(chan struct{}, 1)} }

// wake asks the listener to read the notification table now.
func (w *waker) wake() {
	w.wakes.Add(1)
	select {
	case w.ch <- struct{}{}:
	default:
	}
}

// wakeDriver is River's driver for the queue's database, whose executor
// counts fetches and wakes the listener after a transaction that sent a
// notification commits. On SQLite its listener is sqliteListener.
type wakeDriver[TTx any] struct {
	riverdriver.Driver[TTx]
	w *waker
	// listener, when set, replaces the driver's (SQLite).
	listener func(params *riverdriver.GetListenenerParams) riverdriver.Listener
}

// GetExecutor is the driver's executor, counting and waking.
func (d *wakeDriver[TTx]) GetExecutor() riverdriver.Executor {
	return &wakeExec{Executor: d.Driver.GetExecutor(), w: d.w}
}

// GetListener is sqliteListener on SQLite, the driver's own elsewhere.
func (d *wakeDriver[TTx]) GetListener(params *riverdriver.GetListenenerParams) riverdriver.Listener {
	if d.listener != nil {
		return d.listener(params)
	}
	return d.Driver.GetListener(params)
}

// wakeExec is an executor that counts fetches and wakes the listener
// after a notification is written outside a transaction.
type wakeExec struct {
	riverdriver.Executor
	w *waker
}

func (e *wakeExec) Begin(ctx context.Context) (riverdriver.ExecutorTx, error) {
	tx, err := e.Executor.Begin(ctx)
	if err != nil {
		return nil, err
	}
	t := &wakeTx{ExecutorTx: tx, w: e.w}
	t.root = t
	return t, nil
}

func (e *wakeExec) JobGetAvailable(ctx context.Context, p *riverdriver.JobGetAvailableParams) (*riverdriver.JobGetAvailableResult, error) {
	e.w.fetches.Add(1)
	return e.Executor.JobGetAvailable(ctx, p)
}

func (e *wakeExec) NotifyMany(ctx context.Context, p *riverdriver.NotifyManyParams) error {
	err := e.Executor.NotifyMany(ctx, p)
	if err == nil {
		e.w.wake()
	}
	return err
}

// wakeTx is a transaction of wakeExec: a notification written in it wakes
// the listener once the outermost transaction commits.
type wakeTx struct {
	riverdriver.ExecutorTx
	w        *waker
	root     *wakeTx
	notified bool
}

func (t *wakeTx) Begin(ctx context.Context) (riverdriver.ExecutorTx, error) {
	tx, err := t.ExecutorTx.Begin(ctx)
	if err != nil {
		return nil, err
	}
	return &wakeTx{ExecutorTx: tx, w: t.w, root: t.root}, nil
}

func (t *wakeTx) JobGetAvailable(ctx context.Context, p *riverdriver.JobGetAvailableParams) (*riverdriver.JobGetAvailableResult, error) {
	t.w.fetches.Add(1)
	return t.ExecutorTx.JobGetAvailable(ctx, p)
}

func (t *wakeTx) NotifyMany(ctx context.Context, p *riverdriver.NotifyManyParams) error {
	err := t.ExecutorTx.NotifyMany(ctx, p)
	if err == nil {
		t.root.notified = true
	}
	return err
}

func (t *wakeTx) Commit(ctx context.Context) error {
	err := t.ExecutorTx.Commit(ctx)
	if err == nil && t.root == t && t.notified {
		t.w.wake()
	}
	return err
}

// sqliteListener replaces River's SQLite listener, which reads River's
// notification table (river_notification, SQLite's stand-in for LISTEN)
// every 50 ms whether anything was written or not. It reads it when this
// process committed a notification (waker: a message queued, a retry made
// available, the leader resigning) and otherwise every poll, for what
// other processes sharing the file write: an idle process reads it once
// per poll (Config.PollInterval), one indexed query.
type sqliteListener struct {
	db   *sql.DB
	w    *waker
	poll time.Duration

	mu        sync.Mutex
	connected bool
	lastID    int64
	topics    map[string]int64
	pending   []notification
}

type notification struct {
	id             int64
	topic, payload string
}

// notificationBatch bounds the notifications read at once.
const notificationBatch = 256

func (l *sqliteListener) Connect(ctx context.Context) error {
	var last int64
	if err := l.db.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM river_notification`).Scan(&last); err != nil {
		return fmt.Errorf("reading the last notification: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.connected {
		return errors.New("connection already established")
	}
	l.connected, l.lastID, l.topics, l.pending = true, last, map[string]int64{}, nil
	return nil
}

func (l *sqliteListener) Close(context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.connected, l.topics, l.pending = false, nil, nil
	return nil
}

func (l *sqliteListener) Listen(ctx context.Context, topic string) error {
	var last int64
	if err := l.db.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM river_notification`).Scan(&last); err != nil {
		return fmt.Errorf("reading the last notification: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.connected {
		return errors.New("listener is not connected")
	}
	if _, ok := l.topics[topic]; !ok {
		l.topics[topic] = max(l.lastID, last)
	}
	return nil
}

func (l *sqliteListener) Unlisten(_ context.Context, topic string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.topics, topic)
	return nil
}

func (l *sqliteListener) Ping(ctx context.Context) error { return l.db.PingContext(ctx) }
func (l *sqliteListener) Schema() string                 { return "" }
func (l *sqliteListener) SetAfterConnectExec(string)     {}

// WaitForNotification returns the next notification of a topic listened
// to, reading the table when woken and every poll.
func (l *sqliteListener) WaitForNotification(ctx context.Context) (*riverdriver.Notification, error) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, err := l.next(ctx)
		if err != nil {
			return nil, err
		}
		if n != nil {
			return n, nil
		}
		if timer == nil {
			timer = time.NewTimer(l.poll)
		} else {
			timer.Reset(l.poll)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-l.w.ch:
		case <-timer.C:
		}
	}
}

// next returns a pending notification, reading the table when none is.
func (l *sqliteListener) next(ctx context.Context) (*riverdriver.Notification, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.connected {
		return nil, errors.New("listener is not connected")
	}
	if len(l.pending) == 0 && len(l.topics) > 0 {
		topics := make([]string, 0, len(l.topics))
		for t := range l.topics {
			topics = append(topics, t)
		}
		list, _ := json.Marshal(topics)
		l.w.looks.Add(1)
		rs, err := l.db.QueryContext(ctx, `SELECT id, payload, topic FROM river_notification
			WHERE id > ? AND topic IN (SELECT value FROM json_each(?)) ORDER BY id LIMIT ?`,
			l.lastID, string(list), notificationBatch)
		if err != nil {
			return nil, fmt.Errorf("reading notifications: %w", err)
		}
		for rs.Next() {
			var n notification
			if err := rs.Scan(&n.id, &n.payload, &n.topic); err != nil {
				rs.Close()
				return nil, fmt.Errorf("reading notifications: %w", err)
			}
			l.pending = append(l.pending, n)
		}
		rs.Close()
		if err := rs.Err(); err != nil {
			return nil, fmt.Errorf("reading notifications: %w", err)
		}
		if len(l.pending) > 0 {
			l.lastID = l.pending[len(l.pending)-1].id
		}
	}
	for len(l.pending) > 0 {
		n := l.pending[0]
		l.pending = l.pending[1:]
		if start, ok := l.topics[n.topic]; ok && n.id > start {
			return &riverdriver.Notification{Topic: n.topic, Payload: n.payload}, nil
		}
	}
	return nil, nil
}
