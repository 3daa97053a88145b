package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/remote"
)

// withRemote lets the gateway forward to remote agents, as serve does.
func withRemote(t testing.TB) option {
	c, err := remote.New(remote.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return withRunner(func(rc *runner.RunnerConfig) { rc.Remote = remote.NewAgents(c) })
}

// internalService is a service of the operator's network that no request
// may reach through the gateway; it counts what reaches it and answers as
// an agent would, so a forward would succeed.
func internalService(t *testing.T) *llmtest.Model {
	t.Helper()
	return llmtest.New(t, llmtest.Repeat(llmtest.Frames(llmtest.TextChunk("INTERNAL SECRET"))))
}

// TestRequestDefinitionNetworkTargets: a request-carried definition may
// name no network target and nothing that runs a process: a service
// endpoint, a tool of any runtime (http, mcp, native), a command's tool
// list, plan steps, an action handler's steps, hand-offs, a schedule with
// a webhook, or a field no request-carried definition knows. Each is
// refused with 422 DEFINITION_NOT_ALLOWED naming the field's path, before
// anything is sent: the internal service is never called, nor the model.
// The old gateway POSTed the plugin's body and headers to the endpoint and
// relayed the answer.
func TestRequestDefinitionNetworkTargets(t *testing.T) {
	t.Parallel()
	internal := internalService(t)
	in := internal.URL() + "/internal"
	gw := newGateway(t, withUpstream(replay(t, "normal.sse")), withRequestDefinitions(true), withRemote(t))
	cmd := `{"name":"default","messageTemplates":[{"role":"user","template":"hi"}]}`
	tests := []struct{ name, def, path string }{
		{"service endpoint", `{"service":{"endpoint":"` + in + `"},"commands":[{"name":"default"}]}`, "agentDefinition.service.endpoint"},
		{"service endpoint without commands", `{"service":{"endpoint":"` + in + `"}}`, "agentDefinition.service.endpoint"},
		{"service token env", `{"service":{"tokenEnv":"HOME"},"commands":[` + cmd + `]}`, "agentDefinition.service.tokenEnv"},
		{"http tool", `{"tools":[{"name":"fetch","runtime":"http","entry":"` + in + `"}],"commands":[{"name":"default","tools":["fetch"],"messageTemplates":[{"role":"user","template":"hi"}]}]}`, "agentDefinition.tools"},
		{"mcp server", `{"tools":[{"name":"m","runtime":"mcp","entry":"` + in + `"}],"commands":[` + cmd + `]}`, "agentDefinition.tools"},
		{"process tool", `{"tools":[{"name":"sh","runtime":"native","entry":"/bin/sh","args":["-c","curl ` + in + `"]}],"commands":[` + cmd + `]}`, "agentDefinition.tools"},
		{"command tools", `{"commands":[{"name":"default","tools":["ask_agent"],"messageTemplates":[{"role":"user","template":"hi"}]}]}`, "agentDefinition.commands[0].tools"},
		{"plan steps", `{"commands":[{"name":"default","steps":[{"id":"a","tool":{"name":"fetch"}}]}]}`, "agentDefinition.commands[0].steps"},
		{"handler steps", `{"commands":[` + cmd + `,{"name":"x","actions":[{"action":"confirm","data":{"title":"t","message":"m"},"onAccept":[{"id":"a","tool":{"name":"fetch"}}]}]}]}`, "agentDefinition.commands[1].actions[0].onAccept"},
		{"handler mapping steps", `{"commands":[{"name":"default","actions":[{"action":"confirm","data":{"title":"t","message":"m"},"onAccept":{"steps":[{"id":"a"}]}}]}]}`, "agentDefinition.commands[0].actions[0].onAccept.steps"},
		{"schedule webhook", `{"commands":[` + cmd + `],"schedules":[{"name":"s","every":"1h","webhook":"` + in + `"}]}`, "agentDefinition.schedules"},
		{"hand-offs", `{"commands":[` + cmd + `],"handoffs":[{"type":"NOTIFICATION"}]}`, "agentDefinition.handoffs"},
		{"unknown field", `{"webhook":"` + in + `","commands":[` + cmd + `]}`, "agentDefinition.webhook"},
		{"unknown command field", `{"commands":[{"name":"default","endpoint":"` + in + `"}]}`, "agentDefinition.commands[0].endpoint"},
		{"unknown model field", `{"modelConfiguration":{"baseURL":"` + in + `"},"commands":[` + cmd + `]}`, "agentDefinition.modelConfiguration.baseURL"},
	}
	for _, tc := range tests {
		body := `{"agent":"adhoc","contextVariables":[{"name":"userInputPrompt","value":"q"}],"agentDefinition":` + tc.def + `}`
		r := post(t, gw.URL+"/agent", body, "Authorization", "Bearer plugin-secret", "X-Plugin", "p")
		c := errorResponse(t, r, http.StatusUnprocessableEntity, apierr.CodeDefinitionNotAllowed)
		if !strings.HasPrefix(c.Message, tc.path+": not allowed in a request-carried definition") {
			t.Errorf("%s: message %q, want it to name %s", tc.name, c.Message, tc.path)
		}
		if strings.Contains(string(r.body), "INTERNAL SECRET") {
			t.Errorf("%s: the internal service's answer was relayed: %s", tc.name, r.body)
		}
	}
	if n := internal.Count(); n != 0 {
		t.Errorf("the internal service was called %d times", n)
	}
	if n := gw.up.Count(); n != 0 {
		t.Errorf("the model was called %d times", n)
	}
}

// TestRequestDefinitionOwnEndpoint: the platform's copy of a definition
// names this gateway as its service.endpoint (GET /agents/{name} exports
// it so): that endpoint is allowed and dropped, and the run is local. It
// is the gateway's configured public URL, or, without one, the scheme and
// host the client used; any other is refused, and never reached.
func TestRequestDefinitionOwnEndpoint(t *testing.T) {
	t.Parallel()
	internal := internalService(t)
	def := func(endpoint string) string {
		return `{"agent":"adhoc","agentDefinition":{"service":{"endpoint":"` + endpoint + `"},
			"commands":[{"name":"default","messageTemplates":[{"role":"user","template":"hi"}]}]}}`
	}
	t.Run("host the client used", func(t *testing.T) {
		t.Parallel()
		gw := newGateway(t, withUpstream(replay(t, "normal.sse")), withRequestDefinitions(true), withRemote(t))
		for _, ep := range []string{gw.URL, gw.URL + "/", gw.URL + "/agent"} {
			s := readStream(t, post(t, gw.URL+"/agent", def(ep)), "[DONE]")
			if got := s.text(); got != "Hello, \"world\"\n" {
				t.Errorf("%s: text %q, want the model's answer", ep, got)
			}
		}
		if n := gw.up.Count(); n != 3 {
			t.Errorf("the model was called %d times, want 3", n)
		}
		errorResponse(t, post(t, gw.URL+"/agent", def(strings.Replace(gw.URL, "http://", "http://user@", 1))), 422, apierr.CodeDefinitionNotAllowed)
	})
	t.Run("public URL", func(t *testing.T) {
		t.Parallel()
		gw := newGateway(t, withUpstream(replay(t, "normal.sse")), withRequestDefinitions(true), withRemote(t), withPublicURL("https://gw.example.com/agentgw"))
		readStream(t, post(t, gw.URL+"/agent", def("https://gw.example.com/agentgw")), "[DONE]")
		for _, ep := range []string{gw.URL, "https://gw.example.com/other", "http://gw.example.com/agentgw"} {
			c := errorResponse(t, post(t, gw.URL+"/agent", def(ep)), 422, apierr.CodeDefinitionNotAllowed)
			if !strings.Contains(c.Message, "agentDefinition.service.endpoint") {
				t.Errorf("%s: message %q does not name the field", ep, c.Message)
			}
		}
	})
	t.Run("forged host", func(t *testing.T) {
		t.Parallel()
		// The Host header names the internal service: the endpoint is
		// taken as the gateway's own, and still never reached.
		gw := newGateway(t, withUpstream(replay(t, "normal.sse")), withRequestDefinitions(true), withRemote(t))
		req, err := http.NewRequest(http.MethodPost, gw.URL+"/agent", strings.NewReader(def(internal.URL())))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Host = strings.TrimPrefix(internal.URL(), "http://")
		readStream(t, do(t, req), "[DONE]")
	})
	t.Cleanup(func() {
		if n := internal.Count(); n != 0 {
			t.Errorf("the internal service was called %d times", n)
		}
	})
}
