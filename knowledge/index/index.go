package index

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentgw/agentgw/internal/dbconn"
	"github.com/agentgw/agentgw/store"
	"github.com/agentgw/agentgw/store/pgstore"
	"github.com/agentgw/agentgw/store/sqlitestore"
)

// Options configures an Index; zero values are the defaults.
type Options struct {
	// Tokenizer splits chunks and queries into terms (default Words). An
	// index must keep one Tokenizer: changing it calls for re-indexing
	// (DropKB, then Replace every file).
	Tokenizer Tokenizer
	// Embedder, when set, gives each chunk a vector as it is indexed and
	// each query one as it is searched: Search then fuses the lexical and
	// the vector rankings. Without it the index is lexical only.
	Embedder Embedder
	// BruteForceLimit is the most chunks whose vectors a query compares
	// all of (default DefaultBruteForceLimit); over it, only the vectors
	// of the lexical ranking's first VectorCandidates chunks are compared.
	BruteForceLimit int
	// VectorCandidates is how many of the lexical ranking's chunks are
	// compared by vector when the knowledge bases hold more than
	// BruteForceLimit chunks, and how deep each ranking goes into the
	// fusion (default DefaultVectorCandidates).
	VectorCandidates int
	// Ranking, when set, replaces DefaultRanking: the weights of the
	// lexical ranking, applied as a query is ranked (the index keeps no
	// weight, so changing them needs no re-indexing).
	Ranking *Ranking
	// Expand, when set, gives the terms a query term is also looked up
	// as, weighing Ranking.Expanded (a vocabulary bridge from a
	// developer's words to a code's, see knowledge/eval): at most
	// maxExpansionsPerTerm of each term's are used, maxExpansions in all.
	// Experimental: knowledge/kb does not set it.
	Expand func(term string) []string
	// Now is the clock of the updated times (default time.Now).
	Now func() time.Time
	// MaxGlobs bounds the path globs of a query (default DefaultMaxGlobs)
	// and MaxGlobLen the bytes of each (default DefaultMaxGlobLen): a
	// query over them is ErrBadQuery, so that what a search costs follows
	// the knowledge base, not the caller.
	MaxGlobs   int
	MaxGlobLen int
	// Logger logs the migrations applied (default: none).
	Logger *slog.Logger
	// PostingsCacheBytes bounds the memory of the postings cache: what
	// each posting of the terms many chunks hold adds to its chunk's
	// score (13 bytes a posting), kept so that the next search naming
	// them reads and decodes none of them (see postingsCache). Default
	// DefaultPostingsCacheBytes; negative: no cache.
	PostingsCacheBytes int64
}

// Defaults of Options.
const (
	DefaultBruteForceLimit  = 5000
	DefaultVectorCandidates = 100
	DefaultMaxGlobs         = 64
	DefaultMaxGlobLen       = 256
	// DefaultPostingsCacheBytes holds the scores of about 24 terms each
	// in every chunk of a 100,000-chunk base, or of 50 each in half of
	// them.
	DefaultPostingsCacheBytes = 32 << 20
)

// Index is the chunk index of the knowledge bases, in tables of its own in
// the gateway's database (see the package doc). It is safe for concurrent
// use, by several goroutines and by several processes on one database:
// writers of one knowledge base take turns (its kb_bases row is locked for
// the transaction), searches read a snapshot and never wait for them.
type Index struct {
	pool dbconn.Conn
	// inTx runs fn in a read-write transaction, committed when fn returns
	// nil.
	inTx func(ctx context.Context, fn func(tx dbconn.Conn) error) error
	// inWriteTx is inTx for the writes of files, with bulk inserts.
	inWriteTx func(ctx context.Context, fn func(tx writeTx) error) error
	// snapshot runs fn in a read-only transaction that sees one state of
	// the database.
	snapshot func(ctx context.Context, fn func(c dbconn.Conn) error) error
	opts     Options
	rank     rankParams
	dialect  dialect
	// onFile, when set (tests), is called for each file name a query's
	// path globs examine.
	onFile func()
	// onSearch, when set (tests, benchmarks), is given what each search
	// read.
	onSearch func(searchStats)
	// cache is nil when Options.PostingsCacheBytes is negative.
	cache *postingsCache
	// cacheMinDF is defaultCacheMinDF but in tests.
	cacheMinDF int64
	// warmer runs a warm-up of the postings cache (maybeWarm): on a
	// goroutine of its own, or in line or not at all (nil) in tests.
	warmer func(warm func())
	// onWarm, when set (tests, benchmarks), is given what each warm-up
	// did; onWarmTerm is called before a warm-up reads each term (tests).
	onWarm     func(warmStats, error)
	onWarmTerm func()
}

// Open returns an index in the database of the gateway's store st, a
// *sqlitestore.SQLite or a *pgstore.Postgres (a memory store has no database:
// open an SQLite file for the index then).
func Open(ctx context.Context, st store.Store, opts Options) (*Index, error) {
	switch s := st.(type) {
	case *sqlitestore.SQLite:
		ix, err := OpenSQLite(ctx, s.DB(), opts)
		if err != nil {
			return nil, err
		}
		// Searches read on the store's read pool, so that they never
		// wait for a connection behind writers queued for SQLite's one
		// write lock (soak finding F4: "searching: taking a connection:
		// context deadline exceeded" under load).
		rdb := s.ReadDB()
		ix.snapshot = func(ctx context.Context, fn func(c dbconn.Conn) error) error {
			return sqliteSnapshot(ctx, rdb, fn)
		}
		return ix, nil
	case *pgstore.Postgres:
		return OpenPostgres(ctx, s.Pool(), opts)
	}
	return nil, fmt.Errorf("index: the store %T has no database to keep an index in", st)
}

// OpenSQLite returns an index in the SQLite database db, after applying
// the migrations it lacks. db must be the gateway store's (sqlitestore.SQLite's
// DB), or opened as it is: WAL, a busy_timeout, and transactions begun
// IMMEDIATE (_txlock=immediate). The index does not close db.
func OpenSQLite(ctx context.Context, db *sql.DB, opts Options) (*Index, error) {
	if err := schema.MigrateSQLite(ctx, db, dbconn.MigrateOptions{Log: opts.Logger}); err != nil {
		return nil, fmt.Errorf("index: migrating the SQLite database: %w", err)
	}
	ix, err := newIndex(opts)
	if err != nil {
		return nil, err
	}
	ix.pool = dbconn.SQL(db)
	ix.inTx = dbconn.TxSQL(db)
	ix.inWriteTx = sqliteWriteTx(db)
	ix.snapshot = func(ctx context.Context, fn func(c dbconn.Conn) error) error {
		return sqliteSnapshot(ctx, db, fn)
	}
	return ix, nil
}

// sqliteSnapshot runs fn in a deferred transaction on a connection of its
// own: db's BeginTx would take the write lock (BEGIN IMMEDIATE), a plain
// BEGIN reads a WAL snapshot beside the writer.
func sqliteSnapshot(ctx context.Context, db *sql.DB, fn func(c dbconn.Conn) error) error {
	c, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("taking a connection: %w", err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, `BEGIN`); err != nil {
		return fmt.Errorf("beginning a read: %w", err)
	}
	ferr := fn(dbconn.SQL(c))
	if _, err := c.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`); err != nil {
		// A connection left in a transaction must not go back to the
		// pool: ErrBadConn makes database/sql close it.
		_ = c.Raw(func(any) error { return driver.ErrBadConn })
		if ferr == nil {
			ferr = fmt.Errorf("ending a read: %w", err)
		}
	}
	return ferr
}

// OpenPostgres returns an index in the PostgreSQL database of pool (the
// gateway store's, pgstore.Postgres's Pool), after applying the migrations
// it lacks. Its tables are in pool's search_path. The index does not close
// pool.
func OpenPostgres(ctx context.Context, pool *pgxpool.Pool, opts Options) (*Index, error) {
	if err := schema.MigratePostgres(ctx, pool, dbconn.MigrateOptions{Log: opts.Logger}); err != nil {
		return nil, fmt.Errorf("index: migrating the PostgreSQL database: %w", err)
	}
	ix, err := newIndex(opts)
	if err != nil {
		return nil, err
	}
	ix.dialect.pg = true
	ix.pool = dbconn.PGX(pool)
	ix.inTx = dbconn.TxPGX(pool)
	ix.inWriteTx = pgxWriteTx(pool)
	ix.snapshot = func(ctx context.Context, fn func(c dbconn.Conn) error) error {
		tx, err := pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
		if err != nil {
			return fmt.Errorf("beginning a read: %w", err)
		}
		defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
		return fn(dbconn.PGX(tx))
	}
	return ix, nil
}

func newIndex(opts Options) (*Index, error) {
	rank := DefaultRanking()
	if opts.Ranking != nil {
		if err := opts.Ranking.check(); err != nil {
			return nil, fmt.Errorf("index: %w", err)
		}
		rank = *opts.Ranking
	}
	if opts.Tokenizer == nil {
		opts.Tokenizer = Words
	}
	if opts.BruteForceLimit <= 0 {
		opts.BruteForceLimit = DefaultBruteForceLimit
	}
	if opts.VectorCandidates <= 0 {
		opts.VectorCandidates = DefaultVectorCandidates
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxGlobs <= 0 {
		opts.MaxGlobs = DefaultMaxGlobs
	}
	if opts.MaxGlobLen <= 0 {
		opts.MaxGlobLen = DefaultMaxGlobLen
	}
	ix := &Index{opts: opts, rank: rank.params(), cacheMinDF: defaultCacheMinDF, warmer: func(warm func()) { go warm() }}
	switch {
	case opts.PostingsCacheBytes == 0:
		ix.cache = newPostingsCache(DefaultPostingsCacheBytes)
	case opts.PostingsCacheBytes > 0:
		ix.cache = newPostingsCache(opts.PostingsCacheBytes)
	}
	return ix, nil
}

// Optimize refreshes the planner's statistics and, on Postgres, vacuums
// the index's tables, which lets a term's postings be read from the index
// alone (an index-only scan needs the pages marked all-visible; autovacuum
// gets there too, later). An indexer calls it after indexing a commit; it
// is safe beside searches and writes, and slow only after large changes.
func (ix *Index) Optimize(ctx context.Context) error {
	stmts := []string{`PRAGMA optimize`}
	if ix.dialect.pg {
		stmts = []string{`VACUUM (ANALYZE) kb_postings, kb_terms, kb_chunks, kb_files, kb_bases`}
	}
	for _, q := range stmts {
		if _, err := ix.pool.Exec(ctx, q); err != nil {
			return fmt.Errorf("index: optimizing: %w", err)
		}
	}
	return nil
}

// Stats describes a knowledge base's index.
type Stats struct {
	// KB is the knowledge base's id.
	KB string
	// Files and Chunks count what is indexed; Tokens sums the chunks'
	// lengths in terms.
	Files, Chunks, Tokens int
	// LastCommit is what SetMeta last recorded, "" before.
	LastCommit string
	// Updated is when the index of the base last changed (UTC), zero
	// when it never did.
	Updated time.Time
}

const statsColumns = `name, files, chunks, tokens, last_commit, updated_at`

func scanStats(r dbconn.Row) (Stats, error) {
	var s Stats
	var files, chunks, tokens, updated int64
	if err := r.Scan(&s.KB, &files, &chunks, &tokens, &s.LastCommit, &updated); err != nil {
		return Stats{}, err
	}
	s.Files, s.Chunks, s.Tokens = int(files), int(chunks), int(tokens)
	if updated != 0 {
		s.Updated = time.Unix(0, updated).UTC()
	}
	return s, nil
}

// Stats returns the counts of the knowledge base kb: zero ones, with no
// error, for a base that was never indexed.
func (ix *Index) Stats(ctx context.Context, kb string) (Stats, error) {
	s, err := scanStats(ix.pool.QueryRow(ctx, `SELECT `+statsColumns+` FROM kb_bases WHERE name = ?`, kb))
	if dbconn.IsNoRows(err) {
		return Stats{KB: kb}, nil
	}
	if err != nil {
		return Stats{}, fmt.Errorf("index: reading the stats of %s: %w", kb, err)
	}
	return s, nil
}

// List returns the stats of every indexed knowledge base, by id.
func (ix *Index) List(ctx context.Context) ([]Stats, error) {
	rs, err := ix.pool.Query(ctx, `SELECT `+statsColumns+` FROM kb_bases ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("index: listing the knowledge bases: %w", err)
	}
	defer rs.Close()
	var out []Stats
	for rs.Next() {
		s, err := scanStats(rs)
		if err != nil {
			return nil, fmt.Errorf("index: listing the knowledge bases: %w", err)
		}
		out = append(out, s)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("index: listing the knowledge bases: %w", err)
	}
	return out, nil
}

// SetMeta records commit as the last indexed commit of kb (an indexer
// calls it after the commit's files are replaced).
func (ix *Index) SetMeta(ctx context.Context, kb, commit string) error {
	if kb == "" {
		return errors.New("index: the knowledge base id is empty")
	}
	_, err := ix.pool.Exec(ctx, `INSERT INTO kb_bases (name, last_commit, updated_at) VALUES (?, ?, ?)
ON CONFLICT (name) DO UPDATE SET last_commit = excluded.last_commit, updated_at = excluded.updated_at`,
		kb, commit, ix.opts.Now().UnixNano())
	if err != nil {
		return fmt.Errorf("index: recording commit %s of %s: %w", commit, kb, err)
	}
	return nil
}

// FileHashes returns the content hash of each indexed file of kb, by file
// name: an indexer compares them with a commit's to Replace what changed
// and Delete what is gone.
func (ix *Index) FileHashes(ctx context.Context, kb string) (map[string]string, error) {
	rs, err := ix.pool.Query(ctx, `SELECT f.name, f.hash FROM kb_files f JOIN kb_bases b ON b.id = f.kb_id WHERE b.name = ?`, kb)
	if err != nil {
		return nil, fmt.Errorf("index: reading the files of %s: %w", kb, err)
	}
	defer rs.Close()
	out := map[string]string{}
	for rs.Next() {
		var name, hash string
		if err := rs.Scan(&name, &hash); err != nil {
			return nil, fmt.Errorf("index: reading the files of %s: %w", kb, err)
		}
		out[name] = hash
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("index: reading the files of %s: %w", kb, err)
	}
	return out, nil
}

// DropKB deletes the whole index of kb.
func (ix *Index) DropKB(ctx context.Context, kb string) error {
	err := ix.inTx(ctx, func(tx dbconn.Conn) error {
		var id int64
		err := tx.QueryRow(ctx, `SELECT id FROM kb_bases WHERE name = ?`, kb).Scan(&id)
		if dbconn.IsNoRows(err) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, q := range []string{
			`DELETE FROM kb_postings WHERE kb_id = ?`,
			`DELETE FROM kb_terms WHERE kb_id = ?`,
			`DELETE FROM kb_chunks WHERE file_id IN (SELECT id FROM kb_files WHERE kb_id = ?)`,
			`DELETE FROM kb_files WHERE kb_id = ?`,
			`DELETE FROM kb_bases WHERE id = ?`,
		} {
			if _, err := tx.Exec(ctx, q, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("index: dropping %s: %w", kb, err)
	}
	return nil
}
