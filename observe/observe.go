// Package observe is the seam between a run and what watches it: the
// access log, the metrics and the tracer each implement Observer, and the
// gateway calls one Watch at the points of a request that matter (it
// started, its context was decoded, its prompt rendered, the model was
// called, a plan step, a tool, a git operation or a hand-off ran, it
// paused, it failed, it ended), instead of calls to each sprinkled through
// the runner.
//
// A Watch travels in the request's context (With, From), so code deep in a
// run (a tool runtime, a git step) reports without being handed anything.
// Every Watch method is safe on a nil *Watch and does nothing there: with
// no observer configured the gateway makes no Watch, and a run costs one
// context lookup at each of those points and nothing per relayed chunk.
//
// With observers, a request costs the seam one allocation for its Watch
// (the request's description and the usual few Runs inside it) and one
// for the context carrying it. No function is made for the end of what no
// Run needs to end (Nop's ends are nil), one Run's end is handed back as
// it is, and model calls, which every agent request makes, end through an
// UpstreamCall value (StartUpstream) with no function at all. What an
// observer that writes one summary per request needs (the agent and
// command routed, the model, the tokens) comes in the Outcome, so it
// needs no end of its own for each event. See bench/README.md, "Observer
// cost (issue 29)".
package observe

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// Observer watches requests. Begin is called once per request, before
// anything of it is decoded; it returns the context the request continues
// in (a tracer puts its span there) and the request's Run, or nil to not
// watch this one.
type Observer interface {
	Begin(ctx context.Context, r *Request) (context.Context, Run)
}

// Request describes a request as it arrives.
type Request struct {
	// Source is where the run comes from: SourceHTTP, SourceHandoff, ...
	Source string
	// Route is the HTTP route pattern ("/agents/:name"), "" off HTTP.
	Route  string
	Method string
	// Path is the request's path as the client sent it: not a label.
	Path      string
	RequestID string
	// Remote is the client's address.
	Remote string
	// Header is the inbound request's header (traceparent), nil off HTTP.
	Header http.Header
	// Start is when the request arrived.
	Start time.Time
}

// Sources of runs.
const (
	SourceHTTP     = "http"
	SourceHandoff  = "handoff"
	SourceSchedule = "schedule"
	SourceInternal = "internal"
)

// Run watches one request. Its methods may be called from several
// goroutines at once (a plan's steps run in parallel). The functions the
// start methods (Phase, Upstream, Step, Tool, Git, Handoff) return end
// what they started; each is called once. A Run may return a nil
// function when it has nothing to do at the end (Nop does): the Watch
// then calls nothing, and makes no function of its own for a start that
// no Run needs to end.
type Run interface {
	// Routed names the agent and command that serve the request. Loaded
	// is false for an agent defined by the request itself, whose names
	// the client chose.
	Routed(agent, command string, loaded bool)
	// Phase starts a phase of the request: PhaseDecode, PhasePrompt.
	Phase(ctx context.Context, name string) (context.Context, func(error))
	// Upstream starts a call to the model.
	Upstream(ctx context.Context, u Upstream) (context.Context, func(UpstreamResult))
	// Step starts an attempt of a plan step.
	Step(ctx context.Context, s Step) (context.Context, func(StepResult))
	// Tool starts a tool call.
	Tool(ctx context.Context, t Tool) (context.Context, func(ToolResult))
	// Git starts a git operation on a repository.
	Git(ctx context.Context, op, repo string) (context.Context, func(error))
	// Handoff starts sending a hand-off message.
	Handoff(ctx context.Context, h Handoff) (context.Context, func(error))
	// Paused reports that the run waits for the user: PauseConsent or
	// PauseFrontendTool.
	Paused(kind string)
	// Failed reports an error frame sent inside the stream.
	Failed(code string)
	// Inject adds the headers that carry the current trace to an outgoing
	// request (W3C traceparent).
	Inject(ctx context.Context, h http.Header)
	// End reports how the request ended; it is called once, last.
	End(o Outcome)
}

// Phases of a request.
const (
	PhaseDecode = "decode"
	PhasePrompt = "prompt"
)

// Kinds of pauses.
const (
	PauseConsent      = "consent"
	PauseFrontendTool = "frontend_tool"
)

// Upstream describes a call to the model.
type Upstream struct {
	// Model is the model asked for.
	Model string
	// Stream is false for a non-streamed call.
	Stream bool
	// Messages is the number of messages sent.
	Messages int
}

// UpstreamResult is how a call to the model went.
type UpstreamResult struct {
	// Model is the model that answered (a fallback's), or the one asked.
	Model string
	// Status is the last attempt's HTTP status, 0 when none came.
	Status int
	// Attempts counts the calls made, retries and fallbacks included.
	Attempts int
	// FirstByte is the time from the first attempt to the first event.
	FirstByte time.Duration
	// Chunks counts the chunks relayed.
	Chunks int
	// Usage is the tokens, the upstream's or estimated.
	Usage Usage
	// FinishReason is the answer's last finish_reason.
	FinishReason string
	// Code is the error code of a failed call, "" on success.
	Code string
}

// Usage counts tokens.
type Usage struct {
	In, Out int
	// Estimated is set when the upstream sent no usage and the gateway
	// counted itself.
	Estimated bool
}

// Step describes a plan step.
type Step struct {
	ID, Kind string
}

// StepResult is how a step's attempt went.
type StepResult struct {
	// Status is the step's status (SUCCESS, FAILED, TIMEOUT, ...).
	Status string
	// Code is the error code of a failed attempt.
	Code string
}

// Tool describes a tool call.
type Tool struct {
	Name string
	// Runtime is the tool's runtime (http, stdio, wasm, mcp, builtin,
	// frontend, ...).
	Runtime string
	CallID  string
}

// ToolResult is how a tool call went.
type ToolResult struct {
	// Status is SUCCESS, ERROR or TIMEOUT.
	Status string
	// Code is the error code of a failed call.
	Code string
}

// ErrHandoffLimit, given to the end of a Handoff, says that the message
// was kept DEAD at a bound of its task (HANDOFF_LIMIT): metrics count it
// as result "limit".
var ErrHandoffLimit = errors.New("hand-off message dead at a bound of its task")

// Handoff describes a hand-off message sent.
type Handoff struct {
	Type, To string
}

// Outcome is how a request ended.
type Outcome struct {
	// Result is ResultOK, ResultError, ResultPaused or ResultCanceled.
	Result string
	// Code is the error code that ended the request: the error answered
	// before the stream, or the last error frame; "" when none.
	Code string
	// Status is the HTTP status answered, 0 off HTTP.
	Status int
	// Bytes is the size of the response body.
	Bytes int64
	// TTFB is the time to the response's first byte, 0 when none.
	TTFB     time.Duration
	Duration time.Duration

	// What the Watch saw, set by Watch.End whatever the caller gave: so
	// that an observer that only writes a summary (the access log) needs
	// no end of its own for each model call.

	// Routed is set when Run.Routed was called; Agent and Command are
	// the names of its last call, as given.
	Routed         bool
	Agent, Command string
	// Model is the last model call's UpstreamResult.Model, "" when no
	// model was called.
	Model string
	// Usage adds up the model calls' tokens; Estimated is set when any
	// was estimated.
	Usage Usage
	// Redactions count, by rule, the credentials the content guard
	// replaced in the model calls' prompts (Watch.Redacted), in the order
	// first seen; nil when none.
	Redactions []Redaction
	// Withheld counts the files whose content the content guard withheld
	// from the model calls' prompts (Watch.Withheld).
	Withheld int
}

// Redaction counts the credentials of one rule replaced in a request's
// model calls.
type Redaction struct {
	Rule  string
	Count int
}

// Results of a request.
const (
	ResultOK       = "ok"
	ResultError    = "error"
	ResultPaused   = "paused"
	ResultCanceled = "canceled"
)
