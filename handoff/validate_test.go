package handoff

import (
	"os"
	"testing"
)

// dataCases are, per type, data that is valid (all fields, then only the
// required ones) and data that is not, with every violation expected.
var dataCases = []struct {
	typ   Type
	name  string
	data  string
	wants []string // nil: valid
}{
	{TaskTransfer, "full", `{"task_description": "finish the migration", "task_inputs": {"branch": "main"},
		"completed_steps": ["plan"], "remaining_steps": ["apply"], "artifacts": ["log-1"], "note": "open"}`, nil},
	{TaskTransfer, "required only", `{"task_description": "finish"}`, nil},
	{TaskTransfer, "invalid", `{"task_description": "", "completed_steps": "plan", "artifacts": [1]}`, []string{
		"/payload/data/artifacts/0: got number, want string",
		"/payload/data/completed_steps: got string, want array",
		"/payload/data/task_description: minLength: got 0, want 1"}},
	{TaskTransfer, "empty", `{}`, []string{"/payload/data/task_description: required property is missing"}},

	{RequestInformation, "full", `{"requested_info_keys": ["user_id", "plan"], "query_parameters": {"email": "a@b.c"}}`, nil},
	{RequestInformation, "required only", `{"requested_info_keys": ["plan"]}`, nil},
	{RequestInformation, "invalid", `{"requested_info_keys": [], "query_parameters": [], "why": 1}`, []string{
		"/payload/data/query_parameters: got array, want object",
		"/payload/data/requested_info_keys: minItems: got 0, want 1",
		"/payload/data/why: property not allowed"}},

	{ProvideInformation, "full", `{"provided_info": {"plan": "gold", "seats": 12}, "summary": "Gold, 12 seats.",
		"in_reply_to": "6f1c2a4e-8b9d-4e3f-a1b2-c3d4e5f60718", "missing_info_keys": ["user_id"]}`, nil},
	{ProvideInformation, "required only", `{"provided_info": {}}`, nil},
	{ProvideInformation, "invalid", `{"provided_info": "gold", "in_reply_to": "req-1", "missing_info_keys": "user_id"}`, []string{
		"/payload/data/in_reply_to: 'req-1' is not valid uuid: must have 5 elements",
		"/payload/data/missing_info_keys: got string, want array",
		"/payload/data/provided_info: got string, want object"}},

	{Escalation, "full", `{"issue_category": "SECURITY_FINDING", "severity": "CRITICAL",
		"customer_info": {"user_id": "u1", "name": "Ada", "contact_number": "+1"},
		"technical_details": {"symptoms": "SQL injection", "logs_attached": true, "log_references": ["l1"], "file": "db.go"}}`, nil},
	{Escalation, "required only", `{"issue_category": "X", "severity": "LOW", "customer_info": {"user_id": "u1", "name": "Ada"},
		"technical_details": {}}`, nil},
	{Escalation, "invalid", `{"issue_category": "X", "severity": "URGENT", "customer_info": {"user_id": "u1", "email": "a@b.c"},
		"technical_details": {"logs_attached": "yes"}, "extra": true}`, []string{
		"/payload/data/customer_info/email: property not allowed",
		"/payload/data/customer_info/name: required property is missing",
		"/payload/data/extra: property not allowed",
		"/payload/data/severity: value must be one of 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL'",
		"/payload/data/technical_details/logs_attached: got string, want boolean"}},

	{Notification, "full", `{"event_type": "REPORT_READY", "message": "The report is ready.", "severity": "LOW",
		"occurred_at": "2023-10-27T10:30:00+02:00", "details": {"url": "https://x"}}`, nil},
	{Notification, "required only", `{"event_type": "REPORT_READY", "message": ""}`, nil},
	{Notification, "invalid", `{"event_type": "", "occurred_at": "yesterday", "details": 1}`, []string{
		"/payload/data/details: got number, want object",
		"/payload/data/event_type: minLength: got 0, want 1",
		"/payload/data/message: required property is missing",
		"/payload/data/occurred_at: 'yesterday' is not valid date-time: want RFC 3339 such as 2023-10-27T10:30:00.123Z"}},

	{StatusUpdate, "full", `{"status": "IN_PROGRESS", "message": "half done", "progress_percent": 50.5, "result": [1, 2]}`, nil},
	{StatusUpdate, "required only", `{"status": "COMPLETED"}`, nil},
	{StatusUpdate, "invalid", `{"status": 3, "progress_percent": 101}`, []string{
		"/payload/data/progress_percent: maximum: got 101, want 100",
		"/payload/data/status: got number, want string"}},

	{ApprovalRequest, "full", `{"requested_action": "merge PR 42", "justification": "checks pass", "risk_level": "MEDIUM",
		"approvers": ["lead"], "decision_deadline": "2023-10-28T00:00:00Z", "details": {"pr": 42}}`, nil},
	{ApprovalRequest, "required only", `{"requested_action": "merge", "justification": ""}`, nil},
	{ApprovalRequest, "invalid", `{"requested_action": "", "risk_level": "NONE", "approvers": [""]}`, []string{
		"/payload/data/approvers/0: minLength: got 0, want 1",
		"/payload/data/justification: required property is missing",
		"/payload/data/requested_action: minLength: got 0, want 1",
		"/payload/data/risk_level: value must be one of 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL'"}},
}

func TestDataSchemas(t *testing.T) {
	covered := map[Type]map[bool]bool{}
	for _, c := range dataCases {
		t.Run(string(c.typ)+"/"+c.name, func(t *testing.T) {
			m, err := Decode(message(c.typ, c.data))
			if c.wants == nil {
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				if m.Payload.Type != c.typ {
					t.Errorf("type %q, want %q", m.Payload.Type, c.typ)
				}
				return
			}
			checkViolations(t, err, c.wants)
		})
		if covered[c.typ] == nil {
			covered[c.typ] = map[bool]bool{}
		}
		covered[c.typ][c.wants == nil] = true
	}
	for _, typ := range Types() {
		if !covered[typ][true] || !covered[typ][false] {
			t.Errorf("%s lacks a valid or an invalid case", typ)
		}
	}
}

// TestSeedExample: the seed's own example message is valid.
func TestSeedExample(t *testing.T) {
	raw, err := os.ReadFile("testdata/seed_example.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Decode(raw)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	md := m.Metadata
	if md.Priority != High || md.TaskID != "task-abc-456" || len(md.RecipientID) != 1 || md.Timestamp.IsZero() || m.Context.UserInteractionHistory[1].Sender != "Agent" {
		t.Errorf("metadata %+v", md)
	}
}
