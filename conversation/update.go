package conversation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The seed's message types (seed 000 section 3) a stored message has.
const (
	TypeUserInput        = "USER_INPUT"
	TypeModelResponse    = "MODEL_RESPONSE"
	TypeToolCallResponse = "TOOL_CALL_RESPONSE"
	TypeSystemMessage    = "SYSTEM_MESSAGE"
)

// roles maps the seed's message types to the roles the model sees.
var roles = map[string]string{
	TypeUserInput:        "user",
	TypeModelResponse:    "assistant",
	TypeToolCallResponse: "tool",
	TypeSystemMessage:    "system",
}

// TypeOf is the seed's type of a message of role: USER_INPUT for user,
// MODEL_RESPONSE for assistant, TOOL_CALL_RESPONSE for tool,
// SYSTEM_MESSAGE for system, "" for another role.
func TypeOf(role string) string {
	for t, r := range roles {
		if r == role {
			return t
		}
	}
	return ""
}

// envelopeType is the type of the seed's update message.
const envelopeType = "CONTEXT_UPDATE"

// Update is a PATCH body decoded: the operation, and the version and
// context id it names, if any.
type Update struct {
	Op        Operation
	Version   *int64
	ContextID string
}

// updateBody is a PATCH body: the project's operation, the seed's
// (section 8.2) bare, or the seed's in its envelope (section 2.2: type
// CONTEXT_UPDATE, the operation in content).
type updateBody struct {
	// The envelope.
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	MessageID string          `json:"messageId"`
	ContextID string          `json:"contextId"`
	Timestamp json.RawMessage `json:"timestamp"`
	Sender    json.RawMessage `json:"sender"`
	Metadata  json.RawMessage `json:"metadata"`
	// The operation.
	Operation string          `json:"operation"`
	State     map[string]any  `json:"state"`
	Path      *string         `json:"path"`
	Value     json.RawMessage `json:"value"`
	Filter    *struct {
		BeforeTimestamp *time.Time `json:"beforeTimestamp"`
	} `json:"filter"`
	Message  json.RawMessage   `json:"message"`
	Messages []json.RawMessage `json:"messages"`
	Version  *int64            `json:"version"`
}

// decodeStrict decodes one JSON object into v, refusing unknown fields.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %w", ErrBadOperation, err)
	}
	return nil
}

// DecodeUpdate decodes a PATCH body (valid JSON): the project's
// {"operation", "state", "version"}, the seed's operations bare
// ({"operation": "UPDATE_STATE", "path", "value"}, {"operation":
// "CLEAR_HISTORY", "filter": {"beforeTimestamp"}}, {"operation":
// "ADD_MESSAGE", "message"}), or in the seed's envelope {"type":
// "CONTEXT_UPDATE", "content": {…}}, whose version, if any, is the
// envelope's or the content's (both: the same). Its errors are
// ErrBadOperation.
func DecodeUpdate(data []byte) (Update, error) {
	var b updateBody
	if err := decodeStrict(data, &b); err != nil {
		return Update{}, err
	}
	u := Update{Version: b.Version, ContextID: b.ContextID}
	if b.Type == "" {
		if b.Content != nil || b.MessageID != "" || b.ContextID != "" || b.Timestamp != nil || b.Sender != nil || b.Metadata != nil {
			return Update{}, fmt.Errorf(`%w: content, messageId, contextId, timestamp, sender and metadata belong to the envelope {"type":"CONTEXT_UPDATE","content":{...}}`, ErrBadOperation)
		}
		op, err := b.operation()
		u.Op = op
		return u, err
	}
	if b.Type != envelopeType {
		return Update{}, fmt.Errorf("%w: type %q is not %s", ErrBadOperation, clip(b.Type), envelopeType)
	}
	if b.Operation != "" || b.State != nil || b.Path != nil || b.Value != nil || b.Filter != nil || b.Message != nil || b.Messages != nil {
		return Update{}, fmt.Errorf("%w: the operation of a %s goes in its content", ErrBadOperation, envelopeType)
	}
	if len(b.Content) == 0 || b.Content[0] != '{' {
		return Update{}, fmt.Errorf("%w: a %s needs a content object", ErrBadOperation, envelopeType)
	}
	var in updateBody
	if err := decodeStrict(b.Content, &in); err != nil {
		return Update{}, err
	}
	if in.Type != "" || in.Content != nil || in.MessageID != "" || in.ContextID != "" || in.Timestamp != nil || in.Sender != nil || in.Metadata != nil {
		return Update{}, fmt.Errorf("%w: a %s's content holds the operation only", ErrBadOperation, envelopeType)
	}
	if in.Version != nil {
		if u.Version != nil && *u.Version != *in.Version {
			return Update{}, fmt.Errorf("%w: the envelope's version %d and the content's %d disagree", ErrBadOperation, *u.Version, *in.Version)
		}
		u.Version = in.Version
	}
	op, err := in.operation()
	u.Op = op
	return u, err
}

// operation is the operation of a bare body or an envelope's content.
func (b *updateBody) operation() (Operation, error) {
	op := Operation{Op: b.Operation, State: b.State}
	switch b.Operation {
	case OpUpdateState:
		if b.Path != nil {
			if b.State != nil {
				return op, fmt.Errorf("%w: an UPDATE_STATE has a state or a path, not both", ErrBadOperation)
			}
			if b.Value == nil {
				return op, fmt.Errorf("%w: an UPDATE_STATE with a path needs a value (null deletes the key)", ErrBadOperation)
			}
			if _, err := splitPath(*b.Path); err != nil {
				return op, err
			}
			op.Path, op.Value = *b.Path, b.Value
		} else if b.Value != nil {
			return op, fmt.Errorf("%w: a value needs a path", ErrBadOperation)
		}
	case OpClearHistory:
		if b.Filter != nil {
			if b.Filter.BeforeTimestamp == nil {
				return op, fmt.Errorf("%w: a CLEAR_HISTORY filter needs beforeTimestamp", ErrBadOperation)
			}
			t := b.Filter.BeforeTimestamp.UTC()
			op.Before = &t
		}
	case OpAddMessage:
		raws := b.Messages
		if b.Message != nil {
			raws = append([]json.RawMessage{b.Message}, raws...)
		}
		if len(raws) == 0 {
			return op, fmt.Errorf("%w: an ADD_MESSAGE needs a message", ErrBadOperation)
		}
		for i, raw := range raws {
			m, err := ParseMessage(raw)
			if err != nil {
				return op, fmt.Errorf("message %d: %w", i, err)
			}
			op.Messages = append(op.Messages, m)
		}
	case "":
		return op, fmt.Errorf("%w: the body names no operation", ErrBadOperation)
	default:
		return op, fmt.Errorf("%w: %q is not an operation of PATCH (UPDATE_STATE, CLEAR_HISTORY or ADD_MESSAGE)", ErrBadOperation, clip(b.Operation))
	}
	if b.Operation != OpUpdateState && (b.State != nil || b.Path != nil || b.Value != nil) ||
		b.Operation != OpClearHistory && b.Filter != nil ||
		b.Operation != OpAddMessage && (b.Message != nil || b.Messages != nil) {
		return op, fmt.Errorf("%w: a field of another operation than %s", ErrBadOperation, b.Operation)
	}
	return op, nil
}

// clip cuts a client's string for an error message.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// inMessage is a message a client adds: the project's {role, content:
// "text", toolCalls?, toolCallId?} or the seed's {messageId?, type,
// content: {text, toolCalls?, …}}.
type inMessage struct {
	MessageID  string          `json:"messageId"`
	Type       string          `json:"type"`
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  json.RawMessage `json:"toolCalls"`
	ToolCallID string          `json:"toolCallId"`
}

// seedContent is the part of a seed message's content a stored message
// keeps apart; the rest of the content is kept as its JSON.
type seedContent struct {
	Text       *string         `json:"text"`
	ToolCalls  json.RawMessage `json:"toolCalls"`
	ToolCallID string          `json:"toolCallId"`
}

// ParseMessage reads a message a client adds, in the project's shape or
// the seed's. The seed's type gives the role (USER_INPUT user,
// MODEL_RESPONSE assistant, TOOL_CALL_RESPONSE tool, SYSTEM_MESSAGE
// system); its content's text is the message's content, or, without a
// text, the content's JSON; its toolCalls and toolCallId are kept apart.
// A messageId, when sent, is kept (an id of ValidID's form); the gateway
// makes one otherwise. Other fields of the seed's envelope (timestamp,
// sender, metadata) are not kept: the time is the gateway's.
func ParseMessage(raw json.RawMessage) (Message, error) {
	var in inMessage
	if err := json.Unmarshal(raw, &in); err != nil {
		return Message{}, fmt.Errorf("%w: the message is not an object of role, content or type: %w", ErrBadOperation, err)
	}
	if in.MessageID != "" && !ValidID(in.MessageID) {
		return Message{}, fmt.Errorf("%w: messageId %q is not 1 to 128 of A-Z a-z 0-9 . _ : -", ErrBadOperation, clip(in.MessageID))
	}
	m := Message{Role: in.Role, ToolCalls: in.ToolCalls, ToolCallID: in.ToolCallID, ID: in.MessageID, Type: in.Type}
	if in.Type != "" {
		role, ok := roles[in.Type]
		if !ok {
			return Message{}, fmt.Errorf("%w: message type %q is not USER_INPUT, MODEL_RESPONSE, TOOL_CALL_RESPONSE or SYSTEM_MESSAGE", ErrBadOperation, clip(in.Type))
		}
		if in.Role != "" && in.Role != role {
			return Message{}, fmt.Errorf("%w: role %q disagrees with type %s", ErrBadOperation, clip(in.Role), in.Type)
		}
		m.Role = role
	} else {
		if TypeOf(in.Role) == "" {
			return Message{}, fmt.Errorf("%w: a message needs a type (USER_INPUT, MODEL_RESPONSE, TOOL_CALL_RESPONSE, SYSTEM_MESSAGE) or a role (user, assistant, tool, system)", ErrBadOperation)
		}
		m.Type = TypeOf(in.Role)
	}
	switch c := bytes.TrimSpace(in.Content); {
	case len(c) == 0 || string(c) == "null":
	case c[0] == '"':
		_ = json.Unmarshal(c, &m.Content)
	case c[0] == '{':
		var sc seedContent
		if err := json.Unmarshal(c, &sc); err != nil {
			return Message{}, fmt.Errorf("%w: the message's content: %w", ErrBadOperation, err)
		}
		if sc.Text != nil {
			m.Content = *sc.Text
		} else {
			m.Content = string(c)
		}
		if len(sc.ToolCalls) > 0 && string(sc.ToolCalls) != "null" {
			m.ToolCalls = sc.ToolCalls
		}
		m.ToolCallID = firstNonEmpty(m.ToolCallID, sc.ToolCallID)
	default:
		return Message{}, fmt.Errorf("%w: a message's content is a string or an object", ErrBadOperation)
	}
	if string(m.ToolCalls) == "null" {
		m.ToolCalls = nil
	}
	return m, nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// splitPath splits a dotted state path into its keys.
func splitPath(path string) ([]string, error) {
	keys := strings.Split(path, ".")
	for _, k := range keys {
		if k == "" {
			return nil, fmt.Errorf("%w: path %q has an empty key", ErrBadOperation, clip(path))
		}
	}
	return keys, nil
}

// SetPath sets v at the dotted path of state, in place: a key of an
// object names its member, made (as an empty object) when it is missing
// or null; an array is indexed by a decimal number from 0 to its length
// - 1 (anything else is ErrBadPath, as is a key into a string, number or
// boolean). A null v deletes an object's member, and sets an array's
// element to null.
func SetPath(state map[string]any, path string, v any) error {
	keys, err := splitPath(path)
	if err != nil {
		return err
	}
	var cur any = state
	for i, k := range keys {
		last := i == len(keys)-1
		switch node := cur.(type) {
		case map[string]any:
			if last {
				if v == nil {
					delete(node, k)
				} else {
					node[k] = v
				}
				return nil
			}
			next, ok := node[k]
			if !ok || next == nil {
				next = map[string]any{}
				node[k] = next
			}
			cur = next
		case []any:
			n, err := strconv.Atoi(k)
			if err != nil || n < 0 || n >= len(node) || strconv.Itoa(n) != k {
				return fmt.Errorf("%w: %q in path %q is not an index of an array of %d", ErrBadPath, clip(k), clip(path), len(node))
			}
			if last {
				node[n] = v
				return nil
			}
			if node[n] == nil {
				node[n] = map[string]any{}
			}
			cur = node[n]
		default:
			return fmt.Errorf("%w: %q in path %q is below a %T, not an object or an array", ErrBadPath, clip(k), clip(path), cur)
		}
	}
	return nil
}
