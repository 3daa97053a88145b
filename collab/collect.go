package collab

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/remote"
)

// maxProgressLine is the longest progress line: a longer run of text
// without a line break is shown in parts of this many bytes at most.
const maxProgressLine = 240

// errClosed refuses what the asked agent writes after the ask ended.
var errClosed = errors.New("the ask has ended")

// collector receives what the asked agent writes, as a runner's emitter
// (local agents) or a Forwarder's sink (remote ones). It keeps the whole
// text, the actions and the first error for the response, and hands each
// completed line of text to the asking goroutine as a progress line
// (lines): progress is coalesced per line, so that a model's tokens become
// one PROGRESS message per line of its answer, and a line that goes on
// without a break is cut every maxProgressLine bytes. What is left of the
// last line is shown when the answer ends (rest).
type collector struct {
	ctx   context.Context
	lines chan string // unbuffered: a line is handed over before the next write

	mu      sync.Mutex
	closed  bool
	text    strings.Builder
	line    strings.Builder
	actions []*actions.Action
	err     *apierr.Error
}

var (
	_ emit.Emitter = (*collector)(nil)
	_ remote.Sink  = (*collector)(nil)
)

func newCollector(ctx context.Context) *collector {
	return &collector{ctx: ctx, lines: make(chan string)}
}

// add takes text of the answer.
func (c *collector) add(s string) error {
	if s == "" {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errClosed
	}
	c.text.WriteString(s)
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			c.line.WriteString(s)
			s = ""
		} else {
			c.line.WriteString(s[:i])
			s = s[i+1:]
		}
		for c.line.Len() > maxProgressLine {
			cut := cutAt(c.line.String(), maxProgressLine)
			rest := c.line.String()[len(cut):]
			c.line.Reset()
			c.line.WriteString(rest)
			if err := c.send(cut); err != nil {
				return err
			}
		}
		if i >= 0 {
			line := c.line.String()
			c.line.Reset()
			if err := c.send(line); err != nil {
				return err
			}
		}
	}
	return nil
}

// send hands a line to the asking goroutine; blank lines are not shown.
// The caller holds mu, so lines leave in order.
func (c *collector) send(line string) error {
	line = strings.TrimRight(line, " \t\r")
	if strings.TrimSpace(line) == "" {
		return nil
	}
	select {
	case c.lines <- line:
		return nil
	case <-c.ctx.Done():
		c.closed = true
		return fmt.Errorf("sending progress: %w", context.Cause(c.ctx))
	}
}

// cutAt is s's first n bytes at most, cut at a rune boundary (at n for
// bytes that are no UTF-8). s is longer than n.
func cutAt(s string, n int) string {
	for i := n; i > n-utf8.UTFMax && i > 0; i-- {
		if utf8.RuneStart(s[i]) {
			return s[:i]
		}
	}
	return s[:n]
}

// close refuses further writes.
func (c *collector) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
}

// result closes the collector and returns the whole text, the last line's
// rest not yet shown (blank when none), the actions and the first error.
func (c *collector) result() (text, rest string, acts []*actions.Action, err *apierr.Error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	return c.text.String(), strings.TrimSpace(c.line.String()), c.actions, c.err
}

// Text implements emit.Emitter.
func (c *collector) Text(s string) error { return c.add(s) }

// Chunk implements emit.Emitter and Sink: a chat.completion.chunk's
// content.
func (c *collector) Chunk(raw []byte) error { return c.add(llm.ChunkText(raw)) }

// Action implements emit.Emitter and Sink.
func (c *collector) Action(a *actions.Action) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errClosed
	}
	c.actions = append(c.actions, a)
	return nil
}

// Error implements emit.Emitter and Sink: the first error is the
// response's.
func (c *collector) Error(e *apierr.Error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil && e != nil {
		c.err = e
	}
	return nil
}

// ToolCall implements emit.Emitter: a frontend tool runs in an IDE,
// which an ask does not have, so the answer fails.
func (c *collector) ToolCall(f *emit.ToolCallFrame) error {
	name := "a tool"
	if f != nil {
		name = fmt.Sprintf("tool %q", f.Name)
	}
	e := apierr.New(apierr.CodeToolFailed, fmt.Sprintf("the agent asked the IDE to run %s, which an ask between agents cannot do", name))
	_ = c.Error(e)
	return e
}

// End implements emit.Emitter.
func (c *collector) End() error { return nil }
