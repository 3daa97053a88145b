package queue

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a log destination River's goroutines may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Split(strings.TrimSpace(s.b.String()), "\n")
}

// TestDemoted: River's DEBUG and INFO are written one level below (its
// INFO is the gateway's DEBUG); its warnings and errors stay as they are.
func TestDemoted(t *testing.T) {
	var buf bytes.Buffer
	log := riverLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})))
	log.Debug("d")
	log.Info("i")
	log.Warn("w", "k", 1)
	log.WithGroup("g").Error("e", "k", 2)
	want := "level=WARN msg=w component=river k=1\nlevel=ERROR msg=e component=river g.k=2\n"
	var got strings.Builder
	for l := range strings.Lines(buf.String()) {
		_, rest, _ := strings.Cut(l, " ") // the time
		got.WriteString(rest)
	}
	if got.String() != want {
		t.Errorf("log:\n%s\nwant:\n%s", got.String(), want)
	}
	if log.Enabled(context.Background(), slog.LevelInfo) {
		t.Error("River's INFO is enabled at the gateway's INFO")
	}
}

// TestRiverLogsAtDebug: opening, starting and stopping a queue (River's
// migrations, its client and maintenance services) writes no INFO line
// of River's at the gateway's INFO level; at DEBUG, River's lines are
// there, as DEBUG with component=river.
func TestRiverLogsAtDebug(t *testing.T) {
	run := func(level slog.Level) []string {
		var logs syncBuffer
		cfg := Config{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: level})),
			Handler: func(context.Context, Envelope) (json.RawMessage, error) { return nil, nil }}
		q := openQueue(t, filepath.Join(t.TempDir(), "queue.db"), cfg)
		start(t, q)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := q.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		return logs.lines()
	}
	for _, l := range run(slog.LevelInfo) {
		if strings.Contains(l, "component=river") {
			t.Errorf("River's line at INFO: %s", l)
		}
	}
	var river int
	for _, l := range run(slog.LevelDebug) {
		if !strings.Contains(l, "component=river") {
			continue
		}
		river++
		if !strings.Contains(l, "level=DEBUG") {
			t.Errorf("River's line above DEBUG: %s", l)
		}
	}
	if river == 0 {
		t.Error("no line of River's at DEBUG")
	}
}
