package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/handoff"
	"github.com/agentgw/agentgw/handoff/queue"
)

// The names an escalation the gateway sends gives what happened, in
// context.workflow_state, context.previous_actions and payload.data.
const (
	// EscalatedState is the escalation's context.workflow_state.
	EscalatedState = "ESCALATED"
	// FailedAction is the action_type of the previous action the
	// escalation adds: the failed message.
	FailedAction = "HANDOFF_FAILED"
	// FailedCategory is the escalation's payload.data.issue_category when
	// the failed message was not an ESCALATION itself.
	FailedCategory = "HANDOFF_FAILED"
)

// escalate is the queue's Escalate (Handlers): the message that takes over
// one whose retries are spent (or that expired waiting for one) is a new
// message of type ESCALATION to its escalate_to, not the same message
// re-addressed. It has an id of its own (EscalationID), the same task_id,
// correlation_id and priority, and carries the failed message and its
// failure: its previous_actions and a HANDOFF_FAILED action in context,
// the whole message and its failure in payload.data.technical_details,
// in the ESCALATION data shape of seed 001. escalate_to must accept
// ESCALATION (Submit checks it; the escalation is checked again here, as
// any message, against the target's schemas). Its failure_handling_strategy
// keeps the retry_count and fallback_action, without escalate_to. It keeps
// the conversation the failed message answers into, and the scope and the
// key the failed message was sent with (its delivery checks the key as
// the failed message's did).
func (h *Hub) escalate(ctx context.Context, env queue.Envelope, lastErr error) (*queue.Envelope, error) {
	q, err := h.ready()
	if err != nil {
		return nil, err
	}
	p, msg, err := queued(env)
	if err != nil {
		return nil, err
	}
	rec, err := q.Get(ctx, env.ID)
	if err != nil {
		return nil, fmt.Errorf("reading message %s: %w", env.ID, err)
	}
	esc, err := escalation(msg, p.Message, rec, lastErr, h.now())
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(esc)
	if err != nil {
		return nil, fmt.Errorf("encoding the escalation of %s: %w", env.ID, err)
	}
	checked, err := handoff.Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("the escalation of %s: %w", env.ID, err)
	}
	if err := h.checkRecipients([]string{env.EscalateTo}, checked, raw); err != nil {
		return nil, fmt.Errorf("the escalation of %s: %w", env.ID, err)
	}
	body, err := json.Marshal(payload{Message: raw, Origin: p.Origin, Scope: p.Scope, KeyID: p.KeyID, Checked: true})
	if err != nil {
		return nil, fmt.Errorf("encoding the escalation of %s: %w", env.ID, err)
	}
	next := envelope(checked, body)
	next.Owner, next.Hops = env.Owner, max(env.Hops, 1)+1
	return &next, nil
}

// EscalationID is the id of the escalation of message id of owner: a UUID
// derived from both, the same every time (an escalation repeated after a
// crash is not queued twice). The owner is in it so that another owner
// cannot know it in advance: owners of tokens are digests of the tokens,
// and a message stored under the id before would block the escalation.
func EscalationID(owner, id string) string {
	return queue.EscalationID(fmt.Sprintf("%d:%s:%s", len(owner), owner, id))
}

// escalation builds the ESCALATION that takes over msg (raw as sent),
// whose queue record is rec and last failure lastErr.
func escalation(msg *handoff.Message, raw json.RawMessage, rec queue.Record, lastErr error, now time.Time) (*handoff.Message, error) {
	md := msg.Metadata
	now = now.UTC().Truncate(time.Millisecond)
	failure := map[string]any{
		"message_id": md.MessageID, "handoff_type": msg.Payload.Type, "recipients": []string(md.RecipientID),
		"attempts": rec.Attempts, "failures": rec.Failures, "error": lastErr.Error(),
	}
	data := map[string]any{}
	if msg.Payload.Type == handoff.Escalation {
		// An escalation escalated further keeps its issue and customer.
		if err := msg.Payload.DecodeData(&data); err != nil {
			return nil, err
		}
	} else {
		data["issue_category"] = FailedCategory
		data["severity"] = string(md.Priority)
		data["customer_info"] = map[string]any{"user_id": md.SenderID, "name": md.SenderID}
	}
	details, _ := data["technical_details"].(map[string]any)
	if details == nil {
		details = map[string]any{}
	}
	details["symptoms"] = lastErr.Error()
	details["failure"] = failure
	details["escalated_message"] = raw
	data["technical_details"] = details

	recipients := strings.Join(md.RecipientID, ",")
	out, err := handoff.New(now, recipients, handoff.Recipients{rec.EscalateTo}, handoff.Escalation, data,
		handoff.Origin{TaskID: md.TaskID, CorrelationID: md.CorrelationID})
	if err != nil {
		return nil, apierr.Internal(err)
	}
	out.Metadata.MessageID = EscalationID(rec.Owner, md.MessageID)
	out.Metadata.Priority = md.Priority
	out.Context = handoff.Context{
		WorkflowState: EscalatedState,
		PreviousActions: append(append([]handoff.PreviousAction{}, msg.Context.PreviousActions...), handoff.PreviousAction{
			ActionType: FailedAction, Timestamp: now,
			Details: fmt.Sprintf("%s hand-off %s to %s failed after %d attempt(s): %v", msg.Payload.Type, md.MessageID, recipients, rec.Attempts, lastErr),
		}),
		HistoricalDataSummary:  msg.Context.HistoricalDataSummary,
		UserInteractionHistory: msg.Context.UserInteractionHistory,
	}
	in := msg.Instructions
	next := fmt.Sprintf("Take over the %s hand-off %s that %s could not complete.", msg.Payload.Type, md.MessageID, recipients)
	if in.NextStepsSuggestion != "" {
		next += " Its next steps: " + in.NextStepsSuggestion
	}
	out.Instructions = handoff.Instructions{NextStepsSuggestion: next, RequiredActions: in.RequiredActions,
		Constraints: in.Constraints, SuccessCriteria: in.SuccessCriteria}
	if fh := in.FailureHandling; fh != nil && (fh.RetryCount != nil || fh.FallbackAction != "") {
		out.Instructions.FailureHandling = &handoff.FailureHandlingStrategy{RetryCount: fh.RetryCount, FallbackAction: fh.FallbackAction}
	}
	return out, nil
}
