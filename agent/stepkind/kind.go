// Package stepkind is how step kinds plug into plans, the way tool runtimes
// plug into package tools: a Kind declares its name and YAML configuration
// (agent.KindSpec), how a step of it compiles, and how it runs. Kinds are
// registered in a Registry that loading and the runner are given; the
// built-in kinds (reply, llm, action, set, call) are registered by package
// runner, others (git, tool) by their own packages, wired in cmd/agentgw.
package stepkind

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/tmpl"
	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/contextvars"
)

// Kind is one kind of step.
type Kind interface {
	// Spec declares the kind's key and configuration.
	Spec() agent.KindSpec
	// Compile builds a step of the kind from config, the pointer the spec's
	// Config points to, filled from the step's YAML. It reports problems
	// through c and returns nil when the step cannot run.
	Compile(c Compiler, config any) Step
}

// Step is a compiled step of some kind, ready to run many times.
type Step interface {
	// Run executes the step; its result goes to the plan's state and to
	// the templates of the steps after it.
	Run(ctx context.Context, r Run) (any, error)
}

// Reader is a Step that reads values or templates of its own: the steps
// they reference run before it.
type Reader interface {
	Reads() ([]*tmpl.Value, []*tmpl.Template)
}

// Compiler is what compiling a step may use.
type Compiler interface {
	// Where names the step in messages, such as `command "x": step "y"`.
	Where() string
	// Step is the step's definition.
	Step() *agent.Step
	// Errorf and Warnf report a problem at pos.
	Errorf(pos agent.Position, format string, args ...any)
	Warnf(pos agent.Position, format string, args ...any)
	// String compiles a string parameter: a reference, a template or a
	// literal; where names it in messages.
	String(where, s string, pos agent.Position) *tmpl.Value
	// Tools resolves tool names: the agent's tools and the gateway's
	// shared ones.
	Tools(where string, pos agent.Position, names []string) map[string]Tool
	// NoPause refuses tools that would wait for the user or the IDE.
	NoPause(where string, pos agent.Position, ts map[string]Tool)
	// CanPause reports whether the step's plan may pause for a consent (a
	// command's own plan may, a handler's may not).
	CanPause() bool
}

// Tool is a tool a step may run, as the plug-in interface sees it: the
// runner resolves the agent's and the gateway's tools (package tools, whose
// *Tool implements it). An interface, so that a kind links none of the
// tool runtimes (WASM, processes) unless it runs tools itself.
type Tool interface {
	// ToolSpec is the tool as its operator wrote it.
	ToolSpec() *toolspec.Spec
	// NeedsConsent reports whether the tool asks the user before each call.
	NeedsConsent() bool
	// Call runs the tool; a failure is in the result, never a panic.
	Call(ctx context.Context, call toolspec.Call) toolspec.Result
	// FunctionDef is the tool as model APIs take it:
	// {"type":"function","function":{"name","description","parameters"}},
	// for a step (or a command) that gives the tool to a model.
	FunctionDef() json.RawMessage
}

// Approval is the user's answer to a step's consent question.
type Approval int

// Answers to a consent question.
const (
	// Unasked: this request does not answer the step's question.
	Unasked Approval = iota
	// Approved: the user accepted.
	Approved
	// Declined: the user declined.
	Declined
)

// Run is what running a step may use.
type Run interface {
	// StepID is the step's id.
	StepID() string
	// Env is the step's template environment: its data and the plan's scope.
	Env() *tmpl.Env
	// With are the step's rendered inputs.
	With() map[string]any
	// String renders a string parameter compiled by Compiler.String.
	String(v *tmpl.Value) (string, error)
	// VCS is the request's version-control context, or nil.
	VCS() *contextvars.VCS
	// Logger logs for the run.
	Logger() *slog.Logger
	// Approval is this request's answer to the step's consent question.
	Approval() Approval
	// AskConsent pauses the plan to ask the user whether tool t may run
	// with args (JSON); the step runs again with the answer.
	AskConsent(t Tool, args string) error
	// Text shows s to the user, in the step's place in the plan's output
	// (progress lines, what a step did).
	Text(s string) error
	// Agent names the agent whose command runs the step: the sender of
	// what the step sends.
	Agent() string
	// Conversation is the stored conversation the run continues (its id
	// and owner); without one, "" and the caller the run acts for (""
	// when none is known): what the run creates belongs to that owner.
	Conversation() (id, owner string)
	// Header is the plugin's request header, for a step that runs another
	// agent's command on the request's behalf while it waits (as a call
	// step's sub-run does): the forward auth policy reads it. Never keep it.
	Header() http.Header
}

// Waiter is a Step that can pause its run to wait for the user or the IDE,
// such as a tool step that asks for consent. A command that runs such a
// step cannot be called by another command's plan.
type Waiter interface {
	Waits() bool
}
