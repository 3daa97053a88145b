package request

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/contextvars"
	"github.com/agentgw/agentgw/llm"
)

// Request is a decoded agent request (docs/protocol.md §2).
type Request struct {
	// ID is the request id, set by the server.
	ID string
	// Source is where a run that is not an HTTP request comes from
	// (observe.SourceSchedule, ...), for its observers; "" means a
	// hand-off's run when Handoff is set, else observe.SourceInternal.
	Source  string
	Agent   string
	Command string
	Context *contextvars.Set
	// Definition is the platform's copy of the agent definition, if sent.
	Definition json.RawMessage
	// Origin is this gateway's address as the request reached it (its
	// public URL, or the scheme and host the client used), set by the
	// server: the one service.endpoint a Definition may name.
	Origin string
	// Messages are the earlier turns of the conversation, passed through.
	Messages []llm.Message
	// Action is set on an action feedback request.
	Action *actions.Feedback
	// ToolResults are an IDE's answers to frontend tool calls.
	ToolResults []toolspec.Result
	// Model is the request's own "model" field, if any.
	Model string
	// Extra are the fields passed to the upstream model unchanged, by key.
	Extra []llm.Field
	// Header is the plugin's request header, for the forward auth policy.
	Header http.Header
	// ContextID names the stored conversation the request continues
	// ("contextId"; a context variable "context" may name it instead).
	ContextID string
	// ContextVersion is the conversation version the caller read (the
	// server's If-Match); 0 checks nothing.
	ContextVersion int64
	// Owner is the caller a conversation belongs to, set by the server.
	Owner string
	// Body is the request body as it came, for a remote agent (valid while
	// the request is served).
	Body []byte
	// Handoff is the hand-off message (seed 001) the command runs for, as
	// JSON-shaped data, nil on a plugin's request: templates see it as
	// .handoff, plans as $handoff.
	Handoff map[string]any
}

// protocolFields are request fields that are the gateway's, never the
// model's: they are not passed upstream.
var protocolFields = []string{
	"agent", "command", "contextVariables", "agentDefinition", "messages", "action", "toolResults",
	"messageTemplates", "modelConfiguration", "model", "stream", "contextId",
}

// Decode decodes an agent request body. Errors are *apierr.Error with code
// BAD_REQUEST (malformed JSON, wrong field types, a malformed action) or
// INVALID_CONTEXT_VARIABLE. Pass-through fields are sorted by key.
func Decode(body []byte) (*Request, error) {
	fields := map[string]json.RawMessage{}
	extraAt := map[string]int{} // index in r.Extra by key
	r := &Request{Body: body}
	// The context variables, the bulk of a request, are decoded where the
	// split finds them rather than found first and decoded afterwards.
	decodeVars := func(rest []byte) (int, error) {
		set, n, err := contextvars.DecodePrefix(rest)
		if err != nil {
			return 0, contextError(err)
		}
		r.Context = set
		return n, nil
	}
	inPlace := func(key string) valueDecoder {
		if key == "contextVariables" {
			return decodeVars
		}
		return nil
	}
	err := splitObject(body, inPlace, func(key string, raw []byte) error {
		if !slices.Contains(protocolFields, key) {
			// Pass-through values go upstream verbatim: the split has
			// validated them (UTF-8 included).
			// The last of duplicate keys wins, found through an index:
			// searching Extra for each key made 40k fields quadratic.
			if i, ok := extraAt[key]; ok {
				r.Extra[i].Value = raw
				return nil
			}
			extraAt[key] = len(r.Extra)
			r.Extra = append(r.Extra, llm.Field{Key: key, Value: raw})
			return nil
		}
		fields[key] = raw
		return nil
	})
	if err != nil {
		var e *apierr.Error
		if errors.As(err, &e) {
			return nil, e
		}
		return nil, badJSON("request body", err)
	}
	if err := r.decodeKnown(fields); err != nil {
		return nil, err
	}
	slices.SortFunc(r.Extra, func(a, b llm.Field) int { return strings.Compare(a.Key, b.Key) })
	return r, nil
}

// decodeKnown decodes the protocol's own fields; each decoder validates
// its value.
func (r *Request) decodeKnown(fields map[string]json.RawMessage) error {
	var err error
	if r.Agent, err = stringField(fields, "agent"); err != nil {
		return err
	}
	if r.Command, err = stringField(fields, "command"); err != nil {
		return err
	}
	if r.Model, err = stringField(fields, "model"); err != nil {
		return err
	}
	if r.ContextID, err = stringField(fields, "contextId"); err != nil {
		return err
	}
	if r.Context == nil {
		r.Context = &contextvars.Set{}
	}
	if r.Messages, err = decodeMessages(fields["messages"]); err != nil {
		return err
	}
	if raw := fields["agentDefinition"]; !isJSONNull(raw) {
		if raw[0] != '{' {
			return apierr.Errorf(apierr.CodeBadRequest, "agentDefinition: expected an object")
		}
		r.Definition = raw
	}
	if raw := fields["action"]; !isJSONNull(raw) {
		fb, err := actions.DecodeFeedback(raw)
		if err != nil {
			return apierr.Errorf(apierr.CodeBadRequest, "action: %v", err).Suggest("echo the action's state and say what the user did (docs/protocol.md §5)")
		}
		r.Action = fb
	}
	if raw := fields["toolResults"]; !isJSONNull(raw) {
		rs, err := decodeToolResults(raw)
		if err != nil {
			return err
		}
		r.ToolResults = rs
	}
	return nil
}

func isJSONNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

func stringField(fields map[string]json.RawMessage, key string) (string, error) {
	raw := fields[key]
	if isJSONNull(raw) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", apierr.Errorf(apierr.CodeBadRequest, "%s: expected a string, got %s", key, jsonKind(raw))
	}
	return s, nil
}

// contextError is the protocol error for a contextVariables list that did
// not decode.
func contextError(err error) *apierr.Error {
	var ce *contextvars.Error
	if errors.As(err, &ce) && ce.Syntax {
		// Malformed JSON is a BAD_REQUEST wherever it is (docs/protocol.md
		// §2 and §6), also inside a variable's value.
		return apierr.New(apierr.CodeBadRequest, ce.Error()).Wrap(err)
	}
	if ce != nil {
		return apierr.New(apierr.CodeInvalidContext, ce.Error()).Wrap(err).Suggest("send the variable in the shape of docs/protocol.md §6")
	}
	return apierr.Errorf(apierr.CodeBadRequest, "contextVariables: %v", err)
}

type wireMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

func decodeMessages(raw json.RawMessage) ([]llm.Message, error) {
	if isJSONNull(raw) {
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, apierr.Errorf(apierr.CodeBadRequest, "messages: expected a list of {role, content}, got %s", jsonKind(raw))
	}
	out := make([]llm.Message, 0, len(items))
	for i, it := range items {
		msg, err := decodeMessage(i, it)
		if err != nil {
			return nil, err
		}
		out = append(out, msg)
	}
	return out, nil
}

// decodeMessage decodes messages[i], it.
func decodeMessage(i int, it json.RawMessage) (llm.Message, error) {
	var m wireMessage
	if err := json.Unmarshal(it, &m); err != nil || m.Role == "" {
		return llm.Message{}, apierr.Errorf(apierr.CodeBadRequest, "messages[%d]: expected an object with a string role", i)
	}
	msg := llm.Message{Role: m.Role, Raw: it}
	if len(m.Content) > 0 && m.Content[0] == '"' {
		_ = json.Unmarshal(m.Content, &msg.Content)
	}
	return msg, nil
}

func badJSON(what string, err error) *apierr.Error {
	msg := fmt.Sprintf("%s is not valid JSON: %v", what, err)
	if errors.Is(err, errSplit) {
		msg = fmt.Sprintf("%s is not a valid JSON object: %v", what, strings.TrimPrefix(err.Error(), errSplit.Error()+": "))
	}
	return apierr.New(apierr.CodeBadRequest, msg).Wrap(err)
}

func jsonKind(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// decodeToolResults reads a feedback request's toolResults.
func decodeToolResults(raw json.RawMessage) ([]toolspec.Result, error) {
	var rs []toolspec.Result
	if err := json.Unmarshal(raw, &rs); err != nil {
		return nil, apierr.Errorf(apierr.CodeBadRequest, "toolResults: expected a list of {callId, status, result}")
	}
	for i, r := range rs {
		if r.CallID == "" {
			return nil, apierr.Errorf(apierr.CodeBadRequest, "toolResults[%d]: callId is required", i)
		}
		if r.Status != "" && !toolspec.FrontendStatus(r.Status) {
			return nil, apierr.Errorf(apierr.CodeBadRequest, "toolResults[%d]: status %q must be SUCCESS, ERROR or TIMEOUT (or UNAVAILABLE, NOT_SUPPORTED, DECLINED: the tool could not run)", i, r.Status)
		}
	}
	if len(rs) == 0 {
		return nil, apierr.Errorf(apierr.CodeBadRequest, "toolResults: empty")
	}
	return rs, nil
}
