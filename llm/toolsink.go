package llm

import "slices"

// ToolCall is a call of a function tool that the model made.
type ToolCall struct {
	// ID is the model's id of the call, to be echoed in the tool's result.
	ID string
	// Name is the function's name.
	Name string
	// Arguments is the JSON text the model wrote as the function's
	// arguments, assembled from its fragments; the model may have written
	// invalid JSON.
	Arguments string
}

// ToolCallSink wraps the sink of a streamed answer that may make tool calls.
// It assembles the tool_calls deltas of OpenAI-style chunks
// (choices[0].delta.tool_calls[i] with index, id, function.name and
// function.arguments fragments) into Calls, and keeps the text content of
// choices[0] and its finish_reason.
//
// Chunks with text content are passed on to Next unchanged, whatever else
// they carry; so are chunks without tool call data (a role, a usage-only
// chunk, a finish_reason of "stop"). Chunks that carry only tool call data,
// or a finish_reason of "tool_calls", are not passed on: an IDE plugin
// cannot show them. Only chunks that contain "tool_calls" are decoded: an
// ordinary text chunk costs a search for that string and a scan of its
// delta object, without allocating.
//
// ToolCallSink is a BatchSink: BufferChunk and Flush filter the same way
// and delegate to Next when it is a BatchSink, so Stream's batching still
// works (with any other Next they send at once). A chunk Chunk drops still
// flushes what Next holds, as Chunk must. It is not safe for concurrent
// use; read the results once Stream has returned.
type ToolCallSink struct {
	// Next receives the chunks passed on.
	Next Sink

	text   []byte
	finish string
	calls  []callParts
}

var _ BatchSink = (*ToolCallSink)(nil)

// callParts is a tool call being assembled.
type callParts struct {
	index     int
	id        string
	name      []byte
	arguments []byte
}

// Chunk observes raw and passes it on with Next.Chunk, or, when it drops
// raw, flushes what Next holds.
func (s *ToolCallSink) Chunk(raw []byte) error {
	if !s.observe(raw) {
		if b, ok := s.Next.(BatchSink); ok {
			return b.Flush()
		}
		return nil
	}
	return s.Next.Chunk(raw)
}

// BufferChunk observes raw and passes it on with Next.BufferChunk (Next.Chunk
// when Next is not a BatchSink), or drops it.
func (s *ToolCallSink) BufferChunk(raw []byte) error {
	if !s.observe(raw) {
		return nil
	}
	if b, ok := s.Next.(BatchSink); ok {
		return b.BufferChunk(raw)
	}
	return s.Next.Chunk(raw)
}

// Flush flushes Next when it is a BatchSink.
func (s *ToolCallSink) Flush() error {
	if b, ok := s.Next.(BatchSink); ok {
		return b.Flush()
	}
	return nil
}

// Calls returns the tool calls assembled so far, in the order of their
// index.
func (s *ToolCallSink) Calls() []ToolCall {
	if len(s.calls) == 0 {
		return nil
	}
	parts := slices.Clone(s.calls)
	slices.SortStableFunc(parts, func(a, b callParts) int { return a.index - b.index })
	calls := make([]ToolCall, len(parts))
	for i, p := range parts {
		calls[i] = ToolCall{ID: p.id, Name: string(p.name), Arguments: string(p.arguments)}
	}
	return calls
}

// Text returns the text content seen so far.
func (s *ToolCallSink) Text() string { return string(s.text) }

// FinishReason returns the last finish_reason seen ("tool_calls", "stop",
// "length", ...), "" when none was.
func (s *ToolCallSink) FinishReason() string { return s.finish }

// observe records what raw carries and reports whether to pass it on.
func (s *ToolCallSink) observe(raw []byte) bool {
	tools, finishAt := scanKeys(raw)
	if !tools {
		s.observeText(raw, finishAt)
		return true
	}
	return s.observeTools(raw)
}
