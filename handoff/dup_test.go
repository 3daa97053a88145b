package handoff

import (
	"bytes"
	"testing"
)

// TestDuplicateKeys: with a member repeated, the last one counts, in the
// schema's view and in the Go view alike: nothing unvalidated gets through.
func TestDuplicateKeys(t *testing.T) {
	raw := message(Notification, `{"event_type": "E", "message": "m"}`)
	raw = bytes.Replace(raw, []byte(`"instructions": {`),
		[]byte(`"instructions": {"success_criteria": "unvalidated", "required_actions": [1]}, "instructions": {`), 1)
	raw = bytes.Replace(raw, []byte(`"context": {`),
		[]byte(`"context": {"historical_data_summary": "unvalidated"}, "context": {`), 1)
	m, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if m.Instructions.SuccessCriteria != "" || m.Context.HistoricalDataSummary != "" || m.Instructions.RequiredActions[0] != "TRIAGE" {
		t.Errorf("members of the first, unvalidated instructions or context decoded: %+v %+v", m.Instructions, m.Context)
	}
}
