package openaiapi

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/agentgw/agentgw/sse"
)

// chatRequest is what the endpoint reads of a chat completion request.
type chatRequest struct {
	Model string
	// Stream asks for chat.completion.chunk frames; IncludeUsage for the
	// usage chunk before the terminator (stream_options.include_usage).
	Stream       bool
	IncludeUsage bool
	Messages     []message
	// Extra are the members passed to the upstream model unchanged
	// (temperature, max_tokens, stop, user, ...), sorted by key.
	Extra []member
}

// message is one message of the request.
type message struct {
	Role string
	// Text is the content as text: a string, or its text parts joined.
	Text string
	// Raw is the message as it came, a JSON object.
	Raw json.RawMessage
}

// member is one member of a JSON object.
type member struct {
	Key   string
	Value json.RawMessage
}

// notPassed are the request members that never go upstream: the ones the
// endpoint reads, the client's tools (the agent's are offered instead,
// and the client could not run the agent's), and the agent protocol's own
// members, which a chat completion request does not carry.
var notPassed = []string{
	"model", "messages", "stream", "stream_options", "n",
	"tools", "tool_choice", "parallel_tool_calls", "functions", "function_call",
	"agent", "command", "contextVariables", "agentDefinition", "action", "toolResults", "contextId",
	"messageTemplates", "modelConfiguration",
}

// decodeTop decodes the request's top-level object. encoding/json checks
// the whole body first (linear in its size, nesting bounded) and keeps the
// last of duplicate keys.
func decodeTop(body []byte) (map[string]json.RawMessage, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil || top == nil {
		return nil, badRequest("the body is not a JSON object")
	}
	return top, nil
}

// modelOf is the request's model, which must be a non-empty string.
func modelOf(top map[string]json.RawMessage) (string, error) {
	var model string
	if raw, ok := top["model"]; !ok || json.Unmarshal(raw, &model) != nil || model == "" {
		return "", badRequest("model: expected the name of a model, one of GET /v1/models")
	}
	return model, nil
}

// decodeRequest decodes a chat completion request from its top-level
// members. Every value is decoded once more at most, so that a body costs
// time and memory in proportion to its size.
func decodeRequest(top map[string]json.RawMessage) (*chatRequest, error) {
	model, err := modelOf(top)
	if err != nil {
		return nil, err
	}
	r := &chatRequest{Model: model}
	if err := optional(top, "stream", &r.Stream); err != nil {
		return nil, err
	}
	var opts struct {
		IncludeUsage bool `json:"include_usage"`
	}
	if err := optional(top, "stream_options", &opts); err != nil {
		return nil, err
	}
	r.IncludeUsage = r.Stream && opts.IncludeUsage
	var n *int
	if err := optional(top, "n", &n); err != nil {
		return nil, err
	}
	if n != nil && *n != 1 {
		return nil, badRequest("n: this endpoint answers with one choice; send n 1 or none")
	}
	if r.Messages, err = decodeMessages(top["messages"]); err != nil {
		return nil, err
	}
	for k, v := range top {
		if !slices.Contains(notPassed, k) {
			r.Extra = append(r.Extra, member{Key: k, Value: v})
		}
	}
	slices.SortFunc(r.Extra, func(a, b member) int { return strings.Compare(a.Key, b.Key) })
	return r, nil
}

// optional decodes the member key into v when it is there and not null.
func optional(top map[string]json.RawMessage, key string, v any) error {
	raw, ok := top[key]
	if !ok || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return badRequest("%s: a value of the wrong type", key)
	}
	return nil
}

// decodeMessages decodes the messages: a non-empty list of objects with a
// string role and a content that is a string, null or a list of parts.
func decodeMessages(raw json.RawMessage) ([]message, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || len(items) == 0 {
		return nil, badRequest("messages: expected a non-empty list of {role, content}")
	}
	out := make([]message, 0, len(items))
	for i, it := range items {
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(it, &m); err != nil || m.Role == "" || it[0] != '{' {
			return nil, badRequest("messages[%d]: expected an object with a string role", i)
		}
		text, ok := contentText(m.Content)
		if !ok {
			return nil, badRequest("messages[%d].content: expected a string or a list of content parts", i)
		}
		out = append(out, message{Role: m.Role, Text: text, Raw: it})
	}
	return out, nil
}

// contentText is a message content as text: a string, null (""), or a
// list of parts whose text parts are joined by line breaks (images and
// other parts have no text).
func contentText(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	var s string
	if raw[0] == '"' {
		return s, json.Unmarshal(raw, &s) == nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return "", false
	}
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		if p.Type == "text" || p.Type == "" && p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n"), true
}

// isSystem reports whether a role gives rules rather than a turn.
func isSystem(role string) bool { return role == "system" || role == "developer" }

// agentBody is the agent request (docs/protocol.md §2) that runs command
// of agentName for r: the last user message is userInputPrompt, the system
// messages are globalPrompts, the other messages before it the earlier
// turns, and the extra members pass through. After the last user message
// there may be only system messages.
func agentBody(r *chatRequest, agentName, command string) ([]byte, error) {
	last := len(r.Messages) - 1
	for last >= 0 && isSystem(r.Messages[last].Role) {
		last--
	}
	if last < 0 || r.Messages[last].Role != "user" {
		return nil, badRequest("messages: the last message that is not a system message must be the user's: it is what the agent answers")
	}
	b := make([]byte, 0, 256+2*sizeOf(r))
	b = append(b, `{"agent":`...)
	b = sse.AppendString(b, agentName)
	if command != "" {
		b = append(b, `,"command":`...)
		b = sse.AppendString(b, command)
	}
	b = append(b, `,"contextVariables":[{"name":"userInputPrompt","value":`...)
	b = sse.AppendString(b, r.Messages[last].Text)
	b = append(b, '}')
	if slices.ContainsFunc(r.Messages, func(m message) bool { return isSystem(m.Role) }) {
		b = append(b, `,{"name":"globalPrompts","value":[`...)
		first := true
		for _, m := range r.Messages {
			if !isSystem(m.Role) {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, `{"role":"system","content":`...)
			b = sse.AppendString(b, m.Text)
			b = append(b, '}')
		}
		b = append(b, "]}"...)
	}
	b = append(b, `],"messages":[`...)
	first := true
	for _, m := range r.Messages[:last] {
		if isSystem(m.Role) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, m.Raw...)
	}
	b = append(b, ']')
	for _, f := range r.Extra {
		b = append(b, ',')
		b = sse.AppendString(b, f.Key)
		b = append(b, ':')
		b = append(b, f.Value...)
	}
	return append(b, '}'), nil
}

// sizeOf is about the size of r's messages and extra members.
func sizeOf(r *chatRequest) int {
	n := 0
	for _, m := range r.Messages {
		n += len(m.Raw)
	}
	for _, f := range r.Extra {
		n += len(f.Key) + len(f.Value)
	}
	return n
}

// promptText is the text of every message, for estimating the prompt's
// tokens when the upstream reports none.
func promptText(r *chatRequest) string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

// resolve names the agent and command a model selects: "agent" is its
// default command, "agent/command" another; ok is false for a model that
// is no agent (it may be the upstream's, such as "meta-llama/Llama-3").
func resolve(model string, isAgent func(string) bool) (agentName, command string, ok bool) {
	if isAgent(model) {
		return model, "", true
	}
	if a, c, found := strings.Cut(model, "/"); found && a != "" && isAgent(a) {
		return a, c, true
	}
	return "", "", false
}
