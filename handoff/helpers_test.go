package handoff

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// envelope is a valid message around a type and its data.
const envelope = `{
  "metadata": {
    "message_id": "6f1c2a4e-8b9d-4e3f-a1b2-c3d4e5f60718",
    "timestamp": "2023-10-27T10:30:00.123Z",
    "protocol_version": "1.0.0",
    "sender_id": "reviewer",
    "recipient_id": ["security", "security-backup"],
    "correlation_id": "flow-xyz-123",
    "task_id": "task-abc-456",
    "priority": "HIGH",
    "expiration_time": "2023-10-27T12:00:00Z"
  },
  "context": {
    "workflow_state": "REVIEW_DONE",
    "previous_actions": [{"action_type": "REVIEW", "details": "read the diff", "timestamp": "2023-10-27T10:29:00Z", "tool": "git"}]
  },
  "payload": {"handoff_type": %q, "data": %s},
  "instructions": {"required_actions": ["TRIAGE"], "failure_handling_strategy": {"retry_count": 2, "escalate_to": "lead"}}
}`

// message returns the envelope holding t and data.
func message(t Type, data string) []byte {
	return fmt.Appendf(nil, envelope, t, data)
}

// violationsOf returns the violations of err as strings, failing t when
// err is not a *ValidationError.
func violationsOf(t *testing.T, err error) []string {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %v (%T), want a *ValidationError", err, err)
	}
	var out []string
	for _, v := range ve.Violations {
		out = append(out, v.String())
	}
	return out
}

// checkViolations compares the violations of err with want.
func checkViolations(t *testing.T, err error, want []string) {
	t.Helper()
	if got := violationsOf(t, err); !slices.Equal(got, want) {
		t.Errorf("violations:\n\t%q\nwant\n\t%q", got, want)
	}
}
