package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentgw/agentgw/internal/pgtest"
	"github.com/agentgw/agentgw/store/sqlitestore"
)

// burstPosters is how many goroutines queue a burst at once (the bench's
// -concurrency).
const burstPosters = 50

// BenchmarkBurst queues b.N messages from burstPosters goroutines at once
// to a started queue with the default Workers and FetchCooldown, whose
// handler answers at once, and waits until every one is COMPLETED: the
// queue's own share of bench's "hand-offs/s, posted by 50 at once" row,
// without HTTP or a run. msgs/s is b.N over that time; on PostgreSQL,
// stmts/msg counts the statements (pgx queries and batches, River's
// included; each a round trip) sent on the pool per message. With -v, the
// statements are listed by count.
func BenchmarkBurst(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		s, err := sqlitestore.Open(filepath.Join(b.TempDir(), "queue.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = s.Close() })
		q, err := NewSQLite(context.Background(), s.DB(), burstConfig(b))
		if err != nil {
			b.Fatal(err)
		}
		burst(b, q, func() int64 { return completedSQL(b, s.DB()) }, nil)
	})
	b.Run("postgres", func(b *testing.B) {
		db := pgtest.Schema(b)
		cfg, err := pgxpool.ParseConfig(db)
		if err != nil {
			b.Fatal(err)
		}
		cfg.MaxConns = 16 // pgstore's default
		tr := &stmtCounter{seen: map[string]int{}}
		cfg.ConnConfig.Tracer = tr
		pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(pool.Close)
		q, err := NewPostgres(context.Background(), pool, burstConfig(b))
		if err != nil {
			b.Fatal(err)
		}
		burst(b, q, func() int64 {
			var n int64
			if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM handoff_messages WHERE status = 'COMPLETED'`).Scan(&n); err != nil {
				b.Fatal(err)
			}
			return n
		}, tr)
	})
}

// burstConfig is the gateway's defaults, a handler answering at once.
func burstConfig(b *testing.B) Config {
	return Config{
		Handler: answerAtOnce,
		Logger:  slog.New(slog.NewTextHandler(b.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
}

// answerAtOnce is a handler whose run ends at once.
func answerAtOnce(context.Context, Envelope) (json.RawMessage, error) {
	return json.RawMessage(`{}`), nil
}

// completedSQL counts the COMPLETED messages of a SQLite queue.
func completedSQL(b *testing.B, db *sql.DB) int64 {
	var n int64
	if err := db.QueryRow(`SELECT count(*) FROM handoff_messages WHERE status = 'COMPLETED'`).Scan(&n); err != nil {
		b.Fatal(err)
	}
	return n
}

// burst runs BenchmarkBurst's measure on q; completed counts the messages
// done, tr (nil on SQLite) the statements.
func burst(b *testing.B, q *Queue, completed func() int64, tr *stmtCounter) {
	ctx := context.Background()
	if err := q.Start(ctx, Handlers{}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = q.Stop(ctx)
	})
	// One first, uncounted: River's client and the pool are warm.
	if _, _, err := q.Enqueue(ctx, Envelope{ID: uuid.NewString(), TaskID: "warm"}); err != nil {
		b.Fatal(err)
	}
	for completed() < 1 {
		time.Sleep(time.Millisecond)
	}
	ids := make([]string, b.N)
	for i := range ids {
		ids[i] = uuid.NewString()
	}
	tr.reset()
	b.ResetTimer()
	start := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range burstPosters {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(b.N); i = next.Add(1) - 1 {
				// A task per message, as bench posts them.
				env := Envelope{ID: ids[i], TaskID: "task-" + ids[i], Recipient: "bench", Payload: json.RawMessage(`{"message":{}}`)}
				if _, _, err := q.Enqueue(ctx, env); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	for completed() < int64(b.N)+1 {
		time.Sleep(5 * time.Millisecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
	if tr != nil {
		// The count of the completions read while waiting is left out.
		b.ReportMetric(float64(tr.total())/float64(b.N), "stmts/msg")
		if testing.Verbose() {
			b.Log(tr.String(b.N))
		}
	}
}

// stmtCounter is a pgx tracer counting the statements sent, by text, and
// the batches (one round trip each); the completion counts of burst's
// wait are left out.
type stmtCounter struct {
	mu   sync.Mutex
	seen map[string]int
	n    int64
}

var (
	_ pgx.QueryTracer = (*stmtCounter)(nil)
	_ pgx.BatchTracer = (*stmtCounter)(nil)
)

func (c *stmtCounter) count(sql string) {
	if strings.Contains(sql, "status = 'COMPLETED'") {
		return
	}
	c.mu.Lock()
	c.seen[sql]++
	c.n++
	c.mu.Unlock()
}

// TraceQueryStart implements pgx.QueryTracer.
func (c *stmtCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	c.count(d.SQL)
	return ctx
}

// TraceQueryEnd implements pgx.QueryTracer.
func (c *stmtCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TraceBatchStart implements pgx.BatchTracer: a batch is one round trip.
func (c *stmtCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	var parts []string
	for _, q := range d.Batch.QueuedQueries {
		parts = append(parts, q.SQL)
	}
	c.count("BATCH[" + strings.Join(parts, "; ") + "]")
	return ctx
}

// TraceBatchQuery implements pgx.BatchTracer.
func (c *stmtCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

// TraceBatchEnd implements pgx.BatchTracer.
func (c *stmtCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

func (c *stmtCounter) reset() {
	if c == nil {
		return
	}
	c.mu.Lock()
	clear(c.seen)
	c.n = 0
	c.mu.Unlock()
}

func (c *stmtCounter) total() int64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// String lists the statements by count per message, most first.
func (c *stmtCounter) String(msgs int) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	type kv struct {
		sql string
		n   int
	}
	var all []kv
	for s, n := range c.seen {
		all = append(all, kv{s, n})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].n > all[j].n })
	var sb strings.Builder
	for _, e := range all {
		one := strings.Join(strings.Fields(e.sql), " ")
		fmt.Fprintf(&sb, "%6.2f/msg  %s\n", float64(e.n)/float64(msgs), one[:min(160, len(one))])
	}
	return sb.String()
}
