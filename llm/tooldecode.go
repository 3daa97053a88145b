package llm

import (
	"encoding/json"
	"slices"

	"github.com/agentgw/agentgw/sse"
)

// toolChunk is the part of a chunk that ToolCallSink decodes when the chunk
// mentions tool_calls.
type toolChunk struct {
	Choices []toolChoice `json:"choices"`
}

type toolChoice struct {
	Index int `json:"index"`
	Delta struct {
		Content   json.RawMessage `json:"content"`
		ToolCalls []toolCallDelta `json:"tool_calls"`
	} `json:"delta"`
	FinishReason json.RawMessage `json:"finish_reason"`
}

// toolCallDelta is one fragment of a tool call.
type toolCallDelta struct {
	// Index is missing from a converted non-streamed answer.
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name string `json:"name"`
		// Arguments is a JSON string; a provider that sends an object
		// has its JSON text kept.
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// observeTools decodes a chunk that mentions tool_calls, records its tool
// call fragments, content and finish_reason, and reports whether to pass it
// on: when it has content, or neither tool call data nor a finish_reason of
// "tool_calls". A chunk that does not decode is passed on for Next to judge.
func (s *ToolCallSink) observeTools(raw []byte) bool {
	var c toolChunk
	if json.Unmarshal(raw, &c) != nil {
		return true
	}
	i := slices.IndexFunc(c.Choices, func(ch toolChoice) bool { return ch.Index == 0 })
	if i < 0 {
		return true
	}
	ch := &c.Choices[i]
	before := len(s.text)
	s.text, _ = sse.AppendUnquoted(s.text, ch.Delta.Content)
	hasText := len(s.text) > before
	s.setFinish(ch.FinishReason)
	for _, d := range ch.Delta.ToolCalls {
		s.addFragment(d)
	}
	return hasText || (len(ch.Delta.ToolCalls) == 0 && string(ch.FinishReason) != `"tool_calls"`)
}

// addFragment adds one fragment to its call. A fragment without an index
// (a converted non-streamed answer) belongs to the call of its id, else to
// the last call; a fragment whose index is that of a call with another id
// (a provider that numbers every call 0) starts a new call after the others.
func (s *ToolCallSink) addFragment(d toolCallDelta) {
	at := -1
	switch {
	case d.Index != nil:
		at = slices.IndexFunc(s.calls, func(c callParts) bool { return c.index == *d.Index })
		if at >= 0 && d.ID != "" && s.calls[at].id != "" && s.calls[at].id != d.ID {
			at = s.newCall(s.nextIndex(), d.ID)
		}
	case d.ID != "":
		at = slices.IndexFunc(s.calls, func(c callParts) bool { return c.id == d.ID })
	default:
		at = len(s.calls) - 1
	}
	if at < 0 {
		index := s.nextIndex()
		if d.Index != nil {
			index = *d.Index
		}
		at = s.newCall(index, d.ID)
	}
	c := &s.calls[at]
	if c.id == "" {
		c.id = d.ID
	}
	c.name = append(c.name, d.Function.Name...)
	if args := d.Function.Arguments; len(args) > 0 && args[0] == '"' {
		c.arguments, _ = sse.AppendUnquoted(c.arguments, args)
	} else if len(args) > 0 && string(args) != "null" {
		c.arguments = append(c.arguments, args...)
	}
}

// newCall starts a call and returns its position in s.calls.
func (s *ToolCallSink) newCall(index int, id string) int {
	s.calls = append(s.calls, callParts{index: index, id: id})
	return len(s.calls) - 1
}

// nextIndex is an index after those of every call so far.
func (s *ToolCallSink) nextIndex() int {
	next := 0
	for _, c := range s.calls {
		next = max(next, c.index+1)
	}
	return next
}
