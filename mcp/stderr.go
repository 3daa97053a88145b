package mcp

import (
	"bytes"
	"fmt"
	"log/slog"
	"sync"
)

// Limits of what is kept of a stdio server's stderr.
const (
	stderrTailBytes = 1024 // the tail quoted in a Dial error
	stderrLineBytes = 4096 // longer lines are logged in pieces
)

// stderrLog is the stderr of a stdio MCP server: each line is logged at debug
// level, and the last stderrTailBytes are kept to explain a failed start.
type stderrLog struct {
	log *slog.Logger

	mu   sync.Mutex
	line []byte // the current, unfinished line
	last []byte // the tail of everything written
}

// newStderrLog returns a stderrLog logging to log.
func newStderrLog(log *slog.Logger) *stderrLog {
	return &stderrLog{log: log}
}

// Write logs the complete lines in p and keeps the rest for the next Write.
func (s *stderrLog) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last = append(s.last, p...)
	if over := len(s.last) - stderrTailBytes; over > 0 {
		s.last = append(s.last[:0], s.last[over:]...)
	}
	s.line = append(s.line, p...)
	for {
		i := bytes.IndexByte(s.line, '\n')
		switch {
		case i >= 0 && i <= stderrLineBytes:
			s.emit(s.line[:i])
			s.line = s.line[i+1:]
		case len(s.line) >= stderrLineBytes:
			s.emit(s.line[:stderrLineBytes])
			s.line = s.line[stderrLineBytes:]
		default:
			return len(p), nil
		}
	}
}

// emit logs one line.
func (s *stderrLog) emit(line []byte) {
	s.log.Debug("mcp server stderr", "line", string(bytes.TrimRight(line, "\r")))
}

// tail returns the kept end of stderr as an error-message suffix, or "" when
// s is nil or nothing was written.
func (s *stderrLog) tail() string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := bytes.TrimSpace(s.last)
	if len(t) == 0 {
		return ""
	}
	return fmt.Sprintf(" (stderr: %q)", t)
}
