package agentpart_test

import (
	"bytes"
	"testing"

	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/guard/exclude/agentpart"
)

// TestPart: an agent's contentExclusion patterns are its policy; a
// malformed one is an error at the agent's position, and an agent without
// any has none.
func TestPart(t *testing.T) {
	parse := func(doc string) ([]*program.Agent, string) {
		agents, diags := program.ParseWith(program.LoadOptions{Parts: []program.Part{agentpart.Part{}}}, "a.yaml", []byte(doc))
		return agents, diags.String()
	}
	agents, diags := parse("name: ops\ncontentExclusion: [.env, 'secrets/**']\ncommands: [{name: default, reply: hi}]\n")
	if len(agents) != 1 || diags != "" {
		t.Fatalf("ops does not load: %s", diags)
	}
	if p := agentpart.Of(agents[0]); !p.Match("x/.env") || !p.Match("secrets/a") || p.Match("main.go") {
		t.Errorf("ops' policy %v", p.Patterns())
	}
	agents, _ = parse("name: dev\ncommands: [{name: default, reply: hi}]\n")
	if len(agents) != 1 || agentpart.Of(agents[0]) != nil {
		t.Errorf("dev has a policy")
	}
	_, diags = parse("name: bad\ncontentExclusion: ['a/[b']\ncommands: [{name: default, reply: hi}]\n")
	if want := `a.yaml:1:1: contentExclusion: content exclusion pattern "a/[b": segment "[b": syntax error in pattern`; !bytes.Contains([]byte(diags), []byte(want)) {
		t.Errorf("diagnostics %q, want %q", diags, want)
	}
}
