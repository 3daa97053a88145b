package agentrun

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"time"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent/dispatch"
	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/request"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/handoff"
	"github.com/agentgw/agentgw/handoff/handoffstep"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/schedule"
	"github.com/agentgw/agentgw/tools"
)

// Result is a run's result: what the command showed, or what the tool
// returned, and where it was sent.
type Result struct {
	Agent   string            `json:"agent"`
	Command string            `json:"command,omitempty"`
	Text    string            `json:"text,omitempty"`
	Actions []*actions.Action `json:"actions,omitempty"`
	Tool    string            `json:"tool,omitempty"`
	Output  any               `json:"output,omitempty"`
	// Error is the command's error frame or the tool's error.
	Error *ErrorInfo `json:"error,omitempty"`
	// HandoffID is the hand-off that took the result on; Webhook the
	// status the webhook answered.
	HandoffID string `json:"handoffId,omitempty"`
	Webhook   int    `json:"webhook,omitempty"`
}

// ErrorInfo is a run's error as its result keeps it.
type ErrorInfo struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// KeyCheck reports whether the stored key of id is live (not revoked; a
// rotated key is): keys.Store.LookupID. An error is the store's.
type KeyCheck func(ctx context.Context, id string) (live bool, err error)

// Runs runs schedules' targets.
type Runs struct {
	// Keys checks, before each run of a schedule made with a stored key
	// (Target.KeyID), that the key is live. nil (the gateway reads no
	// keys): such a run fails, nothing runs, the schedule stays enabled.
	Keys KeyCheck
	// Runner runs agents' commands.
	Runner *runner.Runner
	// Handoffs sends results to agents (nil: handoffTo fails).
	Handoffs handoffstep.Sender
	// WebhookAllow are the URL prefixes webhooks may be sent to.
	WebhookAllow []string
	// HTTP sends webhooks (nil: a client with a 30 s timeout).
	HTTP *http.Client
	Log  *slog.Logger
	// Budget holds the runs to their creator's budgets (nil: none).
	Budget observe.Budget
}

// Run is the schedule.Runner of the gateway.
func (rs *Runs) Run(ctx context.Context, sc schedule.Schedule, due time.Time) (json.RawMessage, error) {
	var t Target
	if err := json.Unmarshal(sc.Target, &t); err != nil {
		return nil, fmt.Errorf("schedule %s: reading its target: %w", sc.Name, err)
	}
	if err := rs.checkKey(ctx, sc, &t); err != nil {
		return nil, err
	}
	ctx = withScope(ctx, sc, &t)
	res, runErr := rs.run(ctx, sc, &t)
	if runErr == nil && t.HandoffTo != "" {
		runErr = rs.handOff(ctx, sc, due, &t, res)
	}
	if runErr == nil && t.Webhook != "" {
		runErr = rs.post(ctx, sc, due, &t, res)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("schedule %s: encoding its result: %w", sc.Name, err)
	}
	return raw, runErr
}

// checkKey refuses a run of sc, made with a stored key (t.KeyID), when
// the key is no longer live: a *schedule.DisableError, so that the run is
// recorded FAILED with the reason and sc disabled; nothing ran. A schedule
// made without a stored key (the operator's files, a static token) is not
// checked. A key that cannot be checked (the store's error, or no Keys)
// fails the run and leaves the schedule as it is.
func (rs *Runs) checkKey(ctx context.Context, sc schedule.Schedule, t *Target) error {
	if t.KeyID == "" {
		return nil
	}
	if rs.Keys == nil {
		return fmt.Errorf("schedule %s was made with the stored key %s, and this gateway reads no keys (server.keys is off): nothing ran", sc.Name, t.KeyID)
	}
	live, err := rs.Keys(ctx, t.KeyID)
	if err != nil {
		return fmt.Errorf("schedule %s: checking its key %s: %w", sc.Name, t.KeyID, err)
	}
	if live {
		return nil
	}
	return &schedule.DisableError{Reason: fmt.Sprintf("the key %s this schedule was made with is revoked: nothing ran, and the schedule is disabled. "+
		"Enable it again with a live key of its owner (PATCH /schedules/%s {\"enabled\": true}), which becomes its key", t.KeyID, sc.ID)}
}

// run runs the target's command or tool of sc, as sc's creator
// (runOwner), held to the creator's budgets (reserve).
func (rs *Runs) run(ctx context.Context, sc schedule.Schedule, t *Target) (*Result, error) {
	if t.Tool != "" {
		res := &Result{Agent: t.Agent, Tool: t.Tool}
		params, _ := json.Marshal(t.Params)
		ctx, release, err := rs.reserve(ctx, sc, t, int64(len(params)))
		if err != nil {
			res.Error = errorInfo(err)
			return res, fmt.Errorf("tool %s: %w", t.Tool, err)
		}
		defer release()
		return rs.callTool(ctx, sc, t)
	}
	body, err := requestBody(t)
	if err != nil {
		return nil, err
	}
	res := &Result{Agent: t.Agent, Command: firstNonEmpty(t.Command, program.DefaultCommand)}
	ctx, release, err := rs.reserve(ctx, sc, t, int64(len(body)))
	if err != nil {
		res.Error = errorInfo(err)
		return res, fmt.Errorf("%s/%s: %w", t.Agent, res.Command, err)
	}
	defer release()
	req, err := request.Decode(body)
	if err == nil {
		req.Owner = runOwner(sc, t)
		req.Source = observe.SourceSchedule
		var run *runner.Run
		if run, err = rs.Runner.Prepare(req); err == nil {
			rec := &emit.Recorder{}
			run.Execute(ctx, rec)
			res.Text = rec.Transcript()
			for _, f := range rec.Frames() {
				if f.Kind == "action" {
					res.Actions = append(res.Actions, f.Action)
				}
			}
			if e := rec.Err(); e != nil {
				err = e
			}
		}
	}
	if err != nil {
		res.Error = errorInfo(err)
		return res, fmt.Errorf("%s/%s: %w", t.Agent, res.Command, err)
	}
	return res, nil
}

// reserve takes the estimate of a run of sc, whose input is about size
// bytes, on the budgets of the identity that made sc (its owner; a
// schedule of the operator's files is held to none): refused, the run
// calls no model and fails with the budget's code.
func (rs *Runs) reserve(ctx context.Context, sc schedule.Schedule, t *Target, size int64) (context.Context, func(), error) {
	if rs.Budget == nil || sc.Source != "" {
		return ctx, func() {}, nil
	}
	return rs.Budget.Reserve(ctx, observe.SourceSchedule, runOwner(sc, t), "schedule-"+sc.ID, size)
}

// requestBody is the agent request of a command target.
func requestBody(t *Target) ([]byte, error) {
	vars := []map[string]any{}
	names := make([]string, 0, len(t.Context))
	for name := range t.Context {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		vars = append(vars, map[string]any{"name": name, "value": t.Context[name]})
	}
	if t.Prompt != "" {
		vars = append(vars, map[string]any{"name": "userInputPrompt", "value": t.Prompt})
	}
	if t.User != "" {
		vars = append(vars, map[string]any{"name": "userInfo", "value": map[string]any{"id": t.User}})
	}
	body := map[string]any{"agent": t.Agent, "command": t.Command, "contextVariables": vars}
	if t.ContextID != "" {
		body["contextId"] = t.ContextID
	}
	return json.Marshal(body)
}

// callTool calls the target's tool: one of its agent's, shared ones
// included. For a schedule made over the API the tool is checked again
// as at its creation (unattendedTool: the agent's file may have changed
// since); a tool that may not run unattended fails the run with
// TOOL_NOT_UNATTENDED, recorded in its result, and nothing runs.
func (rs *Runs) callTool(ctx context.Context, sc schedule.Schedule, t *Target) (*Result, error) {
	res := &Result{Agent: t.Agent, Tool: t.Tool}
	if sc.Source == "" {
		if _, aerr := unattendedTool(rs.Runner.Registry(), t.Agent, t.Tool); aerr != nil {
			res.Error = toolError(aerr)
			return res, aerr
		}
	}
	a, ok := rs.Runner.Registry().Get(t.Agent)
	if !ok {
		res.Error = &ErrorInfo{Code: apierr.CodeAgentNotFound, Message: fmt.Sprintf("no agent %q", t.Agent)}
		return res, fmt.Errorf("no agent %q", t.Agent)
	}
	for _, tool := range a.Tools() {
		if tool.ToolSpec().Name != t.Tool {
			continue
		}
		params := t.Params
		if params == nil {
			params = map[string]any{}
		}
		// The call comes from no run: what it runs on the gateway's agents
		// (ask_agent) goes through the runner.
		callCtx := dispatch.WithLocal(toolspec.WithCaller(ctx, toolspec.Caller{Agent: t.Agent, Owner: runOwner(sc, t)}), rs.Runner)
		r := tool.Call(callCtx, toolspec.Call{ID: tools.NewCallID(), Parameters: params})
		res.Output = r.Result
		if r.Status != toolspec.StatusSuccess {
			msg := r.Status
			if r.Error != nil {
				msg += ": " + r.Error.Code + ": " + r.Error.Message
			}
			res.Error = &ErrorInfo{Code: apierr.CodeToolFailed, Message: msg}
			return res, fmt.Errorf("tool %s: %s", t.Tool, msg)
		}
		return res, nil
	}
	res.Error = &ErrorInfo{Code: apierr.CodeToolFailed, Message: fmt.Sprintf("agent %q has no tool %q", t.Agent, t.Tool)}
	return res, fmt.Errorf("agent %q has no tool %q", t.Agent, t.Tool)
}

func errorInfo(err error) *ErrorInfo {
	if e, ok := err.(*apierr.Error); ok {
		return &ErrorInfo{Code: e.Code, Message: e.Message}
	}
	return &ErrorInfo{Code: apierr.CodeInternal, Message: err.Error()}
}

// handOff sends the result to the target's agent as a NOTIFICATION.
func (rs *Runs) handOff(ctx context.Context, sc schedule.Schedule, due time.Time, t *Target, res *Result) error {
	text := res.Text
	if res.Tool != "" {
		out, _ := json.Marshal(res.Output)
		text = string(out)
	}
	sent, err := handoffstep.Send(ctx, rs.Handoffs, tools.Caller{Agent: t.Agent, ContextID: t.ContextID, Owner: runOwner(sc, t)},
		handoffstep.Params{To: t.HandoffTo, Type: string(handoff.Notification), Data: map[string]any{
			"event_type": "schedule", "message": text,
			"details": map[string]any{"schedule": sc.Name, "scheduleId": sc.ID, "due": due.UTC().Format(time.RFC3339)}}})
	if err != nil {
		return fmt.Errorf("handing the result to %s: %w", t.HandoffTo, err)
	}
	res.HandoffID = sent.MessageID
	return nil
}

// post sends the result to the target's webhook, if it is allowed.
func (rs *Runs) post(ctx context.Context, sc schedule.Schedule, due time.Time, t *Target, res *Result) error {
	if !Allowed(t.Webhook, rs.WebhookAllow) {
		return fmt.Errorf("webhook %s is not under scheduler.webhookAllow", apierr.Clip(t.Webhook))
	}
	body, err := json.Marshal(map[string]any{"schedule": sc.Name, "scheduleId": sc.ID, "due": due.UTC(), "result": res})
	if err != nil {
		return fmt.Errorf("encoding the webhook: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.Webhook, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("webhook: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	c := rs.HTTP
	if c == nil {
		c = &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("webhook: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	res.Webhook = resp.StatusCode
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("webhook answered %d", resp.StatusCode)
	}
	return nil
}
