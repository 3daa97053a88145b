package llmtest

import (
	"encoding/json"
	"net/http"
	"strings"
)

// Request is one request the fake received: what came on the wire, and
// the chat completion fields read from its body.
type Request struct {
	// N is the request's number, from 0, in the order they came.
	N            int
	Method, Path string
	// RequestURI is the path and query as sent.
	RequestURI string
	Host       string
	// RemoteAddr is the client's address (its port tells connections
	// apart).
	RemoteAddr    string
	Header        http.Header
	ContentLength int64
	// Body is the request body exactly as sent.
	Body []byte
	// Model, Stream, Messages and Tools are read from Body (zero when it
	// is not a chat completion request).
	Model    string
	Stream   bool
	Messages []Message
	// Tools are the names of the functions offered.
	Tools []string
	// Done is closed when the fake has finished answering the request:
	// its reply ended, or the client went away, or the model was released.
	Done <-chan struct{}

	// chat is whether Body is a JSON object with messages.
	chat bool
}

// Message is a message of a request; Content is its text (a string, or
// the text parts joined).
type Message struct {
	Role       string
	Content    string
	Name       string
	ToolCallID string
	ToolCalls  []ToolCall
}

// LastMessage is the last message of the request (zero if none).
func (r Request) LastMessage() Message {
	if len(r.Messages) == 0 {
		return Message{}
	}
	return r.Messages[len(r.Messages)-1]
}

// JSON is the body decoded into generic values (nil when it is not JSON).
func (r Request) JSON() map[string]any {
	var m map[string]any
	if json.Unmarshal(r.Body, &m) != nil {
		return nil
	}
	return m
}

// decode reads the chat completion fields of r.Body; a body that is not
// one leaves them zero.
func (r *Request) decode() {
	var wire struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			Name       string          `json:"name"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []wireToolCall  `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if json.Unmarshal(r.Body, &wire) != nil {
		return
	}
	r.Model, r.Stream, r.chat = wire.Model, wire.Stream, wire.Messages != nil
	for _, m := range wire.Messages {
		msg := Message{Role: m.Role, Content: contentText(m.Content), Name: m.Name, ToolCallID: m.ToolCallID}
		for _, c := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
		}
		r.Messages = append(r.Messages, msg)
	}
	for _, t := range wire.Tools {
		r.Tools = append(r.Tools, t.Function.Name)
	}
}

// contentText is a message's content as text: a string, the text parts of
// a list of parts joined, or the JSON as written.
func contentText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return string(raw)
}
