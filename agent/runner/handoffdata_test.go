package runner

import (
	"testing"

	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/request"
)

// TestHandoffData: a command run for a hand-off message reads it as
// .handoff in templates and $handoff in references and conditions.
func TestHandoffData(t *testing.T) {
	const agents = `
name: h
commands:
  - name: default
    steps:
      - id: from
        reply: "from {{ .handoff.metadata.sender_id }}: "
      - id: pick
        set: {file: "$handoff.payload.data.file"}
      - id: say
        dependsOn: [pick]
        when: handoff.payload.handoff_type == "ESCALATION"
        reply: "escalated {{ .state.file }}"
`
	r, _ := testRunner(t, agents, nil, RunnerConfig{})
	req, err := request.Decode([]byte(`{"agent":"h"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Handoff = map[string]any{"metadata": map[string]any{"sender_id": "reviewer"},
		"payload": map[string]any{"handoff_type": "ESCALATION", "data": map[string]any{"file": "auth.go"}}}
	run, err := r.Prepare(req)
	if err != nil {
		t.Fatal(err)
	}
	rec := &emit.Recorder{}
	run.Execute(t.Context(), rec)
	if got, want := rec.Transcript(), "from reviewer: escalated auth.go"; got != want {
		t.Fatalf("%q, want %q (%v)", got, want, rec.Err())
	}
}
