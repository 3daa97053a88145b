package handoff

import (
	"encoding/json"
	"testing"
)

// TestValidatorsShareMessageSchema: every Validator checks messages
// against one compiled message schema, however many are built (one per
// hand-off type each agent accepts), and still checks its own declared
// data schema.
func TestValidatorsShareMessageSchema(t *testing.T) {
	a, err := NewValidator(nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewValidator(map[Type]json.RawMessage{TaskTransfer: json.RawMessage(`{"required": ["repo"]}`)})
	if err != nil {
		t.Fatal(err)
	}
	def, err := defaultValidator()
	if err != nil {
		t.Fatal(err)
	}
	if a.message != b.message || a.message != def.message {
		t.Errorf("the validators compiled the message schema each: %p, %p, %p", a.message, b.message, def.message)
	}
	if a.Declares(TaskTransfer) || !b.Declares(TaskTransfer) {
		t.Errorf("declared: a %v, b %v; want false, true", a.Declares(TaskTransfer), b.Declares(TaskTransfer))
	}
}
