package handoff

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/internal/golden"
)

// edit returns a valid ESCALATION message with, for each pair of oldnew,
// the first replaced by the second.
func edit(oldnew ...string) []byte {
	m := message(Escalation, `{"issue_category": "X", "severity": "LOW",
		"customer_info": {"user_id": "u", "name": "n"}, "technical_details": {}}`)
	for i := 0; i < len(oldnew); i += 2 {
		if !bytes.Contains(m, []byte(oldnew[i])) {
			panic("edit: no " + oldnew[i])
		}
		m = bytes.Replace(m, []byte(oldnew[i]), []byte(oldnew[i+1]), 1)
	}
	return m
}

func TestMessageSchema(t *testing.T) {
	for _, c := range []struct {
		name  string
		raw   []byte
		wants []string
	}{
		{"not an object", []byte(`[]`), []string{"(root): got array, want object"}},
		{"empty", []byte(`{}`), []string{
			"/context: required property is missing", "/instructions: required property is missing",
			"/metadata: required property is missing", "/payload: required property is missing"}},
		{"unknown top-level member", edit(`"instructions": {`, `"extra": 1, "instructions": {`),
			[]string{"/extra: property not allowed"}},
		{"priority", edit(`"HIGH"`, `"URGENT"`),
			[]string{"/metadata/priority: value must be one of 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL'"}},
		{"message id", edit(`"6f1c2a4e-8b9d-4e3f-a1b2-c3d4e5f60718"`, `"msg-1"`),
			[]string{"/metadata/message_id: 'msg-1' is not valid uuid: must have 5 elements"}},
		{"recipient type", edit(`["security", "security-backup"]`, `7`),
			[]string{"/metadata/recipient_id: got number, want string or array"}},
		{"recipient pool", edit(`["security", "security-backup"]`, `["a", "", "a"]`), []string{
			"/metadata/recipient_id: items at 0 and 2 are equal",
			"/metadata/recipient_id/1: minLength: got 0, want 1"}},
		{"recipient empty pool", edit(`["security", "security-backup"]`, `[]`),
			[]string{"/metadata/recipient_id: minItems: got 0, want 1"}},
		{"recipient one", edit(`["security", "security-backup"]`, `"security_pool"`), nil},
		{"protocol major", edit(`"1.0.0"`, `"2.0.0"`),
			[]string{`/metadata/protocol_version: '2.0.0' does not match pattern '^1\\.[0-9]+\\.[0-9]+$'`}},
		{"timestamp", edit(`"2023-10-27T10:30:00.123Z"`, `"2023-10-27 10:30"`),
			[]string{"/metadata/timestamp: '2023-10-27 10:30' is not valid date-time: want RFC 3339 such as 2023-10-27T10:30:00.123Z"}},
		{"no correlation or expiry", edit(`"correlation_id": "flow-xyz-123",`, ``), nil},
		{"task id empty", edit(`"task-abc-456"`, `""`), []string{"/metadata/task_id: minLength: got 0, want 1"}},
		{"previous action", edit(`"REVIEW"`, `1`, `"2023-10-27T10:29:00Z"`, `"then"`), []string{
			"/context/previous_actions/0/action_type: got number, want string",
			"/context/previous_actions/0/timestamp: 'then' is not valid date-time: want RFC 3339 such as 2023-10-27T10:30:00.123Z"}},
		{"handoff type", edit(`"ESCALATION"`, `"ESCALATE"`), []string{"/payload/handoff_type: value must be one of " +
			"'TASK_TRANSFER', 'REQUEST_INFORMATION', 'PROVIDE_INFORMATION', 'ESCALATION', 'NOTIFICATION', 'STATUS_UPDATE', 'APPROVAL_REQUEST'"}},
		{"data not an object", edit(`"data": {`, `"data": [{`, `"technical_details": {}}`, `"technical_details": {}}]`),
			[]string{"/payload/data: got array, want object"}},
		{"retry count", edit(`"retry_count": 2`, `"retry_count": 2.5, "give_up": true`), []string{
			"/instructions/failure_handling_strategy/give_up: property not allowed",
			"/instructions/failure_handling_strategy/retry_count: got number, want integer"}},
		{"retry count integral", edit(`"retry_count": 2`, `"retry_count": 2.0`), nil},
		{"retry count range", edit(`"retry_count": 2`, `"retry_count": 1e3`),
			[]string{"/instructions/failure_handling_strategy/retry_count: maximum: got 1,000, want 100"}},
		{"escaped time", edit(`"2023-10-27T10:30:00.123Z"`, `"2023-10-27T10\u003a30:00.123Z"`), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(c.raw)
			if c.wants == nil {
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				return
			}
			checkViolations(t, err, c.wants)
		})
	}
}

// TestViolationList: a message wrong in many places lists every violation
// by pointer, in the error's text too (the first twenty and a count).
func TestViolationList(t *testing.T) {
	raw := []byte(`{"metadata": {"message_id": "x", "timestamp": "2023-10-27t10:30:00Z", "priority": "URGENT",
		"recipient_id": [5], "expiration_time": "2023-13-01T00:00:00Z", "extra": 1},
	  "context": {"previous_actions": [{}, {"action_type": "A", "details": "d", "timestamp": "2023-10-27T10:30:00Z"}],
		"user_interaction_history": {}},
	  "payload": {"handoff_type": "ESCALATION", "data": {"severity": "BAD", "customer_info": {}, "a/b~c": 1}},
	  "instructions": {"failure_handling_strategy": {"retry_count": -1, "escalate_to": ""}, "constraints": "PT2H"}}`)
	err := Validate(raw)
	var b strings.Builder
	for _, v := range violationsOf(t, err) {
		b.WriteString(v + "\n")
	}
	b.WriteString("\n" + err.Error() + "\n")
	golden.Check(t, "testdata/violations.golden", []byte(b.String()))
}

func TestMalformed(t *testing.T) {
	big := message(Notification, `{"event_type": "E", "message": "`+strings.Repeat("x", DefaultMaxBytes)+`"}`)
	for _, c := range []struct {
		name string
		raw  []byte
		is   error
		text string
	}{
		{"empty", nil, ErrMalformed, "handoff: malformed message: invalid JSON: "},
		{"syntax", []byte(`{"metadata": }`), ErrMalformed, "offset 13"},
		{"trailing", []byte(`{} {}`), ErrMalformed, "after the top-level value"},
		{"invalid UTF-8", []byte("{\"metadata\": \"\xff\"}"), ErrMalformed, "invalid UTF-8"},
		{"too large", big, ErrTooLarge, "handoff: message too large: more than 1048576 bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(c.raw)
			if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.text) {
				t.Errorf("error %v, want %v containing %q", err, c.is, c.text)
			}
		})
	}
	v, err := NewValidator(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.DecodeReader(bytes.NewReader(big)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("DecodeReader of a large message: %v, want ErrTooLarge", err)
	}
	if _, err := v.WithMaxBytes(0).DecodeReader(bytes.NewReader(big)); err != nil {
		t.Errorf("DecodeReader with no limit: %v", err)
	}
}
