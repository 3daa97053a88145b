package store

import "log/slog"

// An Option changes how a database-backed store (sqlitestore, pgstore) is
// opened.
type Option func(*Options)

// Options are what the Options given to a driver's Open set; a driver
// reads them with NewOptions.
type Options struct {
	// Log gets an INFO line per migration step applied when the store
	// opens (default: none).
	Log *slog.Logger
	// MaxConns bounds a PostgreSQL store's connection pool (0: the URL's
	// pool_max_conns, else 16, or the CPU count when larger). SQLite
	// ignores it.
	MaxConns int
}

// WithLogger makes the store log to log: an INFO line per migration step
// it applies when it opens (default: no lines).
func WithLogger(log *slog.Logger) Option {
	return func(o *Options) { o.Log = log }
}

// WithMaxConns bounds a PostgreSQL store's connection pool to n
// connections, over the URL's pool_max_conns (0: leave it as it is).
func WithMaxConns(n int) Option {
	return func(o *Options) { o.MaxConns = n }
}

// NewOptions applies opts, in order, to the zero Options.
func NewOptions(opts []Option) Options {
	var o Options
	for _, f := range opts {
		f(&o)
	}
	return o
}
