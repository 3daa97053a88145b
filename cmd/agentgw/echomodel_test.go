package main

import (
	"strings"
	"testing"

	"github.com/agentgw/agentgw/echomodel"
)

// TestBuiltinEchoModel: upstream.url builtin:echo streams a real answer
// through the whole path with no model platform: the coder example's
// prompt, as the model got it, comes back.
func TestBuiltinEchoModel(t *testing.T) {
	cfg := testConfig(t, echomodel.URL)
	base := startGateway(t, cfg, nil)
	got := ask(t, base+"/agents/coder", `{"contextVariables":[{"name":"userInputPrompt","value":"What does main.go do?"}]}`)
	if e := got.errorFrame(); e != nil || !strings.HasPrefix(got.text, "echo model (") || !strings.Contains(got.text, "- user: ") {
		t.Fatalf("the echo model answered %q, error %+v", got.text, e)
	}
}
