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
}

// WithLogger makes the store log to log: an INFO line per migration step
// it applies when it opens (default: no lines).
func WithLogger(log *slog.Logger) Option {
	return func(o *Options) { o.Log = log }
}

// NewOptions applies opts, in order, to the zero Options.
func NewOptions(opts []Option) Options {
	var o Options
	for _, f := range opts {
		f(&o)
	}
	return o
}
