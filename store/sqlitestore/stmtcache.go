package sqlitestore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"reflect"
)

// Statement cache. modernc.org/sqlite compiles a statement's SQL on every
// Exec and Query that database/sql passes it (sqlite3_prepare, then
// finalize): in a burst of hand-offs on SQLite, parsing was about half of
// the process's CPU, most of it for statements whose text never changes
// (River's, the queue's). The store's write pool opens its connections
// through cachingConn, which keeps each connection's prepared statements
// by their text and runs a statement seen before without compiling it
// again: the driver resets a prepared statement after each use (an Exec's
// end, a Rows' Close), so it is reused as database/sql reuses a Stmt.
//
// A statement whose Rows are still open when the same text runs again on
// the connection (a query inside the loop over another's rows) runs
// uncached. The cache holds at most stmtCacheSize statements per
// connection; the least recently used is finalized to make room. SQLite
// recompiles a prepared statement by itself when the schema changed
// (sqlite3_prepare_v2).

// stmtCacheSize bounds the prepared statements kept per connection.
const stmtCacheSize = 64

// cachingConnector opens connections of drv (modernc.org/sqlite's driver,
// as registered: sqliteDriver) on dsn, each with a statement cache.
type cachingConnector struct {
	dsn string
	drv driver.Driver
}

// Connect implements driver.Connector.
func (c cachingConnector) Connect(context.Context) (driver.Conn, error) {
	dc, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	inner, ok := dc.(innerConn)
	if !ok {
		_ = dc.Close()
		return nil, errors.New("store: the SQLite driver's connection lacks an interface of database/sql")
	}
	return &cachingConn{innerConn: inner, stmts: map[string]*cachedStmt{}}, nil
}

// Driver implements driver.Connector.
func (c cachingConnector) Driver() driver.Driver { return c.drv }

// innerConn is what cachingConn needs of the driver's connection.
type innerConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// innerStmt is what cachingConn needs of the driver's statement.
type innerStmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

// cachingConn is a connection of the driver with its prepared statements
// kept by text. database/sql uses a connection from one goroutine at a
// time: it needs no lock.
type cachingConn struct {
	innerConn
	stmts map[string]*cachedStmt
	clock uint64
	// compiled counts the statements this connection compiled (cached
	// or not): what the cache saves, for the tests.
	compiled int
}

// cachedStmt is a prepared statement of the cache; busy while Rows of it
// are open.
type cachedStmt struct {
	st   innerStmt
	used uint64
	busy bool
}

var (
	_ driver.ExecerContext  = (*cachingConn)(nil)
	_ driver.QueryerContext = (*cachingConn)(nil)
)

// stmt returns the cached statement of query, prepared now when it is not
// cached; nil when it is busy (or not cacheable), for an uncached run.
func (c *cachingConn) stmt(ctx context.Context, query string) (*cachedStmt, error) {
	c.clock++
	if s, ok := c.stmts[query]; ok {
		if s.busy {
			return nil, nil
		}
		s.used = c.clock
		return s, nil
	}
	c.compiled++
	ds, err := c.innerConn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	st, ok := ds.(innerStmt)
	if !ok {
		_ = ds.Close()
		return nil, nil
	}
	if len(c.stmts) >= stmtCacheSize {
		c.evict()
	}
	s := &cachedStmt{st: st, used: c.clock}
	c.stmts[query] = s
	return s, nil
}

// evict finalizes the least recently used statement that is not busy.
func (c *cachingConn) evict() {
	var oldest string
	var at uint64
	for q, s := range c.stmts {
		if !s.busy && (oldest == "" || s.used < at) {
			oldest, at = q, s.used
		}
	}
	if oldest != "" {
		_ = c.stmts[oldest].st.Close()
		delete(c.stmts, oldest)
	}
}

// ExecContext implements driver.ExecerContext.
func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	s, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if s == nil {
		c.compiled++
		return c.innerConn.ExecContext(ctx, query, args)
	}
	return s.st.ExecContext(ctx, args)
}

// QueryContext implements driver.QueryerContext.
func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	s, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if s == nil {
		c.compiled++
		return c.innerConn.QueryContext(ctx, query, args)
	}
	rows, err := s.st.QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	s.busy = true
	return &cachedRows{Rows: rows, s: s}, nil
}

// Close implements driver.Conn: the cached statements are finalized first.
func (c *cachingConn) Close() error {
	var errs []error
	for q, s := range c.stmts {
		errs = append(errs, s.st.Close())
		delete(c.stmts, q)
	}
	return errors.Join(append(errs, c.innerConn.Close())...)
}

// cachedRows are the Rows of a cached statement, which is free again once
// they are closed.
type cachedRows struct {
	driver.Rows
	s *cachedStmt
}

// Close implements driver.Rows.
func (r *cachedRows) Close() error {
	err := r.Rows.Close()
	r.s.busy = false
	return err
}

// rowsTypes is what the driver's Rows tell of their columns.
type rowsTypes interface {
	driver.RowsColumnTypeDatabaseTypeName
	driver.RowsColumnTypeLength
	driver.RowsColumnTypeNullable
	driver.RowsColumnTypePrecisionScale
	driver.RowsColumnTypeScanType
}

// ColumnTypeDatabaseTypeName implements driver.RowsColumnTypeDatabaseTypeName.
func (r *cachedRows) ColumnTypeDatabaseTypeName(i int) string {
	if t, ok := r.Rows.(rowsTypes); ok {
		return t.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

// ColumnTypeLength implements driver.RowsColumnTypeLength.
func (r *cachedRows) ColumnTypeLength(i int) (int64, bool) {
	if t, ok := r.Rows.(rowsTypes); ok {
		return t.ColumnTypeLength(i)
	}
	return 0, false
}

// ColumnTypeNullable implements driver.RowsColumnTypeNullable.
func (r *cachedRows) ColumnTypeNullable(i int) (bool, bool) {
	if t, ok := r.Rows.(rowsTypes); ok {
		return t.ColumnTypeNullable(i)
	}
	return false, false
}

// ColumnTypePrecisionScale implements driver.RowsColumnTypePrecisionScale.
func (r *cachedRows) ColumnTypePrecisionScale(i int) (int64, int64, bool) {
	if t, ok := r.Rows.(rowsTypes); ok {
		return t.ColumnTypePrecisionScale(i)
	}
	return 0, 0, false
}

// ColumnTypeScanType implements driver.RowsColumnTypeScanType.
func (r *cachedRows) ColumnTypeScanType(i int) reflect.Type {
	if t, ok := r.Rows.(rowsTypes); ok {
		return t.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}

// sqliteDriver is modernc.org/sqlite's driver as registered under "sqlite"
// (with whatever is registered with it).
func sqliteDriver() (driver.Driver, error) {
	db, err := sql.Open("sqlite", "")
	if err != nil {
		return nil, err
	}
	drv := db.Driver()
	return drv, db.Close()
}
