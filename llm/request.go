package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/agentgw/agentgw/sse"
)

// Message is one message of the prompt.
//
// A Message survives a JSON round trip unchanged (a paused run is kept in
// a store as JSON): it encodes as {"role","content","raw"}, each only when
// set, with Raw as a JSON string of its bytes, so that they come back
// exactly as they were (encoding/json would compact an embedded raw value
// and escape its <, > and &), and an empty Raw comes back empty, never as
// the literal null.
type Message struct {
	Role    string
	Content string
	// Raw, when set, is sent verbatim instead of Role and Content: a
	// conversation turn passed through with tool_calls, multi-part content…
	// It must be a JSON object.
	Raw json.RawMessage
}

// messageJSON is the encoded form of a Message.
type messageJSON struct {
	Role    string `json:"role,omitempty"`
	Content string `json:"content,omitempty"`
	Raw     string `json:"raw,omitempty"`
}

// MarshalJSON implements json.Marshaler.
func (m Message) MarshalJSON() ([]byte, error) {
	return json.Marshal(messageJSON{Role: m.Role, Content: m.Content, Raw: string(m.Raw)})
}

// UnmarshalJSON implements json.Unmarshaler. It also reads the form that
// gateways before MarshalJSON wrote, {"Role","Content","Raw"} with Raw an
// embedded value and null when empty, so that a run paused by one of those
// resumes with its whole prompt.
func (m *Message) UnmarshalJSON(data []byte) error {
	var v struct {
		Role    string          `json:"role"`
		Content string          `json:"content"`
		Raw     json.RawMessage `json:"raw"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("llm: decoding a message: %w", err)
	}
	*m = Message{Role: v.Role, Content: v.Content}
	switch {
	case len(v.Raw) == 0 || string(v.Raw) == "null":
	case v.Raw[0] == '"':
		var s string
		if err := json.Unmarshal(v.Raw, &s); err != nil {
			return fmt.Errorf("llm: decoding a message's raw form: %w", err)
		}
		if s != "" {
			m.Raw = json.RawMessage(s)
		}
	default:
		m.Raw = slices.Clone(v.Raw)
	}
	return nil
}

// Field is a pass-through field of the agent request (temperature, top_p,
// max_tokens, stop, user, tools, ...), its value kept as raw JSON.
type Field struct {
	Key   string
	Value json.RawMessage
}

// ChatRequest is one chat completion call.
type ChatRequest struct {
	// Model is the model name; "" sends no "model" key.
	Model    string
	Messages []Message
	// Extra are the pass-through fields in request order. Keys "model",
	// "messages" and "stream" are dropped: ours win. So are "tools" and
	// "tool_choice" when Tools is set, and "tool_choice" when ToolChoice
	// is set: a client's tool_choice names the client's tools.
	Extra []Field
	// Tools are the tool definitions offered to the model, each a JSON
	// object such as {"type":"function","function":{"name",
	// "description","parameters"}}, sent as "tools" when not empty.
	Tools []json.RawMessage
	// ToolChoice, when set, is sent as "tool_choice": "auto", "none",
	// "required" or {"type":"function","function":{"name":…}}.
	ToolChoice json.RawMessage
	// Header are the plugin's inbound request headers, forwarded in
	// AuthForward mode.
	Header http.Header
	// FallbackModels are the models to try in turn when Model keeps failing
	// before its answer begins (see RetryPolicy); nil means the client's
	// Config.FallbackModels, an empty list none.
	FallbackModels []string
}

// Body returns the JSON body of the streamed call: {<extra...>,"model":…,
// "tools":[…],"tool_choice":…,"messages":[…],"stream":true}, "model",
// "tools" and "tool_choice" only when set. Strings are escaped with
// sse.AppendString (valid JSON for any input, <, > and & left as they are);
// raw values are checked and copied verbatim.
func (r *ChatRequest) Body() ([]byte, error) {
	return r.body(true)
}

func (r *ChatRequest) body(stream bool) ([]byte, error) {
	b := make([]byte, 0, r.sizeHint())
	b = append(b, '{')
	for _, f := range r.Extra {
		if r.ours(f.Key) {
			continue
		}
		if !json.Valid(f.Value) {
			return nil, fmt.Errorf("llm: pass-through field %q is not valid JSON", f.Key)
		}
		b = sse.AppendString(b, f.Key)
		b = append(b, ':')
		b = append(b, f.Value...)
		b = append(b, ',')
	}
	if r.Model != "" {
		b = append(b, `"model":`...)
		b = sse.AppendString(b, r.Model)
		b = append(b, ',')
	}
	b, err := r.appendTools(b)
	if err != nil {
		return nil, err
	}
	b = append(b, `"messages":[`...)
	for i, m := range r.Messages {
		if i > 0 {
			b = append(b, ',')
		}
		if m.Raw != nil {
			if !isObject(m.Raw) {
				return nil, fmt.Errorf("llm: raw message %d is not a JSON object", i)
			}
			b = append(b, m.Raw...)
			continue
		}
		b = append(b, `{"role":`...)
		b = sse.AppendString(b, m.Role)
		b = append(b, `,"content":`...)
		b = sse.AppendString(b, m.Content)
		b = append(b, '}')
	}
	if stream {
		return append(b, `],"stream":true}`...), nil
	}
	return append(b, `],"stream":false}`...), nil
}

// isObject reports whether raw is one valid JSON object, spaces around it
// allowed: a message must be one, and a strict model refuses anything
// else, null included.
func isObject(raw []byte) bool {
	t := bytes.TrimLeft(raw, " \t\r\n")
	return len(t) > 0 && t[0] == '{' && json.Valid(raw)
}

// ours reports whether the body's key is set by r itself, so that the
// pass-through field of that key is dropped.
func (r *ChatRequest) ours(key string) bool {
	switch key {
	case "model", "messages", "stream":
		return true
	case "tools":
		return len(r.Tools) > 0
	case "tool_choice":
		return len(r.Tools) > 0 || r.ToolChoice != nil
	}
	return false
}

// appendTools appends "tools" and "tool_choice", when set, each followed by
// a comma.
func (r *ChatRequest) appendTools(b []byte) ([]byte, error) {
	if len(r.Tools) > 0 {
		b = append(b, `"tools":[`...)
		for i, t := range r.Tools {
			if !json.Valid(t) {
				return nil, fmt.Errorf("llm: tool %d is not valid JSON", i)
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, t...)
		}
		b = append(b, "],"...)
	}
	if r.ToolChoice != nil {
		if !json.Valid(r.ToolChoice) {
			return nil, errors.New("llm: tool_choice is not valid JSON")
		}
		b = append(b, `"tool_choice":`...)
		b = append(b, r.ToolChoice...)
		b = append(b, ',')
	}
	return b, nil
}

// sizeHint estimates the body size to allocate it once.
func (r *ChatRequest) sizeHint() int {
	n := 64 + len(r.Model) + len(r.ToolChoice)
	for _, t := range r.Tools {
		n += len(t) + 1
	}
	for _, f := range r.Extra {
		n += len(f.Key) + len(f.Value) + 4
	}
	for _, m := range r.Messages {
		n += len(m.Raw) + len(m.Role) + len(m.Content) + 32
	}
	return n + n/16
}
