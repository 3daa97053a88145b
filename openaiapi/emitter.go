package openaiapi

import (
	"strings"
	"sync"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/llm"
)

// usage is OpenAI's token usage.
type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// out is where an emitter's answer goes: a stream of chunks, or nowhere
// until the run ends (a chat.completion).
type out interface {
	// content sends text of the answer; without flush it may be held
	// until the next flush.
	content(text string, flush bool) error
	// plain is content for a text that is ASCII without control
	// characters, quotes or backslashes (llm.ChunkPlainText's).
	plain(text []byte, flush bool) error
	// flush sends everything held.
	flush() error
}

// emitter translates a run's frames into an OpenAI answer: text and the
// content of relayed upstream chunks become the answer's content; actions
// and frontend tool calls are kept for the Markdown at its end; the first
// error is kept for the answer's end.
type emitter struct {
	// agent is the run's agent, for the models a confirm's command is
	// reached by.
	agent string
	mu    sync.Mutex
	out   out
	// chunks reads the relayed chunks' text, most of them by the layout
	// of the one before (llm.ChunkReader).
	chunks llm.ChunkReader
	// text is the answer, kept whole only when keepText is set (a
	// chat.completion, whose message it is). A stream keeps what its end
	// needs: the answer's token estimate (tokens, for a run no model
	// answered), its last two bytes (end, for the Markdown's join) and
	// whether it has any (hasText). Growing a stream's whole answer was a
	// fifth of the endpoint's bytes allocated a stream.
	text     strings.Builder
	keepText bool
	tokens   llm.TokenCounter
	end      [2]byte
	hasText  bool
	acts     []*actions.Action
	calls    []*emit.ToolCallFrame
	err      *apierr.Error
}

var (
	_ emit.Emitter  = (*emitter)(nil)
	_ llm.BatchSink = (*emitter)(nil)
)

// Text implements emit.Emitter.
func (e *emitter) Text(content string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.write(content, true)
}

// write adds content to the answer, flushed with flush; mu is held.
func (e *emitter) write(content string, flush bool) error {
	if content == "" {
		return e.flush(flush)
	}
	e.addText(content)
	return e.out.content(content, flush)
}

// addText adds t to the answer's text (text, or what a stream keeps of
// it); mu is held.
func (e *emitter) addText(t string) {
	if len(t) == 0 {
		return
	}
	if e.keepText {
		e.text.WriteString(t)
	}
	e.tokens.Add(t)
	e.noteEnd(t[max(len(t)-2, 0):])
}

// addTextBytes is addText of t's text.
func (e *emitter) addTextBytes(t []byte) {
	if len(t) == 0 {
		return
	}
	if e.keepText {
		e.text.Write(t)
	}
	e.tokens.AddBytes(t)
	e.noteEnd(string(t[max(len(t)-2, 0):]))
}

// noteEnd keeps the last two bytes of the answer, last the last one or two
// added.
func (e *emitter) noteEnd(last string) {
	if len(last) == 2 {
		e.end = [2]byte{last[0], last[1]}
	} else {
		e.end = [2]byte{e.end[1], last[0]}
	}
	e.hasText = true
}

// completionTokens is the estimate of the answer's tokens
// (llm.EstimateTokens).
func (e *emitter) completionTokens() int { return e.tokens.Tokens() }

// flush flushes what is held when asked to; mu is held.
func (e *emitter) flush(flush bool) error {
	if !flush {
		return nil
	}
	return e.out.flush()
}

// Chunk implements emit.Emitter: the chunk's content goes on as the
// answer's (its role, finish_reason, tool_calls deltas and id are the
// upstream's business; its usage is counted by the llm client, which the
// handler's usageTap hears).
//
// A chunk's plain text (llm.ChunkPlainText: ASCII without escapes, most
// chunks) is copied from the chunk into the frame rather than decoded to
// a string and escaped again; any other text goes through ChunkText's
// decoding and content. The chunks are read with an llm.ChunkReader: a
// chunk laid out as the one before it but for its text (most of a
// stream's) has only its text scanned, not the whole chunk walked.
func (e *emitter) Chunk(raw []byte) error { return e.chunk(raw, true) }

// BufferChunk is Chunk without the flush (llm.BatchSink): the chunks of an
// upstream read leave in one write, flushed by the last one's Chunk, by
// Flush or by the stream's end.
func (e *emitter) BufferChunk(raw []byte) error { return e.chunk(raw, false) }

// Flush sends what BufferChunk held (llm.BatchSink).
func (e *emitter) Flush() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.out.flush()
}

func (e *emitter) chunk(raw []byte, flush bool) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	plain, ok, text := e.chunks.PlainText(raw)
	if !ok {
		return e.write(text, flush)
	}
	if len(plain) == 0 {
		return e.flush(flush)
	}
	e.addTextBytes(plain)
	return e.out.plain(plain, flush)
}

// Action implements emit.Emitter.
func (e *emitter) Action(a *actions.Action) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.acts = append(e.acts, a)
	return nil
}

// Error implements emit.Emitter: the first error ends the answer.
func (e *emitter) Error(er *apierr.Error) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err == nil {
		e.err = er
	}
	return nil
}

// ToolCall implements emit.Emitter.
func (e *emitter) ToolCall(f *emit.ToolCallFrame) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls = append(e.calls, f)
	return nil
}

// End implements emit.Emitter: the Markdown of the actions and tool
// calls ends the content, a blank line after the text. The handler writes
// the rest once Execute returned.
func (e *emitter) End() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err != nil || len(e.acts) == 0 && len(e.calls) == 0 {
		return nil
	}
	md := strings.TrimPrefix(markdown(e.agent, e.acts, e.calls), "\n")
	switch {
	case !e.hasText || e.end == [2]byte{'\n', '\n'}:
	case e.end[1] == '\n':
		md = "\n" + md
	default:
		md = "\n\n" + md
	}
	return e.write(md, true)
}
