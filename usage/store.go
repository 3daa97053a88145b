package usage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentgw/agentgw/internal/dbconn"
)

// Record is what one request cost.
type Record struct {
	// At is when the request ended.
	At time.Time
	// RequestID is the request's id, "" off HTTP.
	RequestID string
	// Source is where the run came from (observe.SourceHTTP, ...).
	Source string
	// Key is the caller's stored key id, else the identity of its static
	// token (access.Caller.Owner, a digest), "" without inbound auth.
	Key string
	// User and Team are the stored key's user and team.
	User, Team string
	// Agent and Model are the agent routed and the last model called.
	Agent, Model string
	// In and Out are the tokens; Estimated is set when any of the
	// request's model calls sent no usage and the gateway counted.
	In, Out   int64
	Estimated bool
	// Cost is in nano-dollars (1e-9 $), from the price table.
	Cost int64
}

// Store keeps the records and the budget counters in the gateway's
// database (SQLite or PostgreSQL), in tables of its own. It is safe for
// concurrent use, and by several processes on one database.
type Store struct {
	pool dbconn.Conn
	inTx dbconn.InTx
	// lazyCommit, run first in Reserve's transaction, lets its commit
	// return before the database's log is on disk (PostgreSQL's
	// synchronous_commit off for that transaction; nothing on SQLite).
	lazyCommit string
	// serial, on SQLite, lets one of this process's transactions at a
	// time wait for the file's write lock: several waiting at once poll it
	// with SQLite's busy handler, which sleeps, and a budget's throughput
	// falls to a fraction (other processes still wait on the file's lock).
	serial *sync.Mutex
	// pruneQuery deletes a batch of the oldest records before a time
	// (Prune): on PostgreSQL it skips the rows another replica's prune
	// has locked, so that replicas pruning at once share the work rather
	// than wait for, or deadlock with, each other.
	pruneQuery string
}

// tx runs fn in a transaction, one at a time in this process on SQLite.
func (s *Store) tx(ctx context.Context, fn func(tx dbconn.Conn) error) error {
	if s.serial != nil {
		s.serial.Lock()
		defer s.serial.Unlock()
	}
	return s.inTx(ctx, fn)
}

// NewSQLite returns a store in the SQLite database db (the gateway
// store's: WAL, busy_timeout, transactions begun IMMEDIATE), after
// applying the migrations it lacks. It does not close db.
func NewSQLite(ctx context.Context, db *sql.DB, log *slog.Logger) (*Store, error) {
	if err := schema.MigrateSQLite(ctx, db, dbconn.MigrateOptions{Log: log}); err != nil {
		return nil, fmt.Errorf("usage: migrating the SQLite database: %w", err)
	}
	return &Store{pool: dbconn.SQL(db), inTx: dbconn.TxSQL(db), serial: &sync.Mutex{},
		pruneQuery: `DELETE FROM usage_records WHERE id IN (SELECT id FROM usage_records WHERE at < ? ORDER BY at LIMIT ?)`}, nil
}

// NewPostgres returns a store in the PostgreSQL database of pool, after
// applying the migrations it lacks. It does not close pool.
func NewPostgres(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) (*Store, error) {
	if err := schema.MigratePostgres(ctx, pool, dbconn.MigrateOptions{Log: log}); err != nil {
		return nil, fmt.Errorf("usage: migrating the PostgreSQL database: %w", err)
	}
	return &Store{pool: dbconn.PGX(pool), inTx: dbconn.TxPGX(pool), lazyCommit: `SET LOCAL synchronous_commit TO OFF`,
		pruneQuery: `DELETE FROM usage_records WHERE id IN (SELECT id FROM usage_records WHERE at < ? ORDER BY at LIMIT ? FOR UPDATE SKIP LOCKED)`}, nil
}

// recordCols are the columns Write inserts, in its order.
const recordCols = `at, request_id, source, key_id, user_name, team, agent, model, tokens_in, tokens_out, estimated, cost`

// insertRows is the most rows one INSERT carries (12 parameters each).
const insertRows = 200

// Write stores recs and adds each of deltas to its counter, in one
// transaction.
func (s *Store) Write(ctx context.Context, recs []Record, deltas map[string]int64) error {
	return s.tx(ctx, func(tx dbconn.Conn) error {
		for rest := recs; len(rest) > 0; {
			n := min(len(rest), insertRows)
			args := make([]any, 0, n*12)
			for _, r := range rest[:n] {
				est := 0
				if r.Estimated {
					est = 1
				}
				args = append(args, dbconn.UnixNano(r.At), r.RequestID, r.Source, r.Key, r.User, r.Team, r.Agent, r.Model,
					r.In, r.Out, est, r.Cost)
			}
			q := `INSERT INTO usage_records (` + recordCols + `) VALUES ` + dbconn.Values(n, 12)
			if _, err := tx.Exec(ctx, q, args...); err != nil {
				return fmt.Errorf("inserting usage records: %w", err)
			}
			rest = rest[n:]
		}
		// In the counters' order, as Reserve takes them: two writers never
		// wait for each other's rows crosswise.
		for _, c := range slices.Sorted(maps.Keys(deltas)) {
			d := deltas[c]
			if d == 0 {
				continue
			}
			if _, err := tx.Exec(ctx, `UPDATE usage_counters SET spent = CASE WHEN spent + ? < 0 THEN 0 ELSE spent + ? END WHERE counter = ?`,
				d, d, c); err != nil {
				return fmt.Errorf("settling usage counter: %w", err)
			}
		}
		return nil
	})
}

// errOverBudget ends Reserve's transaction when a charge does not fit.
var errOverBudget = errors.New("over budget")

// Charge is an amount reserved on a counter that must stay within Limit.
type Charge struct {
	// Counter names the counter and its window (counterKey).
	Counter string
	Amount  int64
	Limit   int64
	// Expires is the end of the counter's window.
	Expires time.Time
}

// Reserve adds each charge's amount to its counter if every counter stays
// within its limit, atomically: it returns -1 and the spent amounts after
// the charges when all fit, else the index of the first charge that did
// not (nothing is then charged). Counters are taken in charges' order:
// give them sorted by Counter.
//
// On PostgreSQL the transaction commits without waiting for its log to
// reach the disk (synchronous_commit off, for it alone): a reservation
// costs about 0.5 ms instead of 4 (BenchmarkReserve). Concurrent
// reservations are exactly as serialized; what a crash of the database
// server itself can lose is the reservations of its last few hundred
// milliseconds, which then no longer count against their budgets.
func (s *Store) Reserve(ctx context.Context, charges []Charge) (failed int, spent []int64, err error) {
	failed = -1
	spent = make([]int64, len(charges))
	errFull := errOverBudget
	err = s.tx(ctx, func(tx dbconn.Conn) error {
		if s.lazyCommit != "" {
			if _, err := tx.Exec(ctx, s.lazyCommit); err != nil {
				return fmt.Errorf("reserving on usage counters: %w", err)
			}
		}
		for i, c := range charges {
			if c.Amount > c.Limit {
				failed = i
				return errFull
			}
			// One statement: the row is made at the amount, or the amount
			// added while it fits; no row comes back when it does not.
			err := tx.QueryRow(ctx, `INSERT INTO usage_counters (counter, spent, expires) VALUES (?, ?, ?)
ON CONFLICT (counter) DO UPDATE SET spent = usage_counters.spent + excluded.spent
WHERE usage_counters.spent + excluded.spent <= ? RETURNING spent`,
				c.Counter, c.Amount, dbconn.UnixNano(c.Expires), c.Limit).Scan(&spent[i])
			switch {
			case dbconn.IsNoRows(err):
				failed = i
				return errFull
			case err != nil:
				return fmt.Errorf("reserving on usage counter: %w", err)
			}
		}
		return nil
	})
	if failed >= 0 {
		return failed, nil, nil
	}
	if err != nil {
		return -1, nil, err
	}
	return -1, spent, nil
}

// Spent is the counter's spent amount, 0 when it has none.
func (s *Store) Spent(ctx context.Context, counter string) (int64, error) {
	var n int64
	err := s.pool.QueryRow(ctx, `SELECT spent FROM usage_counters WHERE counter = ?`, counter).Scan(&n)
	if dbconn.IsNoRows(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("reading usage counter: %w", err)
	}
	return n, nil
}

// Expire deletes the counters whose window ended before now.
func (s *Store) Expire(ctx context.Context, now time.Time) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM usage_counters WHERE expires < ?`, dbconn.UnixNano(now)); err != nil {
		return fmt.Errorf("deleting expired usage counters: %w", err)
	}
	return nil
}

// Prune deletes at most limit of the records older than before, oldest
// first, in one statement, and returns how many it deleted. It never
// touches the budget counters (usage_counters): they are kept until their
// window ends (Expire), whatever the records' retention.
func (s *Store) Prune(ctx context.Context, before time.Time, limit int) (int64, error) {
	var n int64
	err := s.tx(ctx, func(tx dbconn.Conn) error {
		var err error
		n, err = tx.Exec(ctx, s.pruneQuery, dbconn.UnixNano(before), limit)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("pruning usage records: %w", err)
	}
	return n, nil
}

// Dimensions a summary groups by.
const (
	ByKey   = "key"
	ByUser  = "user"
	ByTeam  = "team"
	ByAgent = "agent"
	ByModel = "model"
)

// byColumn is the column of each dimension.
var byColumn = map[string]string{ByKey: "key_id", ByUser: "user_name", ByTeam: "team", ByAgent: "agent", ByModel: "model"}

// ValidBy reports whether by is a dimension summaries group by.
func ValidBy(by string) bool { _, ok := byColumn[by]; return ok }

// Query chooses the records a summary adds up.
type Query struct {
	// By is the dimension: ByKey, ByUser, ByTeam, ByAgent or ByModel.
	By string
	// Since is the earliest record's time.
	Since time.Time
	// Key, when set, keeps only that key's records.
	Key string
}

// Row is the usage of one value of a summary's dimension.
type Row struct {
	// Value is the dimension's value ("" for records without one).
	Value     string `json:"value"`
	Requests  int64  `json:"requests"`
	TokensIn  int64  `json:"tokensIn"`
	TokensOut int64  `json:"tokensOut"`
	// Estimated counts the requests whose tokens the gateway estimated.
	Estimated int64 `json:"estimated"`
	// Cost is in dollars, from the price table at the time of each request.
	Cost float64 `json:"cost"`
}

// MaxRows bounds a summary's rows.
const MaxRows = 1000

// Summary adds up the records q chooses, a row per value of q.By, in the
// order of the values, at most MaxRows.
func (s *Store) Summary(ctx context.Context, q Query) ([]Row, error) {
	col, ok := byColumn[q.By]
	if !ok {
		return nil, fmt.Errorf("usage: cannot group by %q", q.By)
	}
	var where strings.Builder
	args := []any{dbconn.UnixNano(q.Since)}
	where.WriteString(`at >= ?`)
	if q.Key != "" {
		where.WriteString(` AND key_id = ?`)
		args = append(args, q.Key)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+col+`, COUNT(*), CAST(SUM(tokens_in) AS BIGINT), CAST(SUM(tokens_out) AS BIGINT),
	CAST(SUM(estimated) AS BIGINT), CAST(SUM(cost) AS BIGINT)
FROM usage_records WHERE `+where.String()+` GROUP BY `+col+` ORDER BY `+col+fmt.Sprintf(` LIMIT %d`, MaxRows), args...)
	if err != nil {
		return nil, fmt.Errorf("summing usage: %w", err)
	}
	defer rows.Close()
	out := []Row{}
	for rows.Next() {
		var r Row
		var cost int64
		if err := rows.Scan(&r.Value, &r.Requests, &r.TokensIn, &r.TokensOut, &r.Estimated, &cost); err != nil {
			return nil, fmt.Errorf("summing usage: %w", err)
		}
		r.Cost = float64(cost) / 1e9
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("summing usage: %w", err)
	}
	return out, nil
}
