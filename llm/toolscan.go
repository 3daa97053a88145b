package llm

import (
	"bytes"

	"github.com/agentgw/agentgw/sse"
)

// scanKeys reports whether raw contains "tool_calls" and where it has
// `"finish_reason":` first, -1 for nowhere. It is bytes.Contains and
// bytes.Index in one pass that stops only at underscores, which are rare in
// a chunk, where bytes.Contains stops at every "t".
func scanKeys(raw []byte) (toolCalls bool, finishAt int) {
	finishAt = -1
	for i := 0; ; i++ {
		at := bytes.IndexByte(raw[i:], '_')
		if at < 0 {
			return false, finishAt
		}
		i += at
		if i >= 4 && len(raw)-i >= 6 && string(raw[i-4:i+6]) == "tool_calls" {
			return true, finishAt
		}
		if finishAt < 0 && i >= 7 && len(raw)-i >= 9 && string(raw[i-7:i+9]) == `"finish_reason":` {
			finishAt = i - 7
		}
	}
}

// observeText keeps the content and finish_reason of an ordinary chunk
// without decoding it: it finds the first "delta" key and the first
// "finish_reason" key (at finishAt, -1 when none), which are those of the
// first choice (in valid JSON a quote before a colon can only end a key: a
// quote inside a string is escaped), and scans only the delta object. A
// chunk without both keys written compactly (spaces around the colon, a
// member left out) is scanned member by member instead.
func (s *ToolCallSink) observeText(raw []byte, finishAt int) {
	at := bytes.Index(raw, deltaKey)
	if at < 0 || finishAt < at {
		s.observeSpaced(raw)
		return
	}
	if content, ok := sse.Field(raw[at+len(deltaKey):], "content"); ok {
		s.text, _ = sse.AppendUnquoted(s.text, content)
	}
	if reason, ok := sse.LeadingValue(raw[finishAt+len(finishKey):]); ok {
		s.setFinish(reason)
	}
}

// observeSpaced is observeText for a chunk that a serializer wrote with
// spaces: it finds choices[0].delta.content and choices[0].finish_reason
// with sse.Field, which scans every member before them.
func (s *ToolCallSink) observeSpaced(raw []byte) {
	choices, ok := sse.Field(raw, "choices")
	if !ok || choices[0] != '[' {
		return
	}
	choice := choices[1:] // sse.Field reads only as far as the member it looks for
	if delta, ok := sse.Field(choice, "delta"); ok {
		if content, ok := sse.Field(delta, "content"); ok {
			s.text, _ = sse.AppendUnquoted(s.text, content)
		}
	}
	if reason, ok := sse.Field(choice, "finish_reason"); ok {
		s.setFinish(reason)
	}
}

var (
	deltaKey  = []byte(`"delta":`)
	finishKey = []byte(`"finish_reason":`)
)

// setFinish records a finish_reason given as a JSON string, without
// allocating for the usual values. An empty string, null or no value at all
// is no reason and leaves the last one in place.
func (s *ToolCallSink) setFinish(quoted []byte) {
	switch string(quoted) {
	case `""`:
	case `"stop"`:
		s.finish = "stop"
	case `"tool_calls"`:
		s.finish = "tool_calls"
	case `"length"`:
		s.finish = "length"
	case `"content_filter"`:
		s.finish = "content_filter"
	default:
		if b, ok := sse.AppendUnquoted(nil, quoted); ok {
			s.finish = string(b)
		}
	}
}
