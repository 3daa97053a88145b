package prompt

import (
	"context"

	"github.com/agentgw/agentgw/agent/tmpl"
	"github.com/agentgw/agentgw/contextvars"
	"github.com/agentgw/agentgw/llm"
)

// Template is a message template with its role.
type Template struct {
	Role string
	T    *tmpl.Template
}

// Spec is a command's prompt as its definition compiled it.
type Spec struct {
	// System are the system templates, in order.
	System []*tmpl.Template
	// Others are the user and assistant templates, in order.
	Others []Template
	// MentionsInput is set when a template places the user's input
	// itself; else it is the last user message.
	MentionsInput bool
	// References is set when the knowledge references go in after the
	// system templates (no template places them).
	References bool
}

// Inputs are what a request brings to its prompt.
type Inputs struct {
	// Turns are the conversation's earlier turns.
	Turns []llm.Message
	// Context is the request's context variables: its global prompts, its
	// user input and its knowledge references.
	Context *contextvars.Set
	// References renders the knowledge references as a system message;
	// nil leaves them out.
	References func([]contextvars.KnowledgeBase) string
}

// Render assembles the prompt in the order of docs/protocol.md §9: system
// templates (then the knowledge references, when no template places them),
// conversation turns, global prompts as rules, the user templates or else
// the user's input as the last user message. data is what the templates
// see.
func Render(ctx context.Context, s *Spec, in Inputs, data any) ([]llm.Message, error) {
	var msgs []llm.Message
	for _, t := range s.System {
		out, err := tmpl.Execute(ctx, t, data)
		if err != nil {
			return nil, tmpl.RenderError(err)
		}
		if out != "" {
			msgs = append(msgs, llm.Message{Role: "system", Content: out})
		}
	}
	if s.References && in.References != nil && len(in.Context.KnowledgeBase) > 0 {
		if out := in.References(in.Context.KnowledgeBase); out != "" {
			msgs = append(msgs, llm.Message{Role: "system", Content: out})
		}
	}
	msgs = append(msgs, in.Turns...)
	for _, gp := range in.Context.GlobalPrompts {
		role := gp.Role
		if role == "" {
			role = "system"
		}
		if gp.Content != "" {
			msgs = append(msgs, llm.Message{Role: role, Content: gp.Content})
		}
	}
	for _, rt := range s.Others {
		out, err := tmpl.Execute(ctx, rt.T, data)
		if err != nil {
			return nil, tmpl.RenderError(err)
		}
		if out != "" {
			msgs = append(msgs, llm.Message{Role: rt.Role, Content: out})
		}
	}
	if !s.MentionsInput && in.Context.UserInputPrompt != "" {
		msgs = append(msgs, llm.Message{Role: "user", Content: in.Context.UserInputPrompt})
	}
	return msgs, nil
}
