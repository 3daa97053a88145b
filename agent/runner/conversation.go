package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/agentgw/agentgw/apierr"
	conversation1 "github.com/agentgw/agentgw/conversation"
	"github.com/agentgw/agentgw/llm"
)

// Names of the context variables a conversation fills (docs/protocol.md
// §6 and §11, "context"): the conversation itself, and its state.
const (
	varContext = "context"
	varState   = "state"
)

// commitTimeout bounds keeping a turn once its answer has streamed: the
// client may have gone, the turn is still kept.
const commitTimeout = 10 * time.Second

// conversation is the stored conversation (package conversation) a run
// continues: bound in Prepare from the request's contextId, its turn kept
// by commit once the answer is complete.
type conversation struct {
	repo   conversation1.Repo
	id     string
	owner  string
	expect int64  // the version the request named (If-Match), 0 none
	user   string // the user's turn
	header string // what the answer of a hand-off's run starts with

	mu sync.Mutex
	// text is what the run showed the user (convEmitter).
	text strings.Builder
	// looped is set when the command's own model called tools: loop holds
	// the rounds as the model saw them and final its last answer.
	looped bool
	loop   []llm.Message
	final  string
	// patch is what plan steps set into context.state.
	patch map[string]any
}

// convState is what a paused run keeps of its conversation's turn.
type convState struct {
	ID     string         `json:"id"`
	Owner  string         `json:"owner"`
	Expect int64          `json:"expect,omitempty"`
	User   string         `json:"user,omitempty"`
	Header string         `json:"header,omitempty"`
	Text   string         `json:"text,omitempty"`
	Patch  map[string]any `json:"patch,omitempty"`
}

// requestContextID is the conversation the request names: its contextId,
// else a context variable "context" that is an id or {contextId}.
func requestContextID(req *Request) string {
	if req.ContextID != "" {
		return req.ContextID
	}
	switch v := req.Context.Other[varContext].(type) {
	case string:
		return v
	case map[string]any:
		if s, ok := v["contextId"].(string); ok {
			return s
		}
	}
	return ""
}

// bindConversation opens the conversation the request names, creating it
// for the caller when the id is new, or, for a run that resumes, the one
// it paused in. Its errors are for before the stream: a malformed id is
// BAD_REQUEST, another caller's or a deleted one CONTEXT_NOT_FOUND, a
// stale If-Match CONTEXT_CONFLICT, a failing store STORE_UNAVAILABLE.
func (r *Runner) bindConversation(run *Run) error {
	req := run.req
	id := requestContextID(req)
	if id == "" && (run.paused == nil || run.paused.Conv == nil) {
		return nil // the common case: no conversation, nothing made
	}
	conv := &conversation{repo: r.cfg.Contexts, id: id, owner: req.Owner, expect: req.ContextVersion}
	switch {
	case req.Handoff != nil:
		// A hand-off's run answers in the conversation that sent it: no
		// user turn, the answer said to be the hand-off's.
		conv.header = handoffHeader(run.agent.Name(), req.Handoff)
	case req.Action == nil && req.ToolResults == nil:
		// A click or a tool's answer is no new user turn, whatever input
		// the plugin sends again with it.
		conv.user = req.Context.UserInputPrompt
	}
	if p := run.paused; p != nil && p.Conv != nil {
		conv.id, conv.owner, conv.expect, conv.user, conv.header, conv.patch = p.Conv.ID, p.Conv.Owner, p.Conv.Expect, p.Conv.User, p.Conv.Header, p.Conv.Patch
		conv.text.WriteString(p.Conv.Text)
	}
	if conv.id == "" {
		return nil
	}
	if !conversation1.ValidID(conv.id) {
		return conversation1.ProtocolError(conv.id, conversation1.ErrBadID)
	}
	if conv.repo == nil {
		return apierr.Errorf(apierr.CodeBadRequest, "this gateway keeps no conversations, so contextId %q cannot be used", conv.id).
			Suggest("send the earlier turns as messages instead")
	}
	c, _, err := conv.repo.Open(bgctx(), conv.id, conv.owner)
	if err != nil {
		return conversation1.ProtocolError(conv.id, err)
	}
	if conv.expect != 0 && conv.expect != c.Version {
		return conversation1.ProtocolError(conv.id, conversation1.ErrConflict)
	}
	run.conv = conv
	if req.Messages == nil && run.paused == nil {
		run.turns = storedTurns(c.Messages)
	}
	if req.Context.Other == nil {
		req.Context.Other = map[string]any{}
	}
	state := maps.Clone(c.State)
	req.Context.Other[varContext] = map[string]any{"contextId": c.ID, "version": c.Version,
		"state": state, "metadata": c.Metadata}
	req.Context.Other[varState] = state
	return nil
}

// planContext is the context as plans see it ($context, and .context in
// step templates): the context variables by name, and, while a
// conversation is bound, its fields (contextId, version, state, metadata)
// over them, so that .context is the conversation there as it is in
// command templates.
func (run *Run) planContext() map[string]any {
	data := run.contextData()
	conv, ok := data[varContext].(map[string]any)
	if run.conv == nil || !ok {
		return data
	}
	out := maps.Clone(data)
	maps.Copy(out, conv)
	return out
}

// storedTurns are a conversation's stored messages as prompt turns.
func storedTurns(ms []conversation1.Message) []llm.Message {
	out := make([]llm.Message, 0, len(ms))
	for _, m := range ms {
		switch {
		case len(m.ToolCalls) > 0:
			raw, _ := json.Marshal(struct {
				Role      string          `json:"role"`
				Content   *string         `json:"content"`
				ToolCalls json.RawMessage `json:"tool_calls"`
			}{m.Role, nonEmpty(m.Content), m.ToolCalls})
			out = append(out, llm.Message{Role: m.Role, Raw: raw})
		case m.ToolCallID != "":
			out = append(out, llm.ToolMessage(m.ToolCallID, m.Content))
		default:
			out = append(out, llm.Message{Role: m.Role, Content: m.Content})
		}
	}
	return out
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// storedMessage is a prompt message as a conversation keeps it.
func storedMessage(m llm.Message) conversation1.Message {
	if m.Raw == nil {
		return conversation1.Message{Role: m.Role, Content: m.Content}
	}
	var v struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCalls  json.RawMessage `json:"tool_calls"`
		ToolCallID string          `json:"tool_call_id"`
	}
	_ = json.Unmarshal(m.Raw, &v)
	out := conversation1.Message{Role: firstNonEmpty(v.Role, m.Role), ToolCallID: v.ToolCallID}
	if len(v.ToolCalls) > 0 && string(v.ToolCalls) != "null" {
		out.ToolCalls = v.ToolCalls
	}
	if len(v.Content) > 0 && v.Content[0] == '"' {
		_ = json.Unmarshal(v.Content, &out.Content)
	} else if len(v.Content) > 0 && string(v.Content) != "null" {
		out.Content = string(v.Content) // multi-part content, as sent
	}
	return out
}

// setLoop records the command's own tool rounds and final answer.
func (c *conversation) setLoop(msgs []llm.Message, final string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.looped, c.loop, c.final = true, msgs, final
}

// setState records a plan's write into context.state at path (below
// "state").
func (c *conversation) setState(path []string, v any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.patch == nil {
		c.patch = map[string]any{}
	}
	m := c.patch
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}

// paused is what a paused run keeps of the turn so far.
func (c *conversation) paused() *convState {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return &convState{ID: c.id, Owner: c.owner, Expect: c.expect, User: c.user, Header: c.header, Text: c.text.String(), Patch: c.patch}
}

// turn is the messages the run adds: the user's turn, then the tool
// rounds and the final answer, or else the whole text the user saw.
func (c *conversation) turn() []conversation1.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []conversation1.Message
	if c.user != "" {
		out = append(out, conversation1.Message{Role: "user", Content: c.user})
	}
	answer := c.text.String()
	if c.looped {
		for _, m := range c.loop {
			out = append(out, storedMessage(m))
		}
		answer = c.final
	}
	if answer != "" {
		out = append(out, conversation1.Message{Role: "assistant", Content: c.header + answer})
	}
	return out
}

// handoffHeader says whose answer to which hand-off follows, for the
// conversation the hand-off was sent from.
func handoffHeader(agentName string, msg map[string]any) string {
	get := func(part, key string) string {
		m, _ := msg[part].(map[string]any)
		s, _ := m[key].(string)
		return s
	}
	return fmt.Sprintf("[%s, on the %s hand-off from %s, task %s]\n", agentName,
		get("payload", "handoff_type"), get("metadata", "sender_id"), get("metadata", "task_id"))
}

// commit keeps the run's turn and the state its plan set, as one
// ADD_MESSAGE change, at the version the request named. Its error is for
// the stream: CONTEXT_CONFLICT when the context changed meanwhile,
// STORE_UNAVAILABLE when the store failed.
func (c *conversation) commit(ctx context.Context) error {
	msgs := c.turn()
	if len(msgs) == 0 && len(c.patch) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), commitTimeout)
	defer cancel()
	op := conversation1.Operation{Op: conversation1.OpAddMessage, Messages: msgs, State: c.patch}
	if _, err := c.repo.Apply(ctx, c.id, c.owner, op, c.expect); err != nil {
		return conversation1.ProtocolError(c.id, err)
	}
	return nil
}

// convEmitter passes everything on to Emitter and keeps the text the user
// sees for the conversation's turn. It keeps the relay's batching.
type convEmitter struct {
	Emitter
	conv *conversation
}

var _ llm.BatchSink = convEmitter{}

// Text implements Emitter.
func (e convEmitter) Text(s string) error {
	e.keep(s)
	return e.Emitter.Text(s)
}

// Chunk implements Emitter.
func (e convEmitter) Chunk(raw []byte) error {
	e.keep(llm.ChunkText(raw))
	return e.Emitter.Chunk(raw)
}

// BufferChunk implements llm.BatchSink.
func (e convEmitter) BufferChunk(raw []byte) error {
	e.keep(llm.ChunkText(raw))
	if b, ok := e.Emitter.(llm.BatchSink); ok {
		return b.BufferChunk(raw)
	}
	return e.Emitter.Chunk(raw)
}

// Flush implements llm.BatchSink.
func (e convEmitter) Flush() error {
	if b, ok := e.Emitter.(llm.BatchSink); ok {
		return b.Flush()
	}
	return nil
}

func (e convEmitter) keep(s string) {
	if s == "" {
		return
	}
	e.conv.mu.Lock()
	e.conv.text.WriteString(s)
	e.conv.mu.Unlock()
}
