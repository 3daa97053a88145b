package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/runstate"
	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/observe"
)

// consentKey is the action key of a tool-consent confirm.
const consentKey = "tool-consent"

// pause keeps the conversation and asks the user (one confirm for the calls
// that need consent) and the IDE (one copilot_tool_call per frontend call).
func (l *toolLoop) pause(ctx context.Context, em emit.Emitter, calls []llm.ToolCall, results []string, waiting []runstate.PendingCall) error {
	run := l.run
	names := make([]string, len(waiting))
	for i, w := range waiting {
		names[i] = strconv.Quote(w.Call.Name)
	}
	if err := run.cannotWait("the user or the IDE for tool " + strings.Join(names, ", ")); err != nil {
		return err
	}
	if !run.cfg.runs.Keeps() {
		return runstate.NoStore("a tool needs the user's consent or the IDE")
	}
	rec := &runstate.Record{ID: uuid.NewString(), Endpoint: run.endpoint, Agent: run.agent.Name(), Command: run.cmd.Def.Name,
		Model: l.model, Fallbacks: l.fallbacks, Params: l.params, Stream: l.stream, Tools: sortedKeys(l.tools),
		Messages: l.msgs, Calls: calls, Results: results, Round: l.round, Start: l.start}
	for _, w := range waiting {
		if w.Frontend {
			w.ClientID = newCallID()
		}
		rec.Waiting = append(rec.Waiting, w)
	}
	if err := run.savePause(ctx, rec); err != nil {
		return err
	}
	observePause(ctx, rec.Waiting)
	return l.askFor(em, rec)
}

// observePause tells the run's observers what the paused round waits for.
func observePause(ctx context.Context, waiting []runstate.PendingCall) {
	w := observe.From(ctx)
	if w == nil {
		return
	}
	frontend, consent := false, false
	for _, c := range waiting {
		frontend = frontend || c.Frontend
		consent = consent || !c.Frontend
	}
	if consent {
		w.Paused(observe.PauseConsent)
	}
	if frontend {
		w.Paused(observe.PauseFrontendTool)
	}
}

// askFor emits what the paused round waits for.
func (l *toolLoop) askFor(em emit.Emitter, rec *runstate.Record) error {
	var consent []string
	for _, w := range rec.Waiting {
		t := l.tools[w.Call.Name].ToolSpec()
		if w.Frontend {
			frame := &emit.ToolCallFrame{CallID: w.ClientID, Name: w.Call.Name, Parameters: decodeArgs(w.Call.Arguments),
				UserPrompt: t.UserPrompt, FallbackBehavior: t.FallbackBehavior}
			if err := em.ToolCall(frame); err != nil {
				return apierr.Canceled(err)
			}
			continue
		}
		consent = append(consent, consentQuestion(t, w.Call))
	}
	if len(consent) > 0 {
		title := "Allow"
		if len(consent) > 1 {
			title = fmt.Sprintf("Allow %d tool runs", len(consent))
		}
		return l.run.askConsent(em, rec.ID, title, strings.Join(consent, "\n"))
	}
	return errPaused
}

// askConsent sends the confirm that asks the user's consent for the paused
// run id, and returns errPaused.
func (run *Run) askConsent(em emit.Emitter, id, title, message string) error {
	a := &actions.Action{Kind: actions.KindConfirm, Confirm: &actions.Confirm{Title: title, Message: message}}
	var err error
	if a.State, err = run.cfg.Signer.Sign(run.actionClaims(consentKey, actions.KindConfirm, id)); err != nil {
		return apierr.Internal(fmt.Errorf("signing consent state: %w", err))
	}
	if err := em.Action(a); err != nil {
		return apierr.Canceled(err)
	}
	return errPaused
}

// consentQuestion is what the user is asked before a tool runs.
func consentQuestion(t *toolspec.Spec, c llm.ToolCall) string {
	if t.UserPrompt != "" {
		return t.UserPrompt + " " + argsSummary(c.Arguments)
	}
	return fmt.Sprintf("Run %s %s?", c.Name, argsSummary(c.Arguments))
}

func argsSummary(args string) string {
	if s := compactArgs(args, 200); s != "{}" {
		return s
	}
	return ""
}

func decodeArgs(args string) map[string]any {
	m := map[string]any{}
	_ = json.Unmarshal([]byte(args), &m)
	return m
}

// savePause keeps a paused run, with the turn so far of the conversation
// it continues.
func (run *Run) savePause(ctx context.Context, rec *runstate.Record) error {
	rec.Conv = nil
	if run.conv != nil {
		rec.Conv = run.conv.Paused()
	}
	return run.cfg.runs.SavePause(ctx, rec)
}

// pauseGone is the error of an answer to a run that is no longer waiting,
// or, when the store failed, its STORE_UNAVAILABLE: the run may well be
// waiting still.
func pauseGone(err error) *apierr.Error {
	var e *apierr.Error
	if errors.As(err, &e) && e.Code == apierr.CodeStoreUnavailable {
		return e
	}
	msg := "the run this answers is no longer waiting: it was answered already, or it expired"
	if !errors.Is(err, runstate.ErrNotFound) {
		msg = "the paused run cannot be read"
	}
	return stateInvalid(msg, err)
}
