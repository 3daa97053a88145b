package openaiapi

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentgw/agentgw/agent/request"
	"github.com/agentgw/agentgw/contextvars"
	"github.com/agentgw/agentgw/internal/jsonscan"
	"github.com/agentgw/agentgw/llm"
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

// topLevel is a request body's top-level object, split into its members:
// the last of duplicate keys, sorted by key.
type topLevel struct {
	members []member
	// messages is the messages member, an array, decoded as decodeTop
	// validated it (readMessages), so that decodeRequest need not read
	// its bytes again: the messages, or the error about them.
	messages    []message
	messagesErr error
	// decoded is set when messages and messagesErr are the messages
	// member's.
	decoded bool
}

// get is the value of the member key, nil when there is none.
func (t *topLevel) get(key string) []byte {
	i, ok := slices.BinarySearchFunc(t.members, key, func(m member, k string) int { return strings.Compare(m.Key, k) })
	if !ok {
		return nil
	}
	return t.members[i].Value
}

// decodeTop splits the request's top-level object with the request path's
// tokenizer (internal/jsonscan), which validates the whole body as it goes
// (linear in its size, nesting bounded), as encoding/json does: invalid
// UTF-8 in strings is accepted and decodes to U+FFFD, and the last of
// duplicate keys is kept. The values are subslices of body.
//
// It and decodeRequest replaced encoding/json (a map of json.RawMessage,
// then each value unmarshalled again, the messages twice), which was a
// third of the endpoint's own CPU per streamed request; FuzzDecodeStdlib
// checks them against it (decode_std_test.go). See bench/README.md, "The
// OpenAI endpoint's per-request path".
//
// A messages array is decoded as it is validated (readMessages), not
// skipped and read again by decodeRequest: the last one's messages, or
// the error about them, are kept for decodeRequest, which reports it
// where it did. A messages array with such an error is skipped again from
// its start, so that a syntax error after it still makes the body
// invalid, as the validation first has it.
func decodeTop(body []byte) (*topLevel, error) {
	s := newScanner(body)
	if s.Peek() != '{' {
		return nil, badRequest("the body is not a JSON object")
	}
	// Room for the members a request usually has (model, messages,
	// stream, stream_options, temperature, ...): one allocation.
	top := &topLevel{members: make([]member, 0, 8)}
	err := s.Object(func(key []byte) error {
		start, depth := s.Pos, s.Depth
		if string(key) == "messages" && s.Peek() == '[' {
			msgs, err := readMessages(s)
			if _, syntax := err.(*jsonscan.SyntaxError); syntax {
				return err
			}
			top.messages, top.messagesErr, top.decoded = msgs, err, true
			if err != nil {
				s.Pos, s.Depth = start, depth
				err = s.Skip()
			}
			top.members = append(top.members, member{Key: string(key), Value: body[start:s.Pos]})
			return err
		}
		if err := s.Skip(); err != nil {
			return err
		}
		top.members = append(top.members, member{Key: string(key), Value: body[start:s.Pos]})
		return nil
	})
	if err != nil || s.End() != nil {
		return nil, badRequest("the body is not a JSON object")
	}
	// Sorted, the last of each key's run is the last given.
	slices.SortStableFunc(top.members, func(a, b member) int { return strings.Compare(a.Key, b.Key) })
	kept := top.members[:0]
	for i, m := range top.members {
		if i+1 < len(top.members) && top.members[i+1].Key == m.Key {
			continue
		}
		kept = append(kept, m)
	}
	top.members = kept
	if raw := top.get("messages"); len(raw) == 0 || raw[0] != '[' {
		// The last messages member is no array: a decoded one was
		// an earlier duplicate's.
		top.messages, top.messagesErr, top.decoded = nil, nil, false
	}
	return top, nil
}

// newScanner is a scanner over a value of the body, which decodeTop has
// validated, reading strings as encoding/json does.
func newScanner(value []byte) *jsonscan.Scanner {
	return &jsonscan.Scanner{Data: value, AcceptInvalidUTF8: true}
}

// modelOf is the request's model, which must be a non-empty string.
func modelOf(top *topLevel) (string, error) {
	model, ok := stringOf(top.get("model"))
	if !ok || model == "" {
		return "", badRequest("model: expected the name of a model, one of GET /v1/models")
	}
	return model, nil
}

// stringOf decodes a string value; null is "" as encoding/json leaves a
// string, ok false is another kind of value (or none).
func stringOf(raw []byte) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' && !isNull(raw) {
		return "", false
	}
	if isNull(raw) {
		return "", true
	}
	s, err := newScanner(raw).ReadString()
	return s, err == nil
}

func isNull(raw []byte) bool { return string(raw) == "null" }

// streams reports whether the request asks for a stream: for a request
// passed through, where a stream of the wrong type is the upstream's to
// refuse.
func (t *topLevel) streams() bool { return string(t.get("stream")) == "true" }

// decodeRequest decodes a chat completion request from its top-level
// members. Every value is decoded once more at most, so that a body costs
// time and memory in proportion to its size.
func decodeRequest(top *topLevel) (*chatRequest, error) {
	model, err := modelOf(top)
	if err != nil {
		return nil, err
	}
	r := &chatRequest{Model: model}
	if raw := top.get("stream"); raw != nil && !isNull(raw) {
		if !isBool(raw) {
			return nil, wrongType("stream")
		}
		r.Stream = string(raw) == "true"
	}
	includeUsage, ok := includeUsage(top.get("stream_options"))
	if !ok {
		return nil, wrongType("stream_options")
	}
	r.IncludeUsage = r.Stream && includeUsage
	if raw := top.get("n"); raw != nil && !isNull(raw) {
		if raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
			return nil, wrongType("n")
		}
		// As encoding/json decodes an int: 1.0 and 1e0 are no int.
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return nil, wrongType("n")
		}
		if n != 1 {
			return nil, badRequest("n: this endpoint answers with one choice; send n 1 or none")
		}
	}
	if top.decoded {
		r.Messages, err = top.messages, top.messagesErr
	} else {
		r.Messages, err = decodeMessages(top.get("messages"))
	}
	if err != nil {
		return nil, err
	}
	for _, m := range top.members {
		if !slices.Contains(notPassed, m.Key) {
			r.Extra = append(r.Extra, m)
		}
	}
	return r, nil
}

func isBool(raw []byte) bool { return string(raw) == "true" || string(raw) == "false" }

// wrongType is the error of a member whose value has the wrong type.
func wrongType(key string) error { return badRequest("%s: a value of the wrong type", key) }

// includeUsage reads stream_options (null, or an object) for its
// include_usage, matched as encoding/json matches a struct field's name
// (the exact name, or the same letters in another case): a boolean, or null
// that leaves it as it was. ok is false for a value of the wrong type.
func includeUsage(raw []byte) (include, ok bool) {
	if raw == nil || isNull(raw) {
		return false, true
	}
	if raw[0] != '{' {
		return false, false
	}
	ok = true
	s := newScanner(raw)
	_ = s.Object(func(key []byte) error {
		start := s.Pos
		if err := s.Skip(); err != nil {
			return err
		}
		if !bytes.EqualFold(key, []byte("include_usage")) {
			return nil
		}
		switch v := raw[start:s.Pos]; {
		case isBool(v):
			include = string(v) == "true"
		case !isNull(v):
			ok = false
		}
		return nil
	})
	return include, ok
}

// decodeMessages decodes the messages: a non-empty list of objects with a
// string role and a content that is a string, null or a list of parts.
func decodeMessages(raw []byte) ([]message, error) {
	if len(raw) == 0 || raw[0] != '[' {
		return nil, badRequest("messages: expected a non-empty list of {role, content}")
	}
	return readMessages(newScanner(raw))
}

// readMessages reads the array of messages at s for decodeMessages,
// validating it as it goes: the error is a *jsonscan.SyntaxError, not
// wrapped, when it is not valid JSON (up to where it was read), else the
// client error about the first message that is not one.
func readMessages(s *jsonscan.Scanner) ([]message, error) {
	raw := s.Data
	var out []message
	err := s.Array(func() error {
		i, start := len(out), s.Pos
		role, c, ok, err := roleContent(s)
		if err != nil {
			return err
		}
		if !ok || role == "" {
			return badRequest("messages[%d]: expected an object with a string role", i)
		}
		text, ok := c.text, c.decoded
		if !ok {
			text, ok = contentText(c.raw)
		}
		if !ok {
			return badRequest("messages[%d].content: expected a string or a list of content parts", i)
		}
		out = append(out, message{Role: role, Text: text, Raw: raw[start:s.Pos]})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, badRequest("messages: expected a non-empty list of {role, content}")
	}
	return out, nil
}

// content is a message's content as it came, and its text when it is a
// string, decoded where roleContent met it (contentText's, without a
// second pass over the bytes).
type content struct {
	raw     []byte
	text    string
	decoded bool
}

// roleContent reads a message for its role, a string, and its content,
// the members matched as encoding/json matches a struct's fields (a null
// role leaves it as it was); ok is false for a message that is no object
// or whose role is no string. It consumes and validates the message: err
// is the syntax error of one that is not valid JSON.
func roleContent(s *jsonscan.Scanner) (role string, c content, ok bool, err error) {
	if s.Peek() != '{' {
		return "", content{}, false, s.Skip()
	}
	ok = true
	err = s.Object(func(key []byte) error {
		start := s.Pos
		switch {
		case bytes.EqualFold(key, []byte("role")):
			if s.Peek() == '"' {
				r, err := s.ReadString()
				role = r
				return err
			}
			if s.Peek() != 'n' {
				ok = false
			}
		case bytes.EqualFold(key, []byte("content")):
			if s.Peek() == '"' {
				if text, err := s.ReadString(); err == nil {
					c = content{raw: s.Data[start:s.Pos], text: text, decoded: true}
					return nil
				}
				s.Pos = start // contentText says what is wrong with it
			}
			err := s.Skip()
			c = content{raw: s.Data[start:s.Pos]}
			return err
		}
		return s.Skip()
	})
	return role, c, ok, err
}

// contentText is a message content as text: a string, null (""), or a
// list of parts whose text parts are joined by line breaks (images and
// other parts have no text). Its parts' type and text are matched as
// encoding/json matches a struct's fields.
func contentText(raw []byte) (string, bool) {
	if len(raw) == 0 || isNull(raw) {
		return "", true
	}
	switch raw[0] {
	case '"':
		return stringOf(raw)
	case '[':
	default:
		return "", false
	}
	var texts []string
	ok := true
	s := newScanner(raw)
	_ = s.Array(func() error {
		if null, err := s.IsNull(); null || err != nil {
			return err
		}
		if s.Peek() != '{' {
			ok = false
			return s.Skip()
		}
		var typ, text string
		err := s.Object(func(key []byte) error {
			var dst *string
			switch {
			case bytes.EqualFold(key, []byte("type")):
				dst = &typ
			case bytes.EqualFold(key, []byte("text")):
				dst = &text
			default:
				return s.Skip()
			}
			switch s.Peek() {
			case '"':
				v, err := s.ReadString()
				*dst = v
				return err
			case 'n':
			default:
				ok = false
			}
			return s.Skip()
		})
		if typ == "text" || typ == "" && text != "" {
			texts = append(texts, text)
		}
		return err
	})
	if !ok {
		return "", false
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
	last, err := lastUser(r)
	if err != nil {
		return nil, err
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

// lastUser is the index of the last message that is not a system
// message, which must be the user's.
func lastUser(r *chatRequest) (int, error) {
	last := len(r.Messages) - 1
	for last >= 0 && isSystem(r.Messages[last].Role) {
		last--
	}
	if last < 0 || r.Messages[last].Role != "user" {
		return 0, badRequest("messages: the last message that is not a system message must be the user's: it is what the agent answers")
	}
	return last, nil
}

// agentRequest is request.Decode(agentBody(r, agentName, command)) built
// without the decode: the context variables, messages and pass-through
// members are taken from r as agentBody writes them (FuzzAgentRequest
// checks the two are equal). Its Body is nil: only a remote agent is sent
// one, and the handler writes it (agentBody) once the runner has said the
// agent is one, so that a local agent's request is not encoded again.
func agentRequest(r *chatRequest, agentName, command string) (*request.Request, error) {
	last, err := lastUser(r)
	if err != nil {
		return nil, err
	}
	if !utf8.ValidString(agentName) || !utf8.ValidString(command) {
		// Names that are not UTF-8 (never, from a decoded model name)
		// are written as U+FFFD: the decode says what they become.
		body, err := agentBody(r, agentName, command)
		if err != nil {
			return nil, err
		}
		return request.Decode(body)
	}
	var global []contextvars.Prompt
	var messages []json.RawMessage
	for _, m := range r.Messages[:last] {
		if !isSystem(m.Role) {
			messages = append(messages, m.Raw)
		}
	}
	for _, m := range r.Messages {
		if isSystem(m.Role) {
			global = append(global, contextvars.Prompt{Role: "system", Content: m.Text})
		}
	}
	var extra []llm.Field
	if len(r.Extra) > 0 {
		extra = make([]llm.Field, len(r.Extra))
		for i, f := range r.Extra {
			extra[i] = llm.Field{Key: f.Key, Value: f.Value}
		}
	}
	return request.Build(agentName, command, contextvars.PromptSet(r.Messages[last].Text, global), messages, extra, nil)
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
