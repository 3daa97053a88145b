package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/store"
	"github.com/agentgw/agentgw/tools/toolspec"
)

// consentKey is the action key of a tool-consent confirm.
const consentKey = "tool-consent"

// DefaultPauseTTL is how long a paused run waits for its answer.
const DefaultPauseTTL = time.Hour

// pendingCall is a tool call waiting for the user's consent or the IDE.
type pendingCall struct {
	Index    int          `json:"index"` // in the round's calls
	Call     llm.ToolCall `json:"call"`
	Frontend bool         `json:"frontend,omitempty"`
	// ClientID is the id the IDE answers a frontend call with.
	ClientID string `json:"clientId,omitempty"`
}

// pauseRecord is a paused run, a model conversation or a plan, kept in the
// store so that any replica sharing it can resume it.
type pauseRecord struct {
	ID string `json:"id"`
	// Kind is "" for a model conversation, pauseKindPlan for a plan.
	Kind     string         `json:"kind,omitempty"`
	Endpoint string         `json:"endpoint"`
	Agent    string         `json:"agent"`
	Command  string         `json:"command"`
	Model    string         `json:"model"`
	Params   map[string]any `json:"params,omitempty"`
	Stream   bool           `json:"stream"`
	Tools    []string       `json:"tools"`
	Messages []llm.Message  `json:"messages"`
	Calls    []llm.ToolCall `json:"calls"`
	Results  []string       `json:"results"` // per call; "" while waiting
	Waiting  []pendingCall  `json:"waiting"`
	Round    int            `json:"round"`
	// Fallbacks are the conversation's fallback models, nil for the
	// gateway's.
	Fallbacks []string `json:"fallbacks,omitempty"`
	// A paused plan: the step that waits, the plan's state, and the
	// results of the steps that completed.
	Step  string         `json:"step,omitempty"`
	State map[string]any `json:"state,omitempty"`
	Done  map[string]any `json:"done,omitempty"`
	// Start is the index in Messages of the command's own answer (see
	// toolLoop.start).
	Start int `json:"start,omitempty"`
	// Conv is the turn so far of the conversation the run continues.
	Conv json.RawMessage `json:"conv,omitempty"`
}

// pauseKindPlan marks a paused plan.
const pauseKindPlan = "plan"

// pause keeps the conversation and asks the user (one confirm for the calls
// that need consent) and the IDE (one copilot_tool_call per frontend call).
func (l *toolLoop) pause(ctx context.Context, em emit.Emitter, calls []llm.ToolCall, results []string, waiting []pendingCall) error {
	run := l.run
	names := make([]string, len(waiting))
	for i, w := range waiting {
		names[i] = strconv.Quote(w.Call.Name)
	}
	if err := run.cannotWait("the user or the IDE for tool " + strings.Join(names, ", ")); err != nil {
		return err
	}
	if !run.cfg.runs.keeps() {
		return noPauseStore("a tool needs the user's consent or the IDE")
	}
	rec := &pauseRecord{ID: uuid.NewString(), Endpoint: run.endpoint, Agent: run.agent.Name(), Command: run.cmd.def.Name,
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
func observePause(ctx context.Context, waiting []pendingCall) {
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
func (l *toolLoop) askFor(em emit.Emitter, rec *pauseRecord) error {
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

// noPauseStore is the error of a run that would pause on a gateway without
// a store for paused runs; what is what it waits for.
func noPauseStore(what string) *apierr.Error {
	return apierr.New(apierr.CodeToolFailed, what+", and this gateway keeps no store for paused runs")
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
func (run *Run) savePause(ctx context.Context, rec *pauseRecord) error {
	rec.Conv = nil
	if run.conv != nil {
		rec.Conv = run.conv.Paused()
	}
	return run.cfg.runs.savePause(ctx, rec)
}

// decodePause decodes a stored paused run. Its free-form values (the
// model's parameters, the plan's state, the completed steps' results) come
// back as JSON-shaped data with whole numbers as ints, as they were before
// the pause, so that templates print 10000000, not 1e+07.
func decodePause(data []byte) (*pauseRecord, error) {
	var rec pauseRecord
	if err := decodeNumbers(data, &rec); err != nil {
		return nil, fmt.Errorf("decoding a paused run: %w", err)
	}
	for _, m := range []map[string]any{rec.Params, rec.State, rec.Done} {
		for k, v := range m {
			m[k] = fromNumbers(v)
		}
	}
	return &rec, nil
}

// decodeNumbers decodes data into v, the numbers of its interface values
// as json.Number (fromNumbers turns them into Go numbers).
func decodeNumbers(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("data after the value")
	}
	return nil
}

// fromNumbers turns the json.Numbers of decoded data into ints when whole
// and in int64's range, float64s otherwise (integral float64s below 2^53
// into ints too, as wholeNumbers does), in place for maps and lists.
func fromNumbers(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil && int64(int(i)) == i {
			return int(i)
		}
		f, err := t.Float64()
		if err != nil {
			return t.String() // out of float64's range: keep the digits
		}
		return stepkind.WholeNumbers(f)
	case map[string]any:
		for k, e := range t {
			t[k] = fromNumbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = fromNumbers(e)
		}
	}
	return v
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
	if !errors.Is(err, store.ErrNotFound) {
		msg = "the paused run cannot be read"
	}
	return stateInvalid(msg, err)
}
