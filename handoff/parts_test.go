package handoff

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestRecipients(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Recipients
		out  string
	}{
		{`"pool"`, Recipients{"pool"}, `"pool"`},
		{`["a"]`, Recipients{"a"}, `"a"`},
		{`["a", "b"]`, Recipients{"a", "b"}, `["a","b"]`},
		{`[]`, Recipients{}, `[]`},
	} {
		var r Recipients
		if err := json.Unmarshal([]byte(c.in), &r); err != nil || !slices.Equal(r, c.want) {
			t.Errorf("%s: %q, %v; want %q", c.in, r, err, c.want)
		}
		if out, err := json.Marshal(r); err != nil || string(out) != c.out {
			t.Errorf("%s: encoded %s, %v; want %s", c.in, out, err, c.out)
		}
	}
	if out, _ := json.Marshal(Recipients(nil)); string(out) != `[]` {
		t.Errorf("nil encoded %s", out)
	}
	var r Recipients
	if err := json.Unmarshal([]byte(`5`), &r); err == nil {
		t.Error("a number decoded as recipients")
	}
	if (Recipients{"a"}).IsPool() || !(Recipients{"a", "b"}).IsPool() {
		t.Error("IsPool")
	}
}

func TestRetryCount(t *testing.T) {
	for in, want := range map[string]int{`3`: 3, `3.0`: 3, `1e2`: 100, `-0`: 0} {
		var f FailureHandlingStrategy
		err := json.Unmarshal([]byte(`{"retry_count": `+in+`, "escalate_to": "lead"}`), &f)
		if err != nil || f.RetryCount == nil || *f.RetryCount != want || f.EscalateTo != "lead" {
			t.Errorf("%s: %+v, %v; want %d", in, f, err, want)
		}
	}
	for _, in := range []string{`1.5`, `1e12`, `"3"x`} {
		var f FailureHandlingStrategy
		if err := json.Unmarshal([]byte(`{"retry_count": `+in+`}`), &f); err == nil {
			t.Errorf("%s: decoded as %d", in, *f.RetryCount)
		}
	}
	var f FailureHandlingStrategy
	if err := json.Unmarshal([]byte(`{}`), &f); err != nil || f.RetryCount != nil {
		t.Errorf("no retry_count: %+v, %v", f, err)
	}
}

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

func TestTypesAndPriorities(t *testing.T) {
	for _, typ := range Types() {
		if !typ.Valid() {
			t.Errorf("%s not valid", typ)
		}
	}
	if Type("ESCALATE").Valid() || Escalation.SchemaName() != "escalation" || TaskTransfer.SchemaName() != "task_transfer" {
		t.Error("Valid or SchemaName")
	}
	ps := Priorities()
	for i := 1; i < len(ps); i++ {
		if ps[i-1].Rank() >= ps[i].Rank() {
			t.Errorf("%s ranks %d, not below %s's %d", ps[i-1], ps[i-1].Rank(), ps[i], ps[i].Rank())
		}
	}
	if Priority("URGENT").Valid() || Priority("URGENT").Rank() != 0 || !Low.Valid() || Low.Rank() <= 0 {
		t.Error("an unknown priority ranks, or LOW does not")
	}
}
