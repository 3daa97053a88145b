package queue

import (
	"context"
	"log/slog"
)

// demote is the level a record of River's is written at: its INFO (and
// anything between INFO and WARN) as DEBUG; its DEBUG below that; its
// warnings and errors as they are, since they may tell of a fault.
func demote(l slog.Level) slog.Level {
	if l >= slog.LevelWarn {
		return l
	}
	return l - (slog.LevelInfo - slog.LevelDebug)
}

// demoted is a slog.Handler that writes River's chatter one level lower
// (demote): its INFO lines (its migrations, its maintenance services
// starting and stopping) are the gateway's DEBUG.
type demoted struct{ h slog.Handler }

// Enabled reports whether the demoted level is enabled.
func (d demoted) Enabled(ctx context.Context, l slog.Level) bool {
	return d.h.Enabled(ctx, demote(l))
}

// Handle writes r at its demoted level.
func (d demoted) Handle(ctx context.Context, r slog.Record) error {
	r.Level = demote(r.Level)
	return d.h.Handle(ctx, r)
}

// WithAttrs demotes the handler with attrs.
func (d demoted) WithAttrs(attrs []slog.Attr) slog.Handler { return demoted{d.h.WithAttrs(attrs)} }

// WithGroup demotes the handler with the group.
func (d demoted) WithGroup(name string) slog.Handler { return demoted{d.h.WithGroup(name)} }

// riverLogger is the logger River's client and migrator get: log's, with
// component=river, its INFO as DEBUG (demoted).
func riverLogger(log *slog.Logger) *slog.Logger {
	return slog.New(demoted{log.Handler()}).With("component", "river")
}
