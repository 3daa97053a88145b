package stage

import (
	"context"
	"encoding/json"

	"github.com/agentgw/agentgw/contextvars"
)

// Conversations binds requests to the stored conversations they continue
// (package conversation keeps them, conversation/binding binds them): the runner
// binds one before it applies the context (see Order), feeds it what the
// run shows and keeps, and commits it when the answer is whole.
type Conversations interface {
	// Bind opens the conversation b names, or that a resumed run paused
	// in; nil when it names none. Its error (an *apierr.Error) refuses
	// the request before its stream.
	Bind(ctx context.Context, b Binding) (Conversation, error)
}

// Binding is what the runner knows of a request when it binds its
// conversation.
type Binding struct {
	// ContextID is the request's contextId, "" when it sends none.
	ContextID string
	// Version is the version the request names (If-Match), 0 none.
	Version int64
	// Owner is the caller the request acts for.
	Owner string
	// Agent names the agent that answers.
	Agent string
	// Handoff is the hand-off the run answers, nil for a request.
	Handoff map[string]any
	// UserTurn is set when the request is a new turn of the user's, not
	// an action's click or the IDE's tool results.
	UserTurn bool
	// Context is the request's context variables, which name the
	// conversation too and which the binding gives the conversation's
	// fields (the variables "context" and "state").
	Context *contextvars.Set
	// Resumed is what the run the request resumes kept of its
	// conversation (Conversation.Paused), nil when it resumes none.
	Resumed json.RawMessage
}

// Conversation is a bound conversation as a run feeds it. Its methods
// may be called from the goroutines of a plan's steps.
type Conversation interface {
	// ID names the conversation.
	ID() string
	// Owner is the caller it belongs to.
	Owner() string
	// Turns are the stored turns, the prompt's when the request sends
	// none.
	Turns() []Message
	// Show records text the user was shown: the answer, unless Loop
	// gives it.
	Show(text string)
	// Loop records the command's own tool rounds and final answer, as
	// its model saw them.
	Loop(msgs []Message, final string)
	// SetState records a plan's write into context.state at path (below
	// "state").
	SetState(path []string, v any)
	// Paused is what a paused run keeps of the turn so far, for the
	// Binding of the request that resumes it.
	Paused() json.RawMessage
	// Commit keeps the run's turn and the state its plan set. Its error
	// (an *apierr.Error) is for the stream.
	Commit(ctx context.Context) error
}

// Message is a turn as a conversation keeps it: an assistant's tool calls
// in the upstream's shape, or the call a tool message answers.
type Message struct {
	Role       string
	Content    string
	ToolCalls  json.RawMessage
	ToolCallID string
}
