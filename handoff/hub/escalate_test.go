package hub

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/handoff"
	"github.com/agentgw/agentgw/handoff/queue"
)

// escalatedMessage is the TASK_TRANSFER alice posts to flaky (whose every
// run fails), with escalate_to backup and a fallback.
const escalatedMessage = `{
  "metadata": {"message_id": "66666666-6666-4666-8666-666666666666", "timestamp": "2026-11-29T06:00:00.000Z",
    "protocol_version": "1.0.0", "sender_id": "client", "recipient_id": "flaky", "correlation_id": "flow-1",
    "task_id": "task-esc", "priority": "HIGH"},
  "context": {"workflow_state": "KEYS_DUE", "previous_actions": [{"action_type": "AUDIT", "details": "keys are old",
    "timestamp": "2026-11-29T05:00:00.000Z"}], "historical_data_summary": "rotated a year ago"},
  "payload": {"handoff_type": "TASK_TRANSFER", "data": {"task_description": "rotate keys"}},
  "instructions": {"next_steps_suggestion": "Rotate them.", "required_actions": ["ROTATE"], "success_criteria": "new keys",
    "failure_handling_strategy": {"retry_count": 0, "escalate_to": "backup", "fallback_action": "logger"}}
}`

// TestEscalationIsANewMessage (issue 25, item 6): a message whose retries
// are spent goes to escalate_to as a new message of type ESCALATION, not
// the same message re-addressed: its own id (derived from the owner and
// the message id), the same task_id, correlation_id and priority, the
// failed message and its failure in context and payload.data (seed 001's
// ESCALATION data), the owner kept one hop further, linked both ways in
// GET /handoffs and GET /tasks. The target runs its ESCALATION command.
// Another owner's message stored under the id the old derivation gave
// (from the message id alone) does not block it.
func TestEscalationIsANewMessage(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		clock := time.Date(2026, 11, 29, 6, 0, 1, 500e6, time.UTC)
		h := newHubWith(t, db, hubAgents, Config{Now: func() time.Time { return clock }}, queue.Config{})
		ctx := t.Context()
		const id = "66666666-6666-4666-8666-666666666666"
		escID := EscalationID(alice.Owner, id)
		if escID == queue.EscalationID(id) || escID == EscalationID(bob.Owner, id) {
			t.Fatalf("escalation id %s is not the owner's own", escID)
		}
		// Bob takes the id the old derivation gave: it is not the escalation's.
		if _, _, err := h.Submit(ctx, bob, rawMessage(t, queue.EscalationID(id), "bobs", "MEDIUM", "squat")); err != nil {
			t.Fatal(err)
		}

		if _, _, err := h.Submit(ctx, alice, []byte(escalatedMessage)); err != nil {
			t.Fatal(err)
		}
		orig := wait(t, h, id)
		if orig.Status != queue.StatusFailed || orig.EscalatedTo != escID || orig.FallbackRan || orig.Attempts != 1 {
			t.Fatalf("the failed message: %+v", orig)
		}
		esc := wait(t, h, escID)
		if esc.Status != queue.StatusCompleted || esc.EscalatedFrom != id || esc.TaskID != "task-esc" ||
			esc.CorrelationID != "flow-1" || esc.Hops != 2 || strings.Join(esc.Recipients, ",") != "backup" {
			t.Fatalf("the escalation: %+v", esc)
		}
		if got := resultText(t, esc); got != "backup: backup took rotate keys (ESCALATION of "+id+")" {
			t.Errorf("the target ran %q", got)
		}
		// Alice's, as her message; bob is told it does not exist.
		agentError(t, func() error { _, err := h.Get(ctx, bob, escID); return err }(), apierr.CodeNotFound)
		task, err := h.Task(ctx, alice, "task-esc")
		if err != nil || len(task.Messages) != 2 || task.Messages[0].EscalatedTo != escID || task.Messages[1].EscalatedFrom != id {
			t.Fatalf("the task: %+v, %v", task, err)
		}

		var compact bytes.Buffer
		if err := json.Compact(&compact, []byte(escalatedMessage)); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf(wantEscalation, escID, "TASK_TRANSFER hand-off "+id+" to flaky failed after 1 attempt(s): "+orig.Error,
			id, orig.Error, compact.String())
		if !sameJSON(esc.Message, []byte(want)) {
			var got bytes.Buffer
			_ = json.Indent(&got, esc.Message, "", "  ")
			t.Errorf("the stored escalation:\n%s\nwant\n%s", got.String(), want)
		}
		if !strings.HasPrefix(orig.Error, `agent "flaky", command "default": UPSTREAM_NOT_CONFIGURED`) {
			t.Errorf("the failure: %q", orig.Error)
		}
	})
}

// wantEscalation is the escalation of escalatedMessage: its id, its
// HANDOFF_FAILED action's details, the failed message's id, the failure,
// the failed message as posted.
const wantEscalation = `{
  "metadata": {"message_id": %[1]q, "timestamp": "2026-11-29T06:00:01.5Z", "protocol_version": "1.0.0",
    "sender_id": "flaky", "recipient_id": "backup", "correlation_id": "flow-1", "task_id": "task-esc", "priority": "HIGH"},
  "context": {"workflow_state": "ESCALATED", "previous_actions": [
      {"action_type": "AUDIT", "details": "keys are old", "timestamp": "2026-11-29T05:00:00Z"},
      {"action_type": "HANDOFF_FAILED", "details": %[2]q,
       "timestamp": "2026-11-29T06:00:01.5Z"}],
    "historical_data_summary": "rotated a year ago"},
  "payload": {"handoff_type": "ESCALATION", "data": {
    "issue_category": "HANDOFF_FAILED", "severity": "HIGH",
    "customer_info": {"user_id": "client", "name": "client"},
    "technical_details": {"symptoms": %[4]q,
      "failure": {"message_id": %[3]q, "handoff_type": "TASK_TRANSFER", "recipients": ["flaky"], "attempts": 1, "failures": 1, "error": %[4]q},
      "escalated_message": %[5]s}}},
  "instructions": {"next_steps_suggestion": "Take over the TASK_TRANSFER hand-off %[3]s that flaky could not complete. Its next steps: Rotate them.",
    "required_actions": ["ROTATE"], "success_criteria": "new keys",
    "failure_handling_strategy": {"retry_count": 0, "fallback_action": "logger"}}
}`

// TestEscalationOfAnEscalation: an ESCALATION escalated further keeps its
// issue, severity and customer, and its technical details beside the
// failure.
func TestEscalationOfAnEscalation(t *testing.T) {
	raw := []byte(strings.NewReplacer(`"TASK_TRANSFER", "data": {"task_description": "rotate keys"}`,
		`"ESCALATION", "data": {"issue_category": "SECURITY", "severity": "LOW", "customer_info": {"user_id": "u1", "name": "Ada"}, "technical_details": {"isp": "GlobalNet"}}`).
		Replace(escalatedMessage))
	msg, err := handoff.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	rec := queue.Record{Envelope: queue.Envelope{EscalateTo: "backup", Owner: "operator"}, Attempts: 2, Failures: 2}
	esc, err := escalation(msg, raw, rec, errors.New("down"), time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	var data struct {
		Category string            `json:"issue_category"`
		Severity string            `json:"severity"`
		Customer map[string]string `json:"customer_info"`
		Details  map[string]any    `json:"technical_details"`
	}
	if err := esc.Payload.DecodeData(&data); err != nil {
		t.Fatal(err)
	}
	if data.Category != "SECURITY" || data.Severity != "LOW" || data.Customer["name"] != "Ada" ||
		data.Details["isp"] != "GlobalNet" || data.Details["symptoms"] != "down" || data.Details["failure"] == nil ||
		esc.Metadata.MessageID != EscalationID("operator", "66666666-6666-4666-8666-666666666666") {
		t.Errorf("the escalation: %+v %s", data, esc.Metadata.MessageID)
	}
}
