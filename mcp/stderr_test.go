package mcp

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
)

// lineRecorder is a slog handler keeping the "line" attribute of each record.
type lineRecorder struct {
	mu    sync.Mutex
	lines []string
}

func (r *lineRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *lineRecorder) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *lineRecorder) WithGroup(string) slog.Handler            { return r }
func (r *lineRecorder) Handle(_ context.Context, rec slog.Record) error {
	rec.Attrs(func(a slog.Attr) bool {
		if a.Key == "line" {
			r.mu.Lock()
			r.lines = append(r.lines, a.Value.String())
			r.mu.Unlock()
		}
		return true
	})
	return nil
}

func TestStderrLog(t *testing.T) {
	long := strings.Repeat("x", stderrLineBytes+10)
	tests := []struct {
		name   string
		writes []string
		lines  []string
		tail   string
	}{
		{name: "nothing", writes: nil, lines: nil, tail: ""},
		{name: "blank", writes: []string{" \n"}, lines: []string{" "}, tail: ""},
		{name: "split writes", writes: []string{"he", "llo\r\nwor", "ld\n", "rest"},
			lines: []string{"hello", "world"}, tail: ` (stderr: "hello\r\nworld\nrest")`},
		{name: "long line", writes: []string{long + "\n"}, lines: []string{long[:stderrLineBytes], "xxxxxxxxxx"},
			tail: ` (stderr: "` + long[len(long)-stderrTailBytes+1:] + `")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &lineRecorder{}
			s := newStderrLog(slog.New(rec))
			for _, w := range tt.writes {
				if n, err := s.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if !slices.Equal(rec.lines, tt.lines) {
				t.Fatalf("logged %q, want %q", rec.lines, tt.lines)
			}
			if got := s.tail(); got != tt.tail {
				t.Fatalf("tail = %q, want %q", got, tt.tail)
			}
		})
	}
	var none *stderrLog
	if none.tail() != "" {
		t.Fatal("nil tail not empty")
	}
}

func TestStdioStderrIsLogged(t *testing.T) {
	rec := &lineRecorder{}
	_, err := Dial(t.Context(), stdioEntry(), []string{"MCPTEST_FAIL=boom"}, "test", slog.New(rec))
	if err == nil || !strings.HasSuffix(err.Error(), `(stderr: "stdioserver: asked to fail: boom")`) {
		t.Fatalf("err = %v", err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if !slices.Contains(rec.lines, "stdioserver: asked to fail: boom") {
		t.Fatalf("logged %q", rec.lines)
	}
}
