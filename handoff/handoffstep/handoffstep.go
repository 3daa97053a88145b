// Package handoffstep lets agents send hand-off messages (seed 001): the
// `handoff` step kind, whose step's inputs (with) are the message's data,
// and the built-in tool handoff_to_agent, with which a model hands work on
// by itself. Both send through the gateway's hand-off hub; the message's
// ids, timestamp and protocol version are filled in, and the task and
// correlation ids carried over from the hand-off the run received, if any.
package handoffstep

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/agent/tmpl"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/handoff"
	"github.com/agentgw/agentgw/internal/runes"
	"github.com/agentgw/agentgw/tools"
)

// Config is a handoff step's configuration; its strings may be templates
// or references.
type Config struct {
	To             string        `yaml:"to" doc:"the recipient: an agent, or several separated by commas (a pool: one of them takes it)"`
	Type           string        `yaml:"type" doc:"the handoff_type: TASK_TRANSFER, REQUEST_INFORMATION, PROVIDE_INFORMATION, ESCALATION, NOTIFICATION, STATUS_UPDATE or APPROVAL_REQUEST"`
	Priority       string        `yaml:"priority" doc:"LOW, MEDIUM, HIGH or CRITICAL" default:"MEDIUM"`
	ExpiresIn      time.Duration `yaml:"expiresIn" doc:"how long the message is worth running; never expires when absent"`
	NextSteps      string        `yaml:"nextSteps" doc:"instructions.next_steps_suggestion"`
	WorkflowState  string        `yaml:"workflowState" doc:"context.workflow_state"`
	Summary        string        `yaml:"summary" doc:"context.historical_data_summary"`
	RetryCount     int           `yaml:"retryCount" doc:"instructions.failure_handling_strategy.retry_count: runs tried again after a failure"`
	EscalateTo     string        `yaml:"escalateTo" doc:"instructions.failure_handling_strategy.escalate_to: the agent that takes over when the retries are spent"`
	FallbackAction string        `yaml:"fallbackAction" doc:"instructions.failure_handling_strategy.fallback_action: an agent (or agent/command) that runs it after that"`
	// The seed's other instructions; context.previous_actions and
	// user_interaction_history are filled from the run.
	RequiredActions []string       `yaml:"requiredActions" doc:"instructions.required_actions: what the receiver must do"`
	SuccessCriteria string         `yaml:"successCriteria" doc:"instructions.success_criteria: when the receiver's part is done"`
	Constraints     map[string]any `yaml:"constraints" doc:"instructions.constraints, e.g. {time_limit: PT2H}: time_limit (ISO 8601 or Go duration) is the receiving run's timeout"`
	// Wait, when set, holds the step until the receiver answers.
	Wait time.Duration `yaml:"wait" doc:"how long to wait for the receiver's answer, streamed to the user when it comes in time (at most 10m); 0: do not wait"`
}

// Sender sends messages: the gateway's hub (wired in cmd/agentgw; this
// package does not import it, so that the runner's tests can load agents
// with handoff steps).
type Sender interface {
	Send(ctx context.Context, msg *handoff.Message, origin Origin) (*Sent, error)
}

// Origin is the conversation a message is sent from, its results go to.
type Origin struct {
	ContextID, Owner string
}

// Sent is a message sent: its ids, where it went, and its status.
type Sent struct {
	MessageID, TaskID, Status string
	Recipients                []string
	// Answer is where the message stood after Params.Wait: nil without
	// waiting.
	Answer *Answer
}

// Kind is the handoff step kind.
type Kind struct{ sender Sender }

// New returns the kind sending through s.
func New(s Sender) Kind { return Kind{sender: s} }

var _ stepkind.Kind = Kind{}

// Spec implements stepkind.Kind.
func (Kind) Spec() agent.KindSpec {
	return agent.KindSpec{Name: "handoff", Doc: "hands work to another agent (seed 001): the step's with is the message's data", Config: new(Config)}
}

// step is a compiled handoff step.
type step struct {
	sender                                                 Sender
	to, typ, priority, nextSteps, workflow, summary, escal *tmpl.Value
	fallback, success                                      *tmpl.Value
	expiresIn, wait                                        time.Duration
	retryCount                                             int
	required                                               []string
	constraints                                            map[string]any
}

// Compile implements stepkind.Kind.
func (k Kind) Compile(c stepkind.Compiler, config any) stepkind.Step {
	cfg, sd, where := config.(*Config), c.Step(), c.Where()
	if cfg.To == "" {
		c.Errorf(sd.Pos, "%s: handoff: to (the recipient) is required", where)
	}
	if t := handoff.Type(cfg.Type); !t.Valid() && !strings.Contains(cfg.Type, "{{") && !strings.HasPrefix(cfg.Type, "$") {
		c.Errorf(sd.Pos, "%s: handoff: type %q is not a hand-off type (%s)", where, cfg.Type, typeNames())
	}
	if p := handoff.Priority(cfg.Priority); cfg.Priority != "" && !p.Valid() && !strings.Contains(cfg.Priority, "{{") {
		c.Errorf(sd.Pos, "%s: handoff: priority %q is not LOW, MEDIUM, HIGH or CRITICAL", where, cfg.Priority)
	}
	if tl, ok := cfg.Constraints["time_limit"]; ok {
		if s, isStr := tl.(string); !isStr {
			c.Errorf(sd.Pos, "%s: handoff: constraints.time_limit must be a duration such as PT2H", where)
		} else if _, err := handoff.ParseDuration(s); err != nil {
			c.Errorf(sd.Pos, "%s: handoff: constraints.time_limit: %v", where, err)
		}
	}
	if cfg.Wait < 0 || cfg.Wait > MaxWait {
		c.Errorf(sd.Pos, "%s: handoff: wait %s is not between 0 and %s", where, cfg.Wait, MaxWait)
	}
	str := func(name, s string) *tmpl.Value { return c.String(where+": handoff."+name, s, sd.Pos) }
	return &step{sender: k.sender, to: str("to", cfg.To), typ: str("type", cfg.Type), priority: str("priority", cfg.Priority),
		nextSteps: str("nextSteps", cfg.NextSteps), workflow: str("workflowState", cfg.WorkflowState),
		summary: str("summary", cfg.Summary), escal: str("escalateTo", cfg.EscalateTo),
		fallback: str("fallbackAction", cfg.FallbackAction), expiresIn: cfg.ExpiresIn, retryCount: cfg.RetryCount,
		success: str("successCriteria", cfg.SuccessCriteria), wait: cfg.Wait, required: cfg.RequiredActions, constraints: cfg.Constraints}
}

// Reads implements stepkind.Reader.
func (s *step) Reads() ([]*tmpl.Value, []*tmpl.Template) {
	return []*tmpl.Value{s.to, s.typ, s.priority, s.nextSteps, s.workflow, s.summary, s.escal, s.fallback, s.success}, nil
}

func typeNames() string {
	var names []string
	for _, t := range handoff.Types() {
		names = append(names, string(t))
	}
	return strings.Join(names, ", ")
}

// Run implements stepkind.Step: it sends the message, tells the user to
// whom, and returns {message_id, task_id, status}.
func (s *step) Run(ctx context.Context, r stepkind.Run) (any, error) {
	var p Params
	for _, f := range []struct {
		v   *tmpl.Value
		dst *string
	}{{s.to, &p.To}, {s.typ, &p.Type}, {s.priority, &p.Priority}, {s.nextSteps, &p.NextSteps},
		{s.workflow, &p.WorkflowState}, {s.summary, &p.Summary}, {s.escal, &p.EscalateTo}, {s.fallback, &p.FallbackAction},
		{s.success, &p.SuccessCriteria}} {
		v, err := r.String(f.v)
		if err != nil {
			return nil, err
		}
		*f.dst = v
	}
	p.Data, p.ExpiresIn, p.RetryCount = r.With(), s.expiresIn, s.retryCount
	p.RequiredActions, p.Constraints, p.Wait = s.required, s.constraints, s.wait
	caller := tools.Caller{Agent: r.Agent()}
	caller.ContextID, caller.Owner = r.Conversation()
	if env := r.Env(); env != nil && env.Scope != nil {
		caller.Handoff = env.Scope.Handoff
		p.PreviousActions = previousActions(env.Scope, r.StepID())
		if prompt, _ := env.Scope.Context["userInputPrompt"].(string); caller.Handoff == nil && strings.TrimSpace(prompt) != "" {
			// The turn the run answers is stored when the run ends.
			p.Input = prompt
		}
	}
	st, err := Send(ctx, s.sender, caller, p)
	if err != nil {
		return nil, err
	}
	if err := r.Text(Said(p, st)); err != nil {
		return nil, err
	}
	out := map[string]any{"message_id": st.MessageID, "task_id": st.TaskID, "status": st.Status}
	if ans := st.Answer; ans != nil {
		out["status"] = ans.Status
		if ans.Final {
			out["answer"] = map[string]any{"agent": ans.Agent, "text": ans.Text, "error": ans.Error}
		}
		if err := r.Text(Waited(st, ans, p.Wait)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Params is what a message is made of, from a step or the tool.
type Params struct {
	To, Type, Priority                string
	Data                              map[string]any
	ExpiresIn                         time.Duration
	NextSteps, WorkflowState, Summary string
	RetryCount                        int
	EscalateTo, FallbackAction        string
	// RequiredActions, SuccessCriteria and Constraints are the message's
	// instructions of those names.
	RequiredActions []string
	SuccessCriteria string
	Constraints     map[string]any
	// PreviousActions are the sending run's steps that completed; Input
	// the user's input of the turn it answers, not stored yet, the last
	// entry of the user interaction history.
	PreviousActions []handoff.PreviousAction
	Input           string
	// Wait, when positive, waits that long for the receiver's answer
	// (Sent.Answer), when the sender is an Awaiter.
	Wait time.Duration
}

// Send builds the message caller sends with p and sends it. A message the
// hub refuses is a failed step (its *apierr.Error says why).
func Send(ctx context.Context, sender Sender, caller tools.Caller, p Params) (*Sent, error) {
	if sender == nil {
		return nil, apierr.New(apierr.CodeInternal, "this gateway sends no hand-offs")
	}
	var to handoff.Recipients
	for _, name := range strings.Split(p.To, ",") {
		if name = strings.TrimSpace(name); name != "" {
			to = append(to, name)
		}
	}
	now := time.Now()
	msg, err := handoff.New(now, caller.Agent, to, handoff.Type(p.Type), p.Data, originOf(caller.Handoff))
	if err != nil {
		return nil, apierr.Errorf(apierr.CodeInvalidHandoff, "%v", err)
	}
	msg.Metadata.Priority = handoff.Priority(firstNonEmpty(p.Priority, string(handoff.Medium)))
	if p.ExpiresIn > 0 {
		exp := now.Add(p.ExpiresIn).UTC()
		msg.Metadata.ExpirationTime = &exp
	}
	msg.Instructions.NextStepsSuggestion = p.NextSteps
	msg.Context.WorkflowState, msg.Context.HistoricalDataSummary = p.WorkflowState, p.Summary
	msg.Context.PreviousActions = p.PreviousActions
	msg.Instructions.RequiredActions, msg.Instructions.SuccessCriteria = p.RequiredActions, p.SuccessCriteria
	if len(p.Constraints) > 0 {
		raw, err := json.Marshal(p.Constraints)
		if err != nil {
			return nil, apierr.Errorf(apierr.CodeInvalidHandoff, "instructions.constraints: %v", err)
		}
		msg.Instructions.Constraints = raw
	}
	if h, ok := sender.(History); ok && caller.ContextID != "" {
		msg.Context.UserInteractionHistory = h.Interactions(ctx, caller.ContextID, caller.Owner)
	}
	if p.Input != "" {
		msg.Context.UserInteractionHistory = append(msg.Context.UserInteractionHistory, handoff.UserInteraction{
			Type: "CHAT_MESSAGE", Sender: "User", Content: runes.Clip(p.Input, maxDetails), Timestamp: now.UTC().Truncate(time.Millisecond)})
		if n := len(msg.Context.UserInteractionHistory); n > MaxInteractions {
			msg.Context.UserInteractionHistory = msg.Context.UserInteractionHistory[n-MaxInteractions:]
		}
	}
	if p.RetryCount > 0 || p.EscalateTo != "" || p.FallbackAction != "" {
		n := p.RetryCount
		msg.Instructions.FailureHandling = &handoff.FailureHandlingStrategy{RetryCount: &n, EscalateTo: p.EscalateTo, FallbackAction: p.FallbackAction}
	}
	st, err := sender.Send(ctx, msg, Origin{ContextID: caller.ContextID, Owner: caller.Owner})
	if err != nil {
		return nil, err
	}
	if a, ok := sender.(Awaiter); ok && p.Wait > 0 {
		if st.Answer, err = Await(ctx, a, st.MessageID, min(p.Wait, MaxWait)); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// originOf carries the task and correlation ids over from the hand-off a
// run received.
func originOf(received map[string]any) handoff.Origin {
	md, _ := received["metadata"].(map[string]any)
	task, _ := md["task_id"].(string)
	corr, _ := md["correlation_id"].(string)
	return handoff.Origin{TaskID: task, CorrelationID: corr}
}

// Said is what the user reads of a hand-off sent.
func Said(p Params, st *Sent) string {
	return fmt.Sprintf("\n> handed to %s: %s (task %s, message %s, %s)\n", strings.Join(st.Recipients, ", "), p.Type, st.TaskID, st.MessageID, st.Status)
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Builtins are the built-in tools of hand-offs: handoff_to_agent, with
// parameters {to, type, data, priority, next_steps, required_actions,
// success_criteria, constraints, wait}, which a model calls to hand work
// on by itself; the caller is the run's agent. With wait, its result
// carries the receiver's answer when it came in time, else a note of where
// to find it.
func Builtins(sender Sender) map[string]tools.BuiltinFunc {
	return map[string]tools.BuiltinFunc{
		"handoff_to_agent": func(ctx context.Context, params map[string]any) (any, error) {
			caller, ok := tools.CallerOf(ctx)
			if !ok {
				return nil, fmt.Errorf("handoff_to_agent runs only for an agent's model or plan")
			}
			p := Params{To: str(params["to"]), Type: str(params["type"]), Priority: str(params["priority"]), NextSteps: str(params["next_steps"]),
				SuccessCriteria: str(params["success_criteria"])}
			p.Data, _ = params["data"].(map[string]any)
			p.Constraints, _ = params["constraints"].(map[string]any)
			if tl, ok := p.Constraints["time_limit"]; ok {
				if s, _ := tl.(string); s == "" {
					return nil, fmt.Errorf("constraints.time_limit must be a duration such as PT2H")
				} else if _, err := handoff.ParseDuration(s); err != nil {
					return nil, fmt.Errorf("constraints.time_limit: %w", err)
				}
			}
			if list, ok := params["required_actions"].([]any); ok {
				for _, a := range list {
					if s := str(a); s != "" {
						p.RequiredActions = append(p.RequiredActions, s)
					}
				}
			}
			if w, ok := params["wait"]; ok {
				d, err := waitParam(w)
				if err != nil {
					return nil, err
				}
				p.Wait = d
			}
			st, err := Send(ctx, sender, caller, p)
			if err != nil {
				return nil, err
			}
			out := map[string]any{"message_id": st.MessageID, "task_id": st.TaskID, "status": st.Status,
				"recipients": st.Recipients}
			if ans := st.Answer; ans != nil {
				out["status"] = ans.Status
				if ans.Final {
					out["answer"] = map[string]any{"agent": ans.Agent, "text": ans.Text, "error": ans.Error}
				} else {
					out["note"] = strings.TrimPrefix(strings.TrimSpace(Waited(st, ans, p.Wait)), "> ")
				}
			}
			return out, nil
		},
	}
}

// waitParam is the tool's wait: a duration ("30s") or a number of
// seconds, at most MaxWait.
func waitParam(v any) (time.Duration, error) {
	var d time.Duration
	switch w := v.(type) {
	case string:
		var err error
		if d, err = time.ParseDuration(w); err != nil {
			return 0, fmt.Errorf("wait %q is not a duration such as 30s", w)
		}
	case float64:
		d = time.Duration(w * float64(time.Second))
	case json.Number:
		f, err := w.Float64()
		if err != nil {
			return 0, fmt.Errorf("wait %q is not a number of seconds", w)
		}
		d = time.Duration(f * float64(time.Second))
	default:
		return 0, fmt.Errorf("wait must be a duration such as 30s or a number of seconds")
	}
	if d < 0 || d > MaxWait {
		return 0, fmt.Errorf("wait %s is not between 0 and %s", d, MaxWait)
	}
	return d, nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
