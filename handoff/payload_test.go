package handoff

import (
	"encoding/json"
	"testing"
)

func TestDataViews(t *testing.T) {
	p := Payload{Type: StatusUpdate, Data: json.RawMessage(`{"status": "DONE", "progress_percent": 12345678901234567890}`)}
	m, err := p.DataMap()
	if err != nil || m["status"] != "DONE" || m["progress_percent"] != json.Number("12345678901234567890") {
		t.Errorf("DataMap: %v, %v", m, err)
	}
	var s struct{ Status string }
	if err := p.DecodeData(&s); err != nil || s.Status != "DONE" {
		t.Errorf("DecodeData: %+v, %v", s, err)
	}
	if _, err := (&Payload{Type: StatusUpdate, Data: json.RawMessage(`[]`)}).DataMap(); err == nil {
		t.Error("DataMap of a list: no error")
	}
	// previous_actions is required: nil encodes as [].
	if out, err := json.Marshal(Context{}); err != nil || string(out) != `{"workflow_state":"","previous_actions":[]}` {
		t.Errorf("empty context encoded %s, %v", out, err)
	}
}
