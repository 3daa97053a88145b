package runner

import (
	"cmp"
	"encoding/json"
	"maps"

	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/stage"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/llm"
)

// bindConversation binds the conversation the request names, or the one
// the run it resumes paused in (cfg.Conversations; without it, a request
// that sends a contextId is refused). A request that sends
// no messages and resumes no run continues from the stored turns. Its
// errors are for before the stream.
func (r *Runner) bindConversation(run *Run) error {
	req := run.req
	convs := r.cfg.Conversations
	if convs == nil {
		if req.ContextID != "" {
			return apierr.Errorf(apierr.CodeBadRequest, "this gateway keeps no conversations, so contextId %q cannot be used", req.ContextID).
				Suggest("send the earlier turns as messages instead")
		}
		return nil
	}
	b := stage.Binding{ContextID: req.ContextID, Version: req.ContextVersion, Owner: req.Owner, Agent: run.agent.Name(),
		Handoff: req.Handoff, UserTurn: req.Action == nil && req.ToolResults == nil, Context: req.Context}
	if run.paused != nil {
		b.Resumed = run.paused.Conv
	}
	conv, err := convs.Bind(bgctx(), b)
	if err != nil || conv == nil {
		return err
	}
	run.conv = conv
	if req.Messages == nil && run.paused == nil {
		run.turns = storedTurns(conv.Turns())
	}
	return nil
}

// planContext is the context as plans see it ($context, and .context in
// step templates): the context variables by name, and, while a
// conversation is bound, its fields (contextId, version, state, metadata)
// over them, so that .context is the conversation there as it is in
// command templates.
func (run *Run) planContext() map[string]any {
	data := run.contextData()
	conv, ok := data[program.VarContext].(map[string]any)
	if run.conv == nil || !ok {
		return data
	}
	out := maps.Clone(data)
	maps.Copy(out, conv)
	return out
}

// storedTurns are a conversation's stored messages as prompt turns.
func storedTurns(ms []stage.Message) []llm.Message {
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

// keptMessages are prompt messages as a conversation keeps them.
func keptMessages(msgs []llm.Message) []stage.Message {
	out := make([]stage.Message, 0, len(msgs))
	for _, m := range msgs {
		out = append(out, storedMessage(m))
	}
	return out
}

// storedMessage is a prompt message as a conversation keeps it.
func storedMessage(m llm.Message) stage.Message {
	if m.Raw == nil {
		return stage.Message{Role: m.Role, Content: m.Content}
	}
	var v struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCalls  json.RawMessage `json:"tool_calls"`
		ToolCallID string          `json:"tool_call_id"`
	}
	_ = json.Unmarshal(m.Raw, &v)
	out := stage.Message{Role: cmp.Or(v.Role, m.Role), ToolCallID: v.ToolCallID}
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

// convEmitter passes everything on to its emitter and keeps the text the user
// sees for the conversation's turn. It keeps the relay's batching.
type convEmitter struct {
	emit.Emitter
	conv stage.Conversation
}

var _ llm.BatchSink = convEmitter{}

// Text implements emit.Emitter.
func (e convEmitter) Text(s string) error {
	e.keep(s)
	return e.Emitter.Text(s)
}

// Chunk implements emit.Emitter.
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

func (e convEmitter) keep(s string) { e.conv.Show(s) }
