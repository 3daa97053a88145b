// Package stage is how a request's phases plug into the runner, the way
// step kinds plug into plans (package stepkind): a Stage is one phase of
// preparing a request that a feature's package owns (knowledge recalls its
// references, for one), it sees the run being prepared through the narrow
// Prepared view, and it is registered in a Registry that cmd/agentgw
// builds, one line per stage, and gives the runner (RunnerConfig.Stages).
// The runner knows this interface, not the features behind it.
//
// The package holds the runner's other plug-in services that last a run:
// Conversations, which binds the conversation a request continues, and
// RemoteAgents, which forwards the requests of remote agents (package
// remote implements it).
//
// # Order
//
// The runner prepares a request in this order: it resolves the agent
// (a remote agent's request is forwarded, and runs no stage), verifies an
// action's state or the tool results a paused run waits for, finds the
// command, binds the conversation the request names (Conversations, the
// one service of this package that lasts the run), checks the command's
// required context variables and applies their resolver options, and
// then runs the registered stages, one after the other in registration
// order, each seeing what those before it changed. After them it picks the
// model, loads an action handler's state and claims the paused run the
// request resumes; the prompt is built from the context when the run
// executes, after every stage. A stage's error refuses the request before
// its stream starts: a paused run it would resume stays waiting.
//
// Stages run once per request, for the command the request runs: not for
// the sub-runs of call steps and action handlers, which share the
// request's context as the stages left it.
package stage

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	"github.com/agentgw/agentgw/contextvars"
)

// Stage is one phase of preparing a request.
type Stage interface {
	// Name names the stage in the registry, in logs and in the errors
	// the runner wraps; it is unique among the registered stages.
	Name() string
	// Prepare does the stage's part for the run p describes. An error
	// refuses the request before its stream starts: an *apierr.Error
	// reaches the client as it is, any other error as an internal one.
	// ctx is not bound to the client's request: a stage bounds its own
	// calls in time.
	Prepare(ctx context.Context, p Prepared) error
}

// Prepared is the run being prepared, as a stage sees it.
type Prepared interface {
	// Agent names the agent whose command runs.
	Agent() string
	// Command names the command that runs.
	Command() string
	// Variable reports whether the command declares the context variable
	// name, and its resolver options when it does.
	Variable(name string) (contextvars.Options, bool)
	// Context is the request's context variables, the command's resolver
	// options applied. A stage may change them: the prompt is built from
	// them (the references of its knowledgeBase, its globalPrompts, ...).
	Context() *contextvars.Set
	// Logger is the request's logger, which names the request, the agent
	// and the command.
	Logger() *slog.Logger
}

// Registry holds the stages in the order they run. It is filled before
// the runner is built and read-only after.
type Registry struct {
	stages []Stage
	names  []string
}

// NewRegistry returns a registry with stages registered in order.
func NewRegistry(stages ...Stage) (*Registry, error) {
	r := &Registry{}
	for _, s := range stages {
		if err := r.Register(s); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Register adds a stage after those registered before it. Its name must
// be new.
func (r *Registry) Register(s Stage) error {
	if s == nil {
		return fmt.Errorf("registering a request stage: nil")
	}
	name := s.Name()
	if name == "" {
		return fmt.Errorf("registering request stage %T: no name", s)
	}
	if slices.Contains(r.names, name) {
		return fmt.Errorf("registering request stage %q: already registered", name)
	}
	r.stages = append(r.stages, s)
	r.names = append(r.names, name)
	return nil
}

// Names are the stages' names in the order they run.
func (r *Registry) Names() []string {
	if r == nil {
		return nil
	}
	return slices.Clone(r.names)
}

// Stages are the stages in the order they run; nil for a nil registry.
func (r *Registry) Stages() []Stage {
	if r == nil {
		return nil
	}
	return r.stages
}
