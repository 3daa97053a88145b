package main

import (
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/agentgw/agentgw/internal/jsonlog"
)

// newLogger builds the process logger: text on a terminal, JSON otherwise,
// unless the format says which.
func newLogger(c LogConfig, w io.Writer) *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.Level)); err != nil {
		level = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: level}
	format := strings.ToLower(c.Format)
	if format == "" || format == "auto" {
		format = "json"
		if isTerminal(w) {
			format = "text"
		}
	}
	if format == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	// slog's JSON lines, written without reflection for the basic kinds
	// (the access log's line on every request: issue 29).
	return slog.New(jsonlog.NewHandler(w, opts))
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
