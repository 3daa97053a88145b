// Package binding binds a request to the stored conversation (package
// conversation) it continues: the runner's stage.Conversations. It opens the
// conversation the request's contextId (or its "context" variable) names,
// gives the context variables its fields, keeps what the run shows, its
// tool rounds and its plan's writes to context.state, and commits them as
// one change once the answer is whole. cmd/agentgw gives the runner one
// over the gateway's conversation.Repo.
package binding

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/agentgw/agentgw/agent/stage"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/conversation"
	"github.com/agentgw/agentgw/internal/jsonnum"
)

// commitTimeout bounds keeping a turn once its answer has streamed: the
// client may have gone, the turn is still kept.
const commitTimeout = 10 * time.Second

// Names of the context variables a conversation fills (docs/protocol.md
// §6 and §11, "context"): the conversation itself, and its state.
const (
	varContext = "context"
	varState   = "state"
)

// Binder binds requests to the conversations a conversation.Repo keeps.
type Binder struct{ repo conversation.Repo }

var _ stage.Conversations = Binder{}

// New returns the binder over repo; nil (the gateway keeps no
// conversations) refuses the requests that name one.
func New(repo conversation.Repo) Binder { return Binder{repo: repo} }

// bound is the stored conversation (package conversation) a run
// continues: bound before the run from the request's contextId, its turn
// kept by Commit once the answer is complete.
type bound struct {
	repo   conversation.Repo
	id     string
	owner  string
	expect int64  // the version the request named (If-Match), 0 none
	user   string // the user's turn
	header string // what the answer of a hand-off's run starts with
	// turns are the stored turns.
	turns []stage.Message

	mu sync.Mutex
	// text is what the run showed the user (Show).
	text strings.Builder
	// looped is set when the command's own model called tools: loop holds
	// the rounds as the model saw them and final its last answer.
	looped bool
	loop   []stage.Message
	final  string
	// patch is what plan steps set into context.state.
	patch map[string]any
}

var _ stage.Conversation = (*bound)(nil)

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
func requestContextID(b *stage.Binding) string {
	if b.ContextID != "" {
		return b.ContextID
	}
	switch v := b.Context.Other[varContext].(type) {
	case string:
		return v
	case map[string]any:
		if s, ok := v["contextId"].(string); ok {
			return s
		}
	}
	return ""
}

// Bind implements stage.Conversations: it opens the conversation the
// request names, creating it for the caller when the id is new, or, for a
// run that resumes, the one it paused in. Its errors are for before the
// stream: a malformed id is BAD_REQUEST, another caller's or a deleted one
// CONTEXT_NOT_FOUND, a stale If-Match CONTEXT_CONFLICT, a failing store
// STORE_UNAVAILABLE.
func (bd Binder) Bind(ctx context.Context, b stage.Binding) (stage.Conversation, error) {
	id := requestContextID(&b)
	if id == "" && b.Resumed == nil {
		return nil, nil // the common case: no conversation, nothing made
	}
	conv := &bound{repo: bd.repo, id: id, owner: b.Owner, expect: b.Version}
	switch {
	case b.Handoff != nil:
		// A hand-off's run answers in the conversation that sent it: no
		// user turn, the answer said to be the hand-off's.
		conv.header = handoffHeader(b.Agent, b.Handoff)
	case b.UserTurn:
		// A click or a tool's answer is no new user turn, whatever input
		// the plugin sends again with it.
		conv.user = b.Context.UserInputPrompt
	}
	if b.Resumed != nil {
		var p convState
		if err := jsonnum.Decode(b.Resumed, &p); err != nil {
			return nil, apierr.Internal(fmt.Errorf("decoding a paused run's conversation: %w", err))
		}
		conv.id, conv.owner, conv.expect, conv.user, conv.header, conv.patch = p.ID, p.Owner, p.Expect, p.User, p.Header, p.Patch
		conv.text.WriteString(p.Text)
	}
	if conv.id == "" {
		return nil, nil
	}
	if !conversation.ValidID(conv.id) {
		return nil, conversation.ProtocolError(conv.id, conversation.ErrBadID)
	}
	if conv.repo == nil {
		return nil, apierr.Errorf(apierr.CodeBadRequest, "this gateway keeps no conversations, so contextId %q cannot be used", conv.id).
			Suggest("send the earlier turns as messages instead")
	}
	c, _, err := conv.repo.Open(ctx, conv.id, conv.owner)
	if err != nil {
		return nil, conversation.ProtocolError(conv.id, err)
	}
	if conv.expect != 0 && conv.expect != c.Version {
		return nil, conversation.ProtocolError(conv.id, conversation.ErrConflict)
	}
	conv.turns = make([]stage.Message, 0, len(c.Messages))
	for _, m := range c.Messages {
		conv.turns = append(conv.turns, stage.Message{Role: m.Role, Content: m.Content, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID})
	}
	if b.Context.Other == nil {
		b.Context.Other = map[string]any{}
	}
	state := maps.Clone(c.State)
	b.Context.Other[varContext] = map[string]any{"contextId": c.ID, "version": c.Version,
		"state": state, "metadata": c.Metadata}
	b.Context.Other[varState] = state
	return conv, nil
}

// ID implements stage.Conversation.
func (c *bound) ID() string { return c.id }

// Owner implements stage.Conversation.
func (c *bound) Owner() string { return c.owner }

// Turns implements stage.Conversation.
func (c *bound) Turns() []stage.Message { return c.turns }

// Show implements stage.Conversation.
func (c *bound) Show(s string) {
	if s == "" {
		return
	}
	c.mu.Lock()
	c.text.WriteString(s)
	c.mu.Unlock()
}

// Loop implements stage.Conversation.
func (c *bound) Loop(msgs []stage.Message, final string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.looped, c.loop, c.final = true, msgs, final
}

// SetState implements stage.Conversation.
func (c *bound) SetState(path []string, v any) {
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

// Paused implements stage.Conversation: the turn so far.
func (c *bound) Paused() json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	data, _ := json.Marshal(&convState{ID: c.id, Owner: c.owner, Expect: c.expect, User: c.user, Header: c.header, Text: c.text.String(), Patch: c.patch})
	return data
}

// turn is the messages the run adds: the user's turn, then the tool
// rounds and the final answer, or else the whole text the user saw.
func (c *bound) turn() []conversation.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []conversation.Message
	if c.user != "" {
		out = append(out, conversation.Message{Role: "user", Content: c.user})
	}
	answer := c.text.String()
	if c.looped {
		for _, m := range c.loop {
			out = append(out, conversation.Message{Role: m.Role, Content: m.Content, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID})
		}
		answer = c.final
	}
	if answer != "" {
		out = append(out, conversation.Message{Role: "assistant", Content: c.header + answer})
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

// Commit implements stage.Conversation: it keeps the run's turn and the
// state its plan set, as one ADD_MESSAGE change, at the version the
// request named. Its error is for the stream: CONTEXT_CONFLICT when the
// context changed meanwhile, STORE_UNAVAILABLE when the store failed.
func (c *bound) Commit(ctx context.Context) error {
	msgs := c.turn()
	if len(msgs) == 0 && len(c.patch) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), commitTimeout)
	defer cancel()
	op := conversation.Operation{Op: conversation.OpAddMessage, Messages: msgs, State: c.patch}
	if _, err := c.repo.Apply(ctx, c.id, c.owner, op, c.expect); err != nil {
		return conversation.ProtocolError(c.id, err)
	}
	return nil
}
