package program_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/program"
)

// scheduled is a definition part from outside the runner: it checks that
// the agent's schedules run commands the agent has, and keeps their names.
type scheduled struct{}

func (scheduled) Name() string { return "scheduled" }

func (scheduled) Compile(c program.PartCompiler) any {
	var names scheduledNames
	for _, s := range c.Definition().Schedules {
		cmd := s.Command
		if cmd == "" {
			cmd = program.DefaultCommand
		}
		if !c.HasCommand(cmd) {
			c.Errorf(s.Pos, "schedules: %s runs command %q, which is not one of %s", s.Name, cmd, strings.Join(c.CommandNames(), ", "))
			continue
		}
		names = append(names, s.Name)
	}
	return names
}

// scheduledNames is the part's result; it shows in the agent's summary.
type scheduledNames []string

func (n scheduledNames) Summarize(s *agent.Summary) {
	s.Description += fmt.Sprintf(" (scheduled: %s)", strings.Join(n, ", "))
}

// counted is a second part, whose result does not show in the summary.
type counted struct{}

func (counted) Name() string                       { return "counted" }
func (counted) Compile(c program.PartCompiler) any { return len(c.Definition().Commands) }

const scheduledAgent = `
name: clock
description: tells the time
commands:
  - {name: default, reply: tick}
  - {name: chime, reply: dong}
schedules:
  - {name: hourly, every: 1h, command: chime}
  - {name: daily, every: 24h}
`

// TestRegisteredPart registers definition parts from outside the runner
// (LoadOptions.Parts): each compiles the agent's definition once its
// commands are compiled, its result is kept on the agent for it (Part),
// a result that is a Summarizer shows in the summary, and its diagnostics
// drop the agent as the runner's own do. Without the parts their part of
// the definition is not compiled.
func TestRegisteredPart(t *testing.T) {
	opts := program.LoadOptions{Parts: []program.Part{scheduled{}, counted{}}}
	agents, diags := program.ParseWith(opts, "clock.yaml", []byte(scheduledAgent))
	if len(diags) > 0 || len(agents) != 1 {
		t.Fatalf("the agent does not load:\n%s", diags)
	}
	a := agents[0]
	if got, ok := a.Part("scheduled").(scheduledNames); !ok || strings.Join(got, ",") != "hourly,daily" {
		t.Errorf(`Part("scheduled") = %#v`, a.Part("scheduled"))
	}
	if got := a.Part("counted"); got != 2 {
		t.Errorf(`Part("counted") = %#v, want 2`, got)
	}
	if got := a.Part("unknown"); got != nil {
		t.Errorf(`Part("unknown") = %#v, want nil`, got)
	}
	if got, want := a.Summary().Description, "tells the time (scheduled: hourly, daily)"; got != want {
		t.Errorf("summary description %q, want %q", got, want)
	}

	bad := strings.Replace(scheduledAgent, "command: chime", "command: chimes", 1)
	agents, diags = program.ParseWith(opts, "clock.yaml", []byte(bad))
	if want := "clock.yaml:8:5: schedules: hourly runs command \"chimes\", which is not one of default, chime\n"; len(agents) != 0 || diags.String() != want || diags.Errors() != 1 {
		t.Errorf("agents %d, diagnostics:\n%s\nwant none and\n%s", len(agents), diags, want)
	}

	agents, diags = program.ParseWith(program.LoadOptions{}, "clock.yaml", []byte(bad))
	if len(diags) > 0 || len(agents) != 1 {
		t.Fatalf("without the parts the agent does not load:\n%s", diags)
	}
	if got := agents[0].Part("scheduled"); got != nil {
		t.Errorf(`without the parts, Part("scheduled") = %#v`, got)
	}
}
