package llm

import (
	"encoding/json"

	"github.com/agentgw/agentgw/sse"
)

// AssistantMessage is the message to append to the conversation for a
// model turn that made tool calls:
// {"role":"assistant","content":<text, or null when empty>,"tool_calls":[{"id",
// "type":"function","function":{"name","arguments"}}]}. Without calls it
// is a plain assistant message. The message is in Raw (Role is set too, for
// callers that look at it), so estimators count the calls' arguments.
func AssistantMessage(text string, calls []ToolCall) Message {
	if len(calls) == 0 {
		return Message{Role: "assistant", Content: text}
	}
	b := make([]byte, 0, 64+len(text)+len(calls)*96)
	b = append(b, `{"role":"assistant","content":`...)
	if text == "" {
		b = append(b, "null"...)
	} else {
		b = sse.AppendString(b, text)
	}
	b = append(b, `,"tool_calls":[`...)
	for i, c := range calls {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = sse.AppendString(b, c.ID)
		b = append(b, `,"type":"function","function":{"name":`...)
		b = sse.AppendString(b, c.Name)
		b = append(b, `,"arguments":`...)
		b = sse.AppendString(b, c.Arguments)
		b = append(b, "}}"...)
	}
	b = append(b, "]}"...)
	return Message{Role: "assistant", Raw: json.RawMessage(b)}
}

// ToolMessage is the result of the tool call callID, to append to the
// conversation after the AssistantMessage that made the call:
// {"role":"tool","tool_call_id":callID,"content":content}. The message is
// in Raw; Role is set too.
func ToolMessage(callID, content string) Message {
	b := make([]byte, 0, 48+len(callID)+len(content))
	b = append(b, `{"role":"tool","tool_call_id":`...)
	b = sse.AppendString(b, callID)
	b = append(b, `,"content":`...)
	b = sse.AppendString(b, content)
	b = append(b, '}')
	return Message{Role: "tool", Raw: json.RawMessage(b)}
}
