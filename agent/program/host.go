package program

import (
	"context"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/plan"
)

// Host is what the built-in step kinds need of the run that runs them,
// beyond stepkind.Run: agent/runner's step runs implement it.
type Host interface {
	// SendAction renders an action with the step's data, signs its state
	// and sends it.
	SendAction(a *Action) (*actions.Action, error)
	// Ask asks the model: the messages with the step's model settings
	// over the command's, through the tool loop when it has tools,
	// relaying the answer when it streams. It returns the answer's text.
	Ask(ctx context.Context, call ModelCall) (string, error)
	// Call runs command of agent ("" for the run's own) as a sub-run and
	// returns its transcript, relaying its output when stream is set.
	Call(ctx context.Context, agent, command string, stream bool) (string, error)
	// SetState writes v at p: the plan's state, or under context.state the
	// run's conversation's (nothing without a conversation).
	SetState(p plan.Path, v any) error
}

// ModelCall is what an llm step asks the model.
type ModelCall struct {
	// Messages are the step's rendered prompt.
	Messages []llm.Message
	// Model is the step's model settings; what it leaves unset the
	// command's are.
	Model agent.ModelConfig
	// Stream relays the answer to the user as it comes.
	Stream bool
	// Tools are the tools the model may call, by name.
	Tools map[string]stepkind.Tool
}
