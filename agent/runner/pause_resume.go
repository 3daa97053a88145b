package runner

import (
	"cmp"
	"context"
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/runstate"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/agent/tmpl"
	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/llm"
)

// resumeToolResults finds the paused run that a frontend tool's results
// answer, and checks that this request may resume it; its errors are for
// before the stream. It only reads the run: claimPause takes it once the
// whole request is known to be good, so that a request refused here or
// later in Prepare (another agent, a missing context variable) leaves the
// run waiting for the right one.
func (r *Runner) resumeToolResults(run *Run) (string, error) {
	// Every result must answer a call of one and the same paused run.
	var pauseID string
	for i, tr := range run.req.ToolResults {
		id, err := r.cfg.runs.PauseOfCall(bgctx(), tr.CallID)
		if err != nil {
			return "", pauseGone(err)
		}
		if i > 0 && id != pauseID {
			return "", stateInvalid("the toolResults answer calls of different runs; send one request per answer", nil)
		}
		pauseID = id
	}
	rec, err := r.cfg.runs.PeekPause(bgctx(), pauseID)
	if err != nil {
		return "", pauseGone(err)
	}
	if rec.Endpoint != run.agent.Name() {
		return "", stateInvalid(fmt.Sprintf("the tool call belongs to another agent, not %q", run.agent.Name()), nil)
	}
	if err := run.ownedBy(r, rec.Agent); err != nil {
		return "", err
	}
	run.paused = rec
	return rec.Command, nil
}

// resumeConsent finds the paused run a consent confirm answers; like
// resumeToolResults it only reads it, for claimPause to take.
func (r *Runner) resumeConsent(run *Run) error {
	rec, err := r.cfg.runs.PeekPause(bgctx(), run.feedback.Run)
	if err != nil {
		return pauseGone(err)
	}
	run.paused = rec
	return nil
}

// claimPause takes the paused run this request resumes out of the store,
// as the last step of Prepare: of several requests answering it, exactly
// one resumes it, and the others get STATE_INVALID before their stream.
func (r *Runner) claimPause(run *Run) error {
	if run.paused == nil {
		return nil
	}
	rec, err := r.cfg.runs.TakePause(bgctx(), run.paused.ID)
	if err != nil {
		return pauseGone(err)
	}
	run.paused = rec
	return nil
}

// ownedBy makes agent the run's agent: the command an action or a paused
// run belongs to is that agent's.
func (run *Run) ownedBy(r *Runner, agent string) error {
	if agent == run.agent.Name() {
		return nil
	}
	a, ok := r.reg.Get(agent)
	if !ok {
		return stateInvalid(fmt.Sprintf("the agent %q the action or paused run belongs to no longer exists", agent), nil)
	}
	run.agent = a
	return nil
}

// resume continues a paused conversation with the answers this request
// brings, then what the command does after its model.
func (run *Run) resume(ctx context.Context, em emit.Emitter) error {
	rec := run.paused
	if rec.Kind == runstate.KindPlan {
		return run.afterModel(ctx, em)
	}
	l := &toolLoop{run: run, tools: map[string]stepkind.Tool{}, model: rec.Model, fallbacks: rec.Fallbacks, params: rec.Params,
		msgs: rec.Messages, round: rec.Round, stream: rec.Stream, start: rec.Start}
	for _, name := range rec.Tools {
		if t := run.cmd.Tools[name]; t != nil {
			l.tools[name] = t
		}
	}
	results := rec.Results
	var still []runstate.PendingCall
	for _, w := range rec.Waiting {
		text, ok, err := run.answer(ctx, em, l, w)
		if err != nil {
			return err
		}
		if !ok {
			still = append(still, w)
			continue
		}
		results[w.Index] = text
	}
	if len(still) > 0 {
		rec.Waiting = still // results shares rec.Results' array
		return l.repause(ctx, em, rec)
	}
	for i, c := range rec.Calls {
		l.msgs = append(l.msgs, llm.ToolMessage(c.ID, results[i]))
	}
	l.round++
	text, err := l.converse(ctx, em)
	if err != nil {
		return err
	}
	l.keepTurn(text)
	return run.afterModel(ctx, em)
}

// answer gives one waiting call its result from this request: the user's
// consent (then the tool runs) or the IDE's result.
func (run *Run) answer(ctx context.Context, em emit.Emitter, l *toolLoop, w runstate.PendingCall) (string, bool, error) {
	if w.Frontend {
		for _, tr := range run.req.ToolResults {
			if tr.CallID == w.ClientID {
				// The model knows the call by its own id.
				tr.CallID, tr.Status = w.Call.ID, cmp.Or(tr.Status, toolspec.StatusSuccess)
				return l.fallback(w.Call.Name, tr)
			}
		}
		return "", false, nil
	}
	fb := run.req.Action
	if fb == nil || fb.Action != actions.KindConfirm {
		return "", false, nil
	}
	if !fb.Accepted {
		return toolResultText(toolspec.Result{CallID: w.Call.ID, Status: toolspec.StatusError,
			Error: &toolspec.ResultError{Code: toolspec.CodeDeclined, Message: "the user declined to run this tool"}}), true, nil
	}
	t := l.tools[w.Call.Name]
	if t == nil {
		return toolResultText(toolspec.Result{CallID: w.Call.ID, Status: toolspec.StatusError,
			Error: &toolspec.ResultError{Code: toolspec.CodeUnknownTool, Message: fmt.Sprintf("the tool %q is no longer defined", w.Call.Name)}}), true, nil
	}
	if err := em.Text(progressLine(w.Call)); err != nil {
		return "", false, apierr.Canceled(err)
	}
	return toolResultText(l.call(ctx, t, w.Call)), true, nil
}

// fallback is what the model reads of a frontend tool's result. A result
// saying the tool could not be executed in the IDE (toolspec.CouldNotRun:
// unavailable, not supported, declined, timed out) follows the tool's
// fallbackBehavior. ABORT ends the run with TOOL_FAILED. SKIP gives the
// model the result as it is and withdraws the tool for the rest of the
// run: the model goes on without it (and the user is not asked again for
// a tool they declined). USE_ALTERNATIVE gives the model the result as it
// is, the tool still offered, for the model to choose another tool or try
// again. Any other result, SUCCESS or the ERROR of a tool that ran and
// failed (FILE_NOT_FOUND), goes to the model as it is, as a backend
// tool's does, and so does the result of a tool no longer defined.
func (l *toolLoop) fallback(name string, tr toolspec.Result) (string, bool, error) {
	t := l.tools[name]
	if !toolspec.CouldNotRun(tr) || t == nil {
		return toolResultText(tr), true, nil
	}
	switch cmp.Or(t.ToolSpec().FallbackBehavior, toolspec.FallbackAbort) {
	case toolspec.FallbackSkip:
		delete(l.tools, name)
		return toolResultText(tr), true, nil
	case toolspec.FallbackUseAlternative:
		return toolResultText(tr), true, nil
	}
	why := tr.Status
	if tr.Error != nil {
		why += ", " + tr.Error.Code + ": " + tr.Error.Message
	}
	// The IDE failed to run the tool: a bad gateway on the client's side.
	return "", false, apierr.New(apierr.CodeToolFailed, fmt.Sprintf("frontend tool %q did not run in the IDE (%s), and its fallbackBehavior is ABORT", name, tmpl.Truncate(300, why))).
		WithStatus(http.StatusBadGateway).From(apierr.SourceClient).
		Suggest("make the tool available in the IDE (or allow it) and ask again")
}

// repause keeps a run whose round still waits for some answers, and asks
// for them again, so that the client knows what is pending.
func (l *toolLoop) repause(ctx context.Context, em emit.Emitter, rec *runstate.Record) error {
	rec.ID = uuid.NewString()       // a new record, as pause makes
	rec.Tools = sortedKeys(l.tools) // less a tool a SKIP withdrew
	if err := l.run.savePause(ctx, rec); err != nil {
		return err
	}
	return l.askFor(em, rec)
}

func bgctx() context.Context { return context.Background() }
