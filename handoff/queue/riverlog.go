package queue

import (
	"context"
	"log/slog"
)

// levelStep is one slog level: INFO to DEBUG, WARN to INFO, ERROR to WARN.
const levelStep = slog.LevelInfo - slog.LevelDebug

// demoted is a slog.Handler that writes each record one level below the
// one it was logged at: River's INFO lines (its migrations, its
// maintenance services starting and stopping) are the gateway's DEBUG,
// and its warnings and errors, which the queue reports itself where they
// matter, one step quieter.
type demoted struct{ h slog.Handler }

// Enabled reports whether the demoted level is enabled.
func (d demoted) Enabled(ctx context.Context, l slog.Level) bool {
	return d.h.Enabled(ctx, l-levelStep)
}

// Handle writes r at its demoted level.
func (d demoted) Handle(ctx context.Context, r slog.Record) error {
	r.Level -= levelStep
	return d.h.Handle(ctx, r)
}

// WithAttrs demotes the handler with attrs.
func (d demoted) WithAttrs(attrs []slog.Attr) slog.Handler { return demoted{d.h.WithAttrs(attrs)} }

// WithGroup demotes the handler with the group.
func (d demoted) WithGroup(name string) slog.Handler { return demoted{d.h.WithGroup(name)} }

// riverLogger is the logger River's client and migrator get: log's, with
// component=river, one level below (demoted).
func riverLogger(log *slog.Logger) *slog.Logger {
	return slog.New(demoted{log.Handler()}).With("component", "river")
}
