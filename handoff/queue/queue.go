package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/agentgw/agentgw/internal/dbconn"
)

// Priorities, lowest to highest: a higher one runs first. Zero is
// PriorityMedium.
const (
	PriorityLow      = 1
	PriorityMedium   = 2
	PriorityHigh     = 3
	PriorityCritical = 4
)

// Envelope is what the queue knows of a message: what it needs to route,
// order, expire, retry and escalate it. The message itself is Payload,
// opaque here.
type Envelope struct {
	// ID is the message's id and its idempotency key: a message whose ID
	// the queue has seen is not queued again. Required.
	ID            string `json:"id"`
	TaskID        string `json:"task_id,omitempty"`
	CorrelationID string `json:"correlation_id,omitempty"`
	// Priority is PriorityLow … PriorityCritical; 0 is PriorityMedium.
	Priority int `json:"priority"`
	// ExpiresAt is when the message stops being worth running: one that
	// would start at or after it is EXPIRED instead. Zero: never.
	ExpiresAt time.Time `json:"expires_at,omitzero"`
	// RetryCount is how many times a failed run is tried again (with
	// backoff) before the message is escalated, falls back or is DEAD.
	RetryCount     int    `json:"retry_count,omitempty"`
	EscalateTo     string `json:"escalate_to,omitempty"`
	FallbackAction string `json:"fallback_action,omitempty"`
	// Recipient is for the Handler to route by.
	Recipient string          `json:"recipient,omitempty"`
	Payload   json.RawMessage `json:"payload,omitempty"`
	// Owner is who the message belongs to (package access): the caller
	// that sent it over the API, the owner of the message whose run sent
	// it, or the operator. A task is a task of one owner: the per-task
	// bound counts the messages of TaskID and Owner. "" is access.Operator.
	Owner string `json:"owner,omitempty"`
	// Hops is the message's place in the chain of messages caused by one
	// another: 1 for one that no message's run sent, the sending run's
	// message's Hops + 1 otherwise. 0 is 1.
	Hops int `json:"hops,omitempty"`
}

// Handler runs one message: delivers it to its recipient and returns the
// recipient's result. An error is a failed run, tried again up to the
// message's RetryCount, but for a *Refusal (the message may never run: it
// is DEAD at once) and an Unavailable error (the handler could not tell
// whether it may run: it is queued again, not counted). It must stop when
// ctx is done: the queue cancels it after Config.RunTimeout, and on a hard
// Stop.
type Handler func(ctx context.Context, env Envelope) (result json.RawMessage, err error)

// Status is where a message is.
type Status string

// The statuses. QUEUED is waiting to run (for the first time, or again
// after a failure or an interrupted run: Error then says why); RUNNING is
// in a Handler, or being escalated or falling back once its retries are
// spent; the others are final, and a message in one is never run again.
const (
	StatusQueued  Status = "QUEUED"
	StatusRunning Status = "RUNNING"
	// StatusDelivered: the handler handed the message on (MarkDelivered),
	// to a recipient that runs it elsewhere.
	StatusDelivered Status = "DELIVERED"
	// StatusCompleted: the handler ran it; Result is its result.
	StatusCompleted Status = "COMPLETED"
	// StatusFailed: its retries are spent, or it expired waiting for a
	// retry, and it was escalated (EscalatedTo names the new message) or
	// its fallback ran (FallbackRan, and Result is the fallback's result).
	StatusFailed Status = "FAILED"
	// StatusExpired: it would have started at or after its ExpiresAt:
	// before it ran, or, after a failed run, waiting for its retry, and
	// neither an escalation nor its fallback took it over (Error then
	// says how many runs it had and the last failure).
	StatusExpired Status = "EXPIRED"
	// StatusDead: its retries are spent and nothing took it over.
	StatusDead Status = "DEAD"
)

// Final reports whether s is a status a message never leaves.
func (s Status) Final() bool {
	switch s {
	case StatusDelivered, StatusCompleted, StatusFailed, StatusExpired, StatusDead:
		return true
	}
	return false
}

// Record is a message as the queue holds it: its envelope and what
// happened to it.
type Record struct {
	Envelope
	Status Status `json:"status"`
	// Result is the handler's result (COMPLETED, DELIVERED) or the
	// fallback's (FAILED with FallbackRan).
	Result json.RawMessage `json:"result,omitempty"`
	// Error is the last failure, or why the message is EXPIRED or DEAD.
	Error string `json:"error,omitempty"`
	// Code is why a message is DEAD before it ran: CodeLimit, or the
	// Code of the Refusal its Handler returned (its Fallback's, when that
	// refused to run it). "" else.
	Code string `json:"code,omitempty"`
	// Attempts counts the runs started, Failures the runs that failed
	// (returned an error, panicked or timed out), Interruptions the runs
	// cut off by their process stopping (a crash, a kill).
	Attempts      int `json:"attempts"`
	Failures      int `json:"failures"`
	Interruptions int `json:"interruptions,omitempty"`
	// EscalatedFrom is the message this one escalates; EscalatedTo the
	// message that took this one over.
	EscalatedFrom string `json:"escalated_from,omitempty"`
	EscalatedTo   string `json:"escalated_to,omitempty"`
	FallbackRan   bool   `json:"fallback_ran,omitempty"`
	// Seq orders messages as they were queued.
	Seq        int64     `json:"seq"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
	StartedAt  time.Time `json:"started_at,omitzero"`
	FinishedAt time.Time `json:"finished_at,omitzero"`
}

// CodeLimit is the Code of a message DEAD because queuing it would pass a
// bound of its task: Config.MaxHops or Config.MaxMessagesPerTask.
const CodeLimit = "HANDOFF_LIMIT"

// ErrNotFound is returned by Get for an id the queue has not seen.
var ErrNotFound = errors.New("queue: no message with that id")

// Config configures a Queue; zero values are the defaults. Handler,
// Escalate and Fallback are the handlers Start runs when it is given
// none: a queue built before what its handlers need (the gateway's, built
// before the runner its hub delivers through) gets them from Start
// instead (Handlers).
type Config struct {
	// Handler runs the messages; Start refuses to start without one (here
	// or in its Handlers).
	Handler Handler
	// Escalate makes the message that takes over one whose retries are
	// spent (or that expired waiting for one) and that names EscalateTo: the caller decides what
	// EscalateTo means. It returns nil to skip escalation (the chain goes
	// on to the fallback); an error is logged and does the same. The new
	// message's ID should be derived from the old one (EscalationID does),
	// so that an escalation repeated after a crash is not queued twice.
	// An ExpiresAt of the new message that has passed is dropped: it takes
	// over a message that ran out of time. nil: DefaultEscalate.
	Escalate func(ctx context.Context, env Envelope, lastErr error) (*Envelope, error)
	// Fallback runs the FallbackAction of a message whose retries are
	// spent and that was not escalated: the caller decides what the action
	// means. Its result is kept as the message's; on error, or with
	// Fallback nil, the message is DEAD. It may run again after a crash
	// in the middle of it.
	Fallback func(ctx context.Context, env Envelope, lastErr error) (json.RawMessage, error)
	// Workers is how many handlers run at once in this process (default
	// DefaultWorkers). A handler waiting on its model holds a worker but
	// no CPU, so the default is well above the core count.
	Workers int
	// FetchCooldown is the shortest time between two of River's fetches of
	// messages to run, and between two of its notifications of inserted
	// messages (default DefaultFetchCooldown, at least 1 ms, at most
	// PollInterval and 100 ms). A message queued to an idle queue waits for
	// at most this long before it is fetched; under load each fetch takes
	// up to the free workers' number of messages, so it also bounds
	// throughput to about Workers / FetchCooldown.
	FetchCooldown time.Duration
	// RunTimeout cancels a handler's context (default 10 minutes).
	RunTimeout time.Duration
	// Heartbeat is how often a run renews its lease while its process is
	// alive (default DefaultHeartbeat, 5 s). A run whose lease has not
	// been renewed for MissedHeartbeats heartbeats was interrupted (its
	// process died): any replica, or this process restarted, takes it
	// back, whatever RunTimeout is. Each replica also looks for such runs
	// every Heartbeat, and once when it starts.
	Heartbeat time.Duration
	// RescueAfter is when River's own rescuer takes back a job whose
	// process died: a backstop behind the heartbeat, which takes a run
	// back much sooner. It must exceed RunTimeout (default RunTimeout + 1
	// minute).
	RescueAfter time.Duration
	// MaxInterruptions is how many interrupted runs a message may have
	// before it is treated as failed for good, so that a message that
	// crashes its process is not run forever (default 3). Interruptions do
	// not count against RetryCount.
	MaxInterruptions int
	// Backoff is the wait before retry n (1, 2, …) of a failed run
	// (default 1s·2^(n-1), at most 5 minutes).
	Backoff func(n int) time.Duration
	// PollInterval is how often the queue looks for messages when nothing
	// told it of one (default 5 s). A message queued by this process
	// wakes it at once, on both databases; one queued by another replica
	// wakes it at once on Postgres (River's LISTEN/NOTIFY) and within
	// PollInterval on SQLite (a process sharing the file), where River's
	// notification table is read once per PollInterval. On both, it is
	// also the backstop for a notification missed (a dropped connection);
	// while River's client runs (there is work) it also fetches every
	// 100 ms at most, for a job whose insert notification River's
	// debouncing dropped.
	PollInterval time.Duration
	// Now is the clock of expiry and of the records' times (default
	// time.Now).
	Now func() time.Time
	// Logger logs failures and River's own messages (default discards).
	Logger *slog.Logger
	// MaxHops bounds the chain of messages caused by one another (a
	// message's Hops): one past it is DEAD, CodeLimit, when queued, and
	// never runs (default 10; negative: no bound).
	MaxHops int
	// MaxMessagesPerTask bounds the messages one owner's task holds: one
	// queued when its task holds as many is DEAD, CodeLimit, and never
	// runs (default 50; negative: no bound). Escalations count too.
	MaxMessagesPerTask int
	// OnLimit, when set, is called for each message queued DEAD at a
	// bound (for metrics); the queue also logs it at WARN.
	OnLimit func(env Envelope)
}

const (
	// DefaultWorkers and DefaultFetchCooldown are Config.Workers and
	// Config.FetchCooldown when zero (bench/README.md, "Hand-off
	// throughput", measured them).
	DefaultWorkers       = 32
	DefaultFetchCooldown = 5 * time.Millisecond
	// MinFetchCooldown is River's shortest fetch cooldown, and
	// MaxFetchCooldown the longest the queue takes (its busy fetch poll).
	MinFetchCooldown        = time.Millisecond
	MaxFetchCooldown        = busyFetchPoll
	defaultRunTimeout       = 10 * time.Minute
	defaultMaxInterruptions = 3
	defaultPollInterval     = 5 * time.Second
	// busyFetchPoll bounds River's fetch poll while its client runs: River
	// sends at most one insert notification per FetchCooldown, so a job
	// queued just after another's notification, whose fetch ran before it
	// committed, is told to nobody and waits for the next poll (one at a
	// time, 1-2% of the messages did: a p99 of ~1 s at a 1 s poll). The
	// poll costs nothing when there is no work: an idle queue stops River's
	// client (dormant.go); while it runs, it is one indexed fetch per poll.
	busyFetchPoll = 100 * time.Millisecond
	// DefaultHeartbeat is Config.Heartbeat when zero: a run whose
	// process died is taken back about 15 s later.
	DefaultHeartbeat = 5 * time.Second
	// MissedHeartbeats is how many heartbeats a run's lease lasts: a run
	// not renewed for that long is taken for interrupted.
	MissedHeartbeats = 3
	// sweepBatch bounds the interrupted runs taken back in one look.
	sweepBatch = 100
	// DefaultMaxHops and DefaultMaxMessagesPerTask are Config.MaxHops
	// and Config.MaxMessagesPerTask when zero.
	DefaultMaxHops            = 10
	DefaultMaxMessagesPerTask = 50
	maxBackoff                = 5 * time.Minute
	// hardStopWait bounds how long a Stop whose context is done waits for
	// the cancelled handlers to return.
	hardStopWait = 10 * time.Second
	// riverQueue is the River queue the messages are jobs of.
	riverQueue = "handoff"
	// spareAttempts is how many more attempts than 1+RetryCount River
	// allows a message's job: runs that the queue itself does not count
	// against RetryCount (interruptions, the queue's own database errors)
	// use River attempts too, and River discards a job that spends them.
	spareAttempts = 25
)

// DefaultBackoff is 1s·2^(n-1) for retry n, at most 5 minutes.
func DefaultBackoff(n int) time.Duration {
	if n < 1 {
		n = 1
	}
	if n > 9 {
		return maxBackoff
	}
	return min(time.Second<<(n-1), maxBackoff)
}

// escalationSpace is the namespace of EscalationID's name-based UUIDs.
var escalationSpace = uuid.MustParse("5a4e1f0c-3c1e-4f7e-9a43-2f3b7d0d6c11")

// EscalationID is the id of the message that escalates message id: a UUID
// derived from id, the same every time.
func EscalationID(id string) string {
	return uuid.NewSHA1(escalationSpace, []byte("escalate:"+id)).String()
}

// DefaultEscalate addresses a copy of env to env.EscalateTo, with the id
// EscalationID(env.ID) and no further EscalateTo (its FallbackAction
// stays). The copy is one hop further.
func DefaultEscalate(_ context.Context, env Envelope, _ error) (*Envelope, error) {
	next := env
	next.ID = EscalationID(env.ID)
	next.Recipient = env.EscalateTo
	next.EscalateTo = ""
	next.Hops = max(env.Hops, 1) + 1
	return &next, nil
}

// Queue delivers messages durably, at least once, running each to
// completion at most once, over a SQLite or PostgreSQL database shared by
// the replicas. See the package documentation.
type Queue struct {
	cfg      Config
	log      *slog.Logger
	b        backend
	stopping atomic.Bool
	// w wakes River's client on this process's inserts and counts its
	// looks for work.
	w *waker
	// enqueues gathers the Enqueues that arrive while a batch of them is
	// being written, for the next (group.go); writes, the same for the
	// claims and outcomes of runs (writes.go).
	enqueues batcher[*enqueueCall]
	writes   batcher[*writeCall]

	// running holds the ids of the messages run in this process: the
	// sweep leaves them alone, whatever their lease says.
	running sync.Map
	// working holds the ids of the River jobs this process's workers
	// are in (fetched, perhaps not yet claimed): the sweep of orphaned
	// jobs (sweepOrphans) leaves them alone.
	working sync.Map
	// riverMu guards River's client being started (riverOn) while the
	// queue is (started): an idle queue stops it (see dormant).
	riverMu   sync.Mutex
	riverWake chan struct{}
	started   bool
	riverOn   bool
	idleLooks int
	// fetchSeen is River's fetch count (waker.fetches) at the last look
	// that saw it move, or with every worker in use, fetchMoved when:
	// watchFetches's measure of a stalled client (stall.go).
	fetchSeen  int64
	fetchMoved time.Time
	// sweeping is the sweep loop's cancel and end, while it runs.
	mu         sync.Mutex
	stopSweep  context.CancelFunc
	sweepEnded chan struct{}
}

// backend is the Queue's database and River client, on SQLite or Postgres.
type backend interface {
	// conn is the pool, for statements outside a transaction.
	conn() dbconn.Conn
	// inTx runs fn in a transaction, committed when fn returns nil; fn
	// gets the transaction and a way to insert River jobs in it.
	inTx(ctx context.Context, fn func(tx dbconn.Conn, insert jobInserter) error) error
	// forUpdate is appended to a SELECT in a transaction that will update
	// the rows it read: Postgres's row lock ("" on SQLite, whose
	// transactions hold the file's write lock from their start).
	forUpdate() string
	// lockedRows runs the statements of qs in tx, in order, each once tx
	// holds, until it ends, the lock of the owner's task its key names
	// (none for ""), so that two transactions counting a task's messages
	// do not both insert the last one; it hands each statement's row to
	// scan, in order, and stops at the first error. On Postgres: each
	// after a transaction advisory lock, all in one round trip (each
	// statement sees the rows committed before its lock was taken, as it
	// is a statement of its own); on SQLite, whose transactions hold the
	// file's write lock from their start, the statements alone.
	lockedRows(ctx context.Context, tx dbconn.Conn, qs []lockedQuery, scan func(i int, r dbconn.Row) error) error
	// jobMessage is the SQL expression of the message id in the args of
	// River job j (its JSON: jsonb on Postgres, JSONB blobs on SQLite).
	jobMessage() string
	// riverTime is t as River's columns of times compare with it:
	// timestamptz on Postgres, River's text format on SQLite.
	riverTime(t time.Time) any
	// writeBatch runs the statements of calls in one transaction, each
	// on its own otherwise (writes.go).
	writeBatch(ctx context.Context, calls []*writeCall) error
	start(ctx context.Context) error
	stop(ctx context.Context) error
	stopAndCancel(ctx context.Context) error
}

// jobInserter inserts River jobs in a transaction, in one statement, and
// returns their ids in order.
type jobInserter func(ctx context.Context, jobs []river.InsertManyParams) ([]int64, error)

// insertJob inserts one job with insert and returns its id.
func insertJob(ctx context.Context, insert jobInserter, args deliverArgs, opts *river.InsertOpts) (int64, error) {
	ids, err := insert(ctx, []river.InsertManyParams{{Args: args, InsertOpts: opts}})
	if err != nil {
		return 0, err
	}
	return ids[0], nil
}

// riverBackend is a backend for River's driver of transactions TTx.
type riverBackend[TTx any] struct {
	client   *river.Client[TTx]
	pool     dbconn.Conn
	begin    func(ctx context.Context) (TTx, dbconn.Conn, error)
	commit   func(ctx context.Context, tx TTx) error
	rollback func(ctx context.Context, tx TTx) error
	lock     string
	// lockThen is lockedRows on Postgres (nil on SQLite).
	lockThen func(ctx context.Context, tx dbconn.Conn, qs []lockedQuery, scan func(i int, r dbconn.Row) error) error
	// argID is jobMessage; timeText, set on SQLite, is riverTime.
	argID    string
	timeText bool
	// writes is writeBatch.
	writes func(ctx context.Context, calls []*writeCall) error
	// inserted, when set, is called after a transaction that inserted a
	// job commits: SQLite's listener is woken (Postgres's NOTIFY needs
	// nothing).
	inserted func()
}

func (b *riverBackend[TTx]) conn() dbconn.Conn { return b.pool }
func (b *riverBackend[TTx]) writeBatch(ctx context.Context, calls []*writeCall) error {
	return b.writes(ctx, calls)
}
func (b *riverBackend[TTx]) forUpdate() string  { return b.lock }
func (b *riverBackend[TTx]) jobMessage() string { return b.argID }

func (b *riverBackend[TTx]) lockedRows(ctx context.Context, tx dbconn.Conn, qs []lockedQuery, scan func(i int, r dbconn.Row) error) error {
	if b.lockThen == nil {
		return lockedRowsEach(ctx, tx, qs, scan, nil)
	}
	return b.lockThen(ctx, tx, qs, scan)
}

// sqliteTimeLayout is how River's SQLite driver writes times (UTC, to the
// millisecond): its columns compare as text, so only this layout orders.
const sqliteTimeLayout = "2006-01-02 15:04:05.000"

func (b *riverBackend[TTx]) riverTime(t time.Time) any {
	if b.timeText {
		return t.UTC().Round(time.Millisecond).Format(sqliteTimeLayout)
	}
	return t
}

func (b *riverBackend[TTx]) inTx(ctx context.Context, fn func(tx dbconn.Conn, insert jobInserter) error) error {
	tx, c, err := b.begin(ctx)
	if err != nil {
		return fmt.Errorf("beginning a transaction: %w", err)
	}
	inserted := false
	insert := func(ctx context.Context, jobs []river.InsertManyParams) ([]int64, error) {
		res, err := b.client.InsertManyTx(ctx, tx, jobs)
		if err != nil {
			return nil, err
		}
		inserted = true
		ids := make([]int64, len(res))
		for i, r := range res {
			ids[i] = r.Job.ID
		}
		return ids, nil
	}
	if err := fn(c, insert); err != nil {
		_ = b.rollback(context.WithoutCancel(ctx), tx)
		return err
	}
	if err := b.commit(ctx, tx); err != nil {
		return fmt.Errorf("committing: %w", err)
	}
	if inserted && b.inserted != nil {
		b.inserted()
	}
	return nil
}

func (b *riverBackend[TTx]) start(ctx context.Context) error { return b.client.Start(ctx) }
func (b *riverBackend[TTx]) stop(ctx context.Context) error  { return b.client.Stop(ctx) }
func (b *riverBackend[TTx]) stopAndCancel(ctx context.Context) error {
	return b.client.StopAndCancel(ctx)
}

// NewSQLite returns a queue in the SQLite database db, after applying the
// migrations it lacks (River's and the queue's own). db must be the
// store's (sqlitestore.SQLite's DB), or opened as it is: WAL, a busy_timeout,
// and transactions begun IMMEDIATE (_txlock=immediate); every process
// sharing the file must open it so. The queue does not close db.
func NewSQLite(ctx context.Context, db *sql.DB, cfg Config) (*Queue, error) {
	q, err := newQueue(cfg)
	if err != nil {
		return nil, err
	}
	if err := migrateSQLite(ctx, db, q.log); err != nil {
		return nil, fmt.Errorf("queue: migrating the SQLite database: %w", err)
	}
	driver := &wakeDriver[*sql.Tx]{Driver: riversqlite.New(db), w: q.w,
		listener: func(*riverdriver.GetListenenerParams) riverdriver.Listener {
			return &sqliteListener{db: db, w: q.w, poll: q.cfg.PollInterval}
		}}
	client, err := river.NewClient(driver, q.riverConfig())
	if err != nil {
		return nil, fmt.Errorf("queue: River client: %w", err)
	}
	q.b = &riverBackend[*sql.Tx]{
		client: client,
		inserted: func() {
			q.w.wake()
			q.wakeRiver()
		},
		pool: dbconn.SQL(db),
		begin: func(ctx context.Context) (*sql.Tx, dbconn.Conn, error) {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				return nil, nil, err
			}
			return tx, dbconn.SQL(tx), nil
		},
		writes: func(ctx context.Context, calls []*writeCall) error {
			return sqliteWrites(ctx, db, calls)
		},
		commit:   func(_ context.Context, tx *sql.Tx) error { return tx.Commit() },
		rollback: func(_ context.Context, tx *sql.Tx) error { return tx.Rollback() },
		argID:    `(j.args ->> '$.id')`,
		timeText: true,
	}
	return q, nil
}

// NewPostgres returns a queue in the PostgreSQL database of pool (the
// store's, pgstore.Postgres's Pool), after applying the migrations it lacks
// (River's and the queue's own). Its tables are in pool's search_path.
// The queue does not close pool.
func NewPostgres(ctx context.Context, pool *pgxpool.Pool, cfg Config) (*Queue, error) {
	q, err := newQueue(cfg)
	if err != nil {
		return nil, err
	}
	if err := migratePostgres(ctx, pool, q.log); err != nil {
		return nil, fmt.Errorf("queue: migrating the PostgreSQL database: %w", err)
	}
	client, err := river.NewClient(&wakeDriver[pgx.Tx]{Driver: riverpgxv5.New(pool), w: q.w}, q.riverConfig())
	if err != nil {
		return nil, fmt.Errorf("queue: River client: %w", err)
	}
	q.b = &riverBackend[pgx.Tx]{
		client: client,
		pool:   dbconn.PGX(pool),
		begin: func(context.Context) (pgx.Tx, dbconn.Conn, error) {
			tx := &lazyTx{pool: pool}
			return tx, pgTx{Conn: dbconn.PGX(tx), tx: tx}, nil
		},
		writes: func(ctx context.Context, calls []*writeCall) error {
			return pgWrites(ctx, pool, calls)
		},
		commit:   func(ctx context.Context, tx pgx.Tx) error { return tx.Commit(ctx) },
		rollback: func(ctx context.Context, tx pgx.Tx) error { return tx.Rollback(ctx) },
		lock:     " FOR UPDATE",
		lockThen: pgLockedRows,
		argID:    `(j.args ->> 'id')`,
		inserted: q.wakeRiver,
	}
	return q, nil
}

// Handlers are what the workers run (Config.Handler, Config.Escalate and
// Config.Fallback), given to Start.
type Handlers struct {
	// Handler runs the messages (required).
	Handler Handler
	// Escalate is Config.Escalate; nil: DefaultEscalate.
	Escalate func(ctx context.Context, env Envelope, lastErr error) (*Envelope, error)
	// Fallback is Config.Fallback; nil: none (the message is DEAD).
	Fallback func(ctx context.Context, env Envelope, lastErr error) (json.RawMessage, error)
}

// newQueue checks cfg and fills in its defaults.
func newQueue(cfg Config) (*Queue, error) {
	if cfg.Escalate == nil {
		cfg.Escalate = DefaultEscalate
	}
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.RunTimeout <= 0 {
		cfg.RunTimeout = defaultRunTimeout
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = DefaultHeartbeat
	}
	if cfg.RescueAfter <= 0 {
		cfg.RescueAfter = cfg.RunTimeout + time.Minute
	}
	if cfg.RescueAfter <= cfg.RunTimeout {
		return nil, fmt.Errorf("queue: RescueAfter (%s) must exceed RunTimeout (%s)", cfg.RescueAfter, cfg.RunTimeout)
	}
	if cfg.MaxInterruptions <= 0 {
		cfg.MaxInterruptions = defaultMaxInterruptions
	}
	if cfg.Backoff == nil {
		cfg.Backoff = DefaultBackoff
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = defaultPollInterval
	}
	if cfg.FetchCooldown <= 0 {
		cfg.FetchCooldown = DefaultFetchCooldown
	}
	cfg.FetchCooldown = min(max(cfg.FetchCooldown, MinFetchCooldown), cfg.PollInterval, busyFetchPoll)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxHops == 0 {
		cfg.MaxHops = DefaultMaxHops
	}
	if cfg.MaxMessagesPerTask == 0 {
		cfg.MaxMessagesPerTask = DefaultMaxMessagesPerTask
	}
	return &Queue{cfg: cfg, log: cfg.Logger, w: newWaker(), riverWake: make(chan struct{}, 1)}, nil
}

// riverConfig is the River client's configuration: one queue of
// cfg.Workers workers running the deliver job.
func (q *Queue) riverConfig() *river.Config {
	workers := river.NewWorkers()
	river.AddWorker(workers, &worker{q: q})
	return &river.Config{
		Queues:               map[string]river.QueueConfig{riverQueue: {MaxWorkers: q.cfg.Workers}},
		Workers:              workers,
		JobTimeout:           q.cfg.RunTimeout,
		RescueStuckJobsAfter: q.cfg.RescueAfter,
		FetchPollInterval:    min(q.cfg.PollInterval, busyFetchPoll),
		FetchCooldown:        q.cfg.FetchCooldown,
		Logger:               riverLogger(q.log), // its INFO is the gateway's DEBUG
	}
}

// Start starts running messages with h, in the background, until Stop:
// h replaces the handlers of Config when h.Handler is not nil. The queue
// enqueues and reads before it starts; what it holds waits for the start.
// Its ctx bounds starting only: cancelling it later does not stop the
// queue. It must not be called while the queue runs (after Stop it may).
// It takes back at once the runs whose lease has passed (their process
// died), and looks for such runs every Heartbeat until Stop. A queue with
// no message QUEUED or RUNNING starts dormant (dormant.go): River's client
// starts with the first work, so that a gateway that receives no hand-off
// never starts it (its start-up, its SQLite connections and their memory:
// bench/README.md, "What an idle gateway holds").
func (q *Queue) Start(ctx context.Context, h Handlers) error {
	if h.Handler != nil {
		q.cfg.Handler, q.cfg.Escalate, q.cfg.Fallback = h.Handler, h.Escalate, h.Fallback
		if q.cfg.Escalate == nil {
			q.cfg.Escalate = DefaultEscalate
		}
	}
	if q.cfg.Handler == nil {
		return errors.New("queue: starting: no Handler (Config.Handler or Start's)")
	}
	q.stopping.Store(false)
	busy, err := q.busy(ctx)
	if err != nil {
		return fmt.Errorf("queue: starting: %w", err)
	}
	q.riverMu.Lock()
	if busy {
		err = q.b.start(context.WithoutCancel(ctx))
	} else {
		q.w.dormant.Add(1)
	}
	q.started, q.riverOn, q.idleLooks = err == nil, busy && err == nil, 0
	q.fetchSeen, q.fetchMoved = q.w.fetches.Load(), time.Now()
	q.riverMu.Unlock()
	if err != nil {
		return fmt.Errorf("queue: starting: %w", err)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.stopSweep == nil {
		sctx, cancel := context.WithCancel(context.Background())
		q.stopSweep, q.sweepEnded = cancel, make(chan struct{})
		go q.sweepLoop(sctx, q.sweepEnded)
	}
	return nil
}

// endSweep stops the sweep loop and waits for it.
func (q *Queue) endSweep() {
	q.mu.Lock()
	stop, ended := q.stopSweep, q.sweepEnded
	q.stopSweep, q.sweepEnded = nil, nil
	q.mu.Unlock()
	if stop != nil {
		stop()
		<-ended
	}
}

// Stop stops taking messages and waits for the running handlers to
// return. When ctx is done first, it cancels them and waits a little
// more: each cancelled message goes back to the queue as it was (QUEUED,
// the run not counted as a failure), for this process after a restart or
// for another replica. A message whose handler does not return even then
// is taken back after RescueAfter.
func (q *Queue) Stop(ctx context.Context) error {
	q.stopping.Store(true)
	q.endSweep()
	q.riverMu.Lock()
	defer q.riverMu.Unlock()
	on := q.riverOn
	q.started, q.riverOn = false, false
	if !on { // dormant: nothing runs
		return nil
	}
	err := q.b.stop(ctx)
	if err == nil || ctx.Err() == nil {
		if err != nil {
			return fmt.Errorf("queue: stopping: %w", err)
		}
		return nil
	}
	hard, cancel := context.WithTimeout(context.WithoutCancel(ctx), hardStopWait)
	defer cancel()
	if err := q.b.stopAndCancel(hard); err != nil {
		return fmt.Errorf("queue: stopping, handlers cancelled: %w", err)
	}
	return nil
}

// Enqueue queues env and returns its record, and whether it is new: a new
// message's record as it was queued (QUEUED, never RUNNING however fast a
// worker takes it). A message whose ID the queue has seen is not queued again: Enqueue returns
// its record as it is (whatever the new envelope says, its Owner too: the
// caller compares), and false. A new message past a bound of its task
// (Config.MaxHops, Config.MaxMessagesPerTask) is kept DEAD with Code
// CodeLimit, and never runs.
func (q *Queue) Enqueue(ctx context.Context, env Envelope) (Record, bool, error) {
	return q.enqueue(ctx, env, "")
}

// jobOpts are the River options of the job that delivers env.
func (q *Queue) jobOpts(env Envelope) *river.InsertOpts {
	return &river.InsertOpts{
		Queue:       riverQueue,
		Priority:    PriorityCritical + 1 - env.Priority, // River's 1 is its highest
		MaxAttempts: 1 + env.RetryCount + q.cfg.MaxInterruptions + spareAttempts,
	}
}

// overHops says why env passes MaxHops ("" when it does not).
func (q *Queue) overHops(env Envelope) string {
	if maxHops := q.cfg.MaxHops; maxHops > 0 && env.Hops > maxHops {
		return fmt.Sprintf("%s: message %s is hop %d of a chain of hand-offs caused by one another; handoffs.maxHops is %d",
			CodeLimit, env.ID, env.Hops, maxHops)
	}
	return ""
}

// taskFull says why env, just inserted DEAD in tx because its owner's task
// held MaxMessagesPerTask messages, passes that bound: the count, made in
// tx under the task's lock, less env itself and the later messages of the
// task that tx inserted after it.
func (q *Queue) taskFull(ctx context.Context, tx dbconn.Conn, env Envelope, later int) (string, error) {
	var n int64
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM handoff_messages WHERE owner = ? AND task_id = ?`,
		env.Owner, env.TaskID).Scan(&n); err != nil {
		return "", fmt.Errorf("counting the messages of task %s: %w", env.TaskID, err)
	}
	return fmt.Sprintf("%s: task %s holds %d hand-off messages already; handoffs.maxMessagesPerTask is %d",
		CodeLimit, env.TaskID, n-1-int64(later), q.cfg.MaxMessagesPerTask), nil
}

// check validates env and fills in its defaults.
func check(env *Envelope) error {
	switch {
	case env.ID == "":
		return errors.New("queue: a message needs an ID")
	case env.Priority < 0 || env.Priority > PriorityCritical:
		return fmt.Errorf("queue: message %s: priority %d is not %d (low) to %d (critical)", env.ID, env.Priority, PriorityLow, PriorityCritical)
	case env.RetryCount < 0:
		return fmt.Errorf("queue: message %s: negative retry count %d", env.ID, env.RetryCount)
	}
	if env.Priority == 0 {
		env.Priority = PriorityMedium
	}
	if env.Hops <= 0 {
		env.Hops = 1
	}
	if env.Owner == "" {
		env.Owner = operator
	}
	if len(env.Payload) > 0 && !json.Valid(env.Payload) {
		return fmt.Errorf("queue: message %s: the payload is not JSON", env.ID)
	}
	return nil
}

// columns are the columns of a Record, in scanRecord's order.
const columns = `seq, id, task_id, correlation_id, recipient, priority, expires_at, retry_count,
	escalate_to, fallback_action, payload, escalated_from, status, result, error, attempts, failures,
	interruptions, escalated_to, fallback_ran, created_at, updated_at, started_at, finished_at, owner, hops, code`

// Get returns the record of message id, or ErrNotFound.
func (q *Queue) Get(ctx context.Context, id string) (Record, error) {
	rec, err := scanRecord(q.b.conn().QueryRow(ctx, `SELECT `+columns+` FROM handoff_messages WHERE id = ?`, id))
	if dbconn.IsNoRows(err) {
		return Record{}, ErrNotFound
	}
	if err != nil {
		return Record{}, fmt.Errorf("queue: reading message %s: %w", id, err)
	}
	return rec, nil
}

// Task returns the records of every message of task taskID, in the order
// they were queued (an escalation after the message it escalates).
func (q *Queue) Task(ctx context.Context, taskID string) ([]Record, error) {
	rs, err := q.b.conn().Query(ctx, `SELECT `+columns+` FROM handoff_messages WHERE task_id = ? ORDER BY seq`, taskID)
	if err != nil {
		return nil, fmt.Errorf("queue: reading task %s: %w", taskID, err)
	}
	defer rs.Close()
	var out []Record
	for rs.Next() {
		rec, err := scanRecord(rs)
		if err != nil {
			return nil, fmt.Errorf("queue: reading task %s: %w", taskID, err)
		}
		out = append(out, rec)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("queue: reading task %s: %w", taskID, err)
	}
	return out, nil
}

// scanRecord reads the columns of one record, then into extra the
// columns the query selected after them.
func scanRecord(r dbconn.Row, extra ...any) (Record, error) {
	var rec Record
	var priority, retries, attempts, failures, interruptions, fallback, hops int64
	var expires, created, updated, started, finished int64
	var payload, result, status string
	dest := []any{&rec.Seq, &rec.ID, &rec.TaskID, &rec.CorrelationID, &rec.Recipient, &priority, &expires, &retries,
		&rec.EscalateTo, &rec.FallbackAction, &payload, &rec.EscalatedFrom, &status, &result, &rec.Error,
		&attempts, &failures, &interruptions, &rec.EscalatedTo, &fallback, &created, &updated, &started, &finished,
		&rec.Owner, &hops, &rec.Code}
	err := r.Scan(append(dest, extra...)...)
	if err != nil {
		return Record{}, err
	}
	rec.Priority, rec.RetryCount = int(priority), int(retries)
	rec.Attempts, rec.Failures, rec.Interruptions = int(attempts), int(failures), int(interruptions)
	rec.FallbackRan = fallback != 0
	rec.Hops = int(hops)
	rec.Status = Status(status)
	if payload != "" {
		rec.Payload = json.RawMessage(payload)
	}
	if result != "" {
		rec.Result = json.RawMessage(result)
	}
	rec.ExpiresAt, rec.CreatedAt, rec.UpdatedAt = fromUnixNano(expires), fromUnixNano(created), fromUnixNano(updated)
	rec.StartedAt, rec.FinishedAt = fromUnixNano(started), fromUnixNano(finished)
	return rec, nil
}

// operator is access.Operator, the owner of a message that names none:
// the queue imports nothing of the project's but its database helpers.
const operator = "operator"

// unixNano and fromUnixNano are the tables' times (internal/dbconn).
func unixNano(t time.Time) int64     { return dbconn.UnixNano(t) }
func fromUnixNano(n int64) time.Time { return dbconn.FromUnixNano(n) }
