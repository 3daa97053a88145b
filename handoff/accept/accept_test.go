package accept_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/handoff"
	"github.com/agentgw/agentgw/handoff/accept"
)

// load parses one agent file with the part, failing on an error.
func load(t *testing.T, doc string) *program.Agent {
	t.Helper()
	agents, diags := program.ParseWith(program.LoadOptions{Parts: []program.Part{accept.Part{}}}, "a.yaml", []byte(doc))
	if diags.Errors() > 0 || len(agents) != 1 {
		t.Fatalf("the agent does not load:\n%s", diags)
	}
	return agents[0]
}

const desk = `
name: desk
handoffs:
  - {type: TASK_TRANSFER, command: take}
  - type: NOTIFICATION
    schema: {type: object, required: [ticket], properties: {ticket: {type: string}}}
commands:
  - {name: default, reply: noted}
  - {name: take, reply: taken}
`

// TestAccepts: the types an agent declares, sorted, each with its command
// (the default one when it names none) and a validator of its own data
// schema; they show in the agent's summary.
func TestAccepts(t *testing.T) {
	a := load(t, desk)
	if got, want := accept.Types(a), []handoff.Type{handoff.Notification, handoff.TaskTransfer}; !slices.Equal(got, want) {
		t.Errorf("Types = %v, want %v", got, want)
	}
	acc, ok := accept.Accepts(a, handoff.TaskTransfer)
	if !ok || acc.Command != "take" || acc.Type != handoff.TaskTransfer || acc.Validator == nil {
		t.Errorf("Accepts(TASK_TRANSFER) = %+v, %t", acc, ok)
	}
	if _, ok := accept.Accepts(a, handoff.Escalation); ok {
		t.Error("Accepts(ESCALATION) = true for a type the agent does not declare")
	}
	notify, ok := accept.Accepts(a, handoff.Notification)
	if !ok || notify.Command != program.DefaultCommand {
		t.Fatalf("Accepts(NOTIFICATION) = %+v, %t", notify, ok)
	}
	if got, want := a.Summary().Handoffs, []agent.HandoffSummary{{Type: "NOTIFICATION", Command: "default"}, {Type: "TASK_TRANSFER", Command: "take"}}; !slices.Equal(got, want) {
		t.Errorf("summary hand-offs %v, want %v", got, want)
	}
	if summary, _ := json.Marshal(load(t, "name: plain\ncommands: [{name: default, reply: hi}]\n").Summary()); string(summary) != `{"name":"plain","description":"","commands":[{"name":"default","description":""}]}` {
		t.Errorf("the summary of an agent that accepts none: %s", summary)
	}
}

// TestNotLoaded: an agent loaded without the part accepts nothing.
func TestNotLoaded(t *testing.T) {
	agents, diags := program.ParseWith(program.LoadOptions{}, "a.yaml", []byte(desk))
	if len(diags) > 0 || len(agents) != 1 {
		t.Fatalf("the agent does not load:\n%s", diags)
	}
	if ts := accept.Types(agents[0]); len(ts) != 0 {
		t.Errorf("Types = %v, want none", ts)
	}
	if _, ok := accept.Accepts(agents[0], handoff.TaskTransfer); ok {
		t.Error("Accepts = true without the part")
	}
}

// TestDiagnostics: the load diagnostics of bad handoffs declarations,
// byte for byte as the runner reported them before they moved here; each
// drops the agent.
func TestDiagnostics(t *testing.T) {
	const head = "name: desk\ncommands:\n  - {name: default, reply: hi}\n  - {name: take, reply: taken}\nhandoffs:\n"
	tests := []struct{ name, handoffs, want string }{
		{"unknown type", "  - {type: NOTIFICATON}\n",
			`a.yaml:6:5: handoffs: "NOTIFICATON" is not a hand-off type; did you mean "NOTIFICATION"? (one of ` + typeList() + ")\n"},
		{"unknown type, nothing close", "  - {type: HELP}\n",
			`a.yaml:6:5: handoffs: "HELP" is not a hand-off type (one of ` + typeList() + ")\n"},
		{"declared twice", "  - {type: NOTIFICATION}\n  - {type: NOTIFICATION, command: take}\n",
			"a.yaml:7:5: handoffs: type NOTIFICATION is declared twice\n"},
		{"unknown command", "  - {type: TASK_TRANSFER, command: tak}\n",
			`a.yaml:6:5: handoffs: TASK_TRANSFER runs command "tak", which agent "desk" does not have; did you mean "take"?` + "\n"},
		{"bad schema", "  - {type: NOTIFICATION, schema: {type: objekt}}\n",
			"a.yaml:6:5: handoffs: NOTIFICATION: schema: handoff: the data schema declared for NOTIFICATION is not a valid JSON Schema: " +
				"/type: value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			agents, diags := program.ParseWith(program.LoadOptions{Parts: []program.Part{accept.Part{}}}, "a.yaml", []byte(head+tt.handoffs))
			if len(agents) != 0 || diags.Errors() != 1 || diags.String() != tt.want {
				t.Errorf("%d agents, diagnostics:\n%s\nwant none and\n%s", len(agents), diags, tt.want)
			}
		})
	}
}

func typeList() string {
	var s string
	for i, t := range handoff.Types() {
		if i > 0 {
			s += ", "
		}
		s += string(t)
	}
	return s
}
