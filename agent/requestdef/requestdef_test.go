package requestdef

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/apierr"
)

const self = "http://127.0.0.1:18080"

// TestCheck: what a request-carried definition may hold passes; each
// field that names a target, runs something or is not on the allow-list
// is refused with DEFINITION_NOT_ALLOWED (422) naming its path.
func TestCheck(t *testing.T) {
	cmd := `{"name":"default","messageTemplates":[{"role":"user","template":"hi"}]}`
	tests := []struct{ name, def, path string }{
		// Allowed.
		{"templates", `{"name":"a","version":"1","type":"proxy","description":"d","publisherType":"p","publisher":"q",
			"modelConfiguration":{"modelName":"m","parameters":{"x":{"url":"http://10.0.0.1"}},"contextLength":5,"fallbackModels":["n"]},
			"commands":[{"name":"default","description":"d","modelConfiguration":{"modelName":"m"},
			"messageTemplates":[{"role":"user","template":"hi"},{"role":"system","content":"x"}],
			"contextVariableCollectionStrategy":{"type":"specify","contextVariables":[{"name":"v","resolveOptions":{"k":1},"required":true},{"name":"w","resolverOptions":{}}]},
			"reply":"r","timeout":"1s","actions":[{"action":"confirm","data":{"title":"t","message":"m"},"onAccept":"other","onDismiss":{"command":"x"}}]}]}`, ""},
		{"own endpoint", `{"service":{"endpoint":"` + self + `"},"commands":[` + cmd + `]}`, ""},
		{"own endpoint, default port", `{"service":{"endpoint":"http://127.0.0.1:80/x"}}`, "agentDefinition.service.endpoint"},
		{"empty service", `{"service":{"endpoint":""},"commands":[` + cmd + `]}`, ""},
		{"null service", `{"service":null}`, ""},
		{"empty tools", `{"tools":[],"handoffs":null,"schedules":{},"commands":[{"name":"default","tools":[],"steps":null}]}`, ""},
		{"not an object", `"x"`, ""},
		{"not JSON", `{"commands":`, ""},
		// Refused.
		{"service endpoint", `{"service":{"endpoint":"http://127.0.0.1:9/internal"}}`, "agentDefinition.service.endpoint"},
		{"service endpoint as a list", `{"service":{"endpoint":["http://127.0.0.1:9/internal"]}}`, "agentDefinition.service.endpoint"},
		{"service token", `{"service":{"tokenEnv":"HOME"}}`, "agentDefinition.service.tokenEnv"},
		{"service other", `{"service":{"url":"http://x"}}`, "agentDefinition.service.url"},
		{"tools", `{"tools":[{"name":"f","runtime":"http","entry":"http://x"}]}`, "agentDefinition.tools"},
		{"handoffs", `{"handoffs":[{"type":"NOTIFICATION"}]}`, "agentDefinition.handoffs"},
		{"schedules", `{"schedules":[{"webhook":"http://x"}]}`, "agentDefinition.schedules"},
		{"command tools", `{"commands":[` + cmd + `,{"name":"b","tools":["x"]}]}`, "agentDefinition.commands[1].tools"},
		{"command steps", `{"commands":[{"name":"default","steps":[{"id":"a","reply":"r"}]}]}`, "agentDefinition.commands[0].steps"},
		{"handler steps", `{"commands":[{"name":"default","actions":[{"action":"tree","onClick":[{"id":"a"}]}]}]}`, "agentDefinition.commands[0].actions[0].onClick"},
		{"handler mapping", `{"commands":[{"name":"default","actions":[{"action":"tree","onExpand":{"command":"x","steps":[]}}]}]}`, "agentDefinition.commands[0].actions[0].onExpand.steps"},
		{"unknown", `{"endpoint":"http://x"}`, "agentDefinition.endpoint"},
		{"unknown in a template", `{"commands":[{"name":"default","messageTemplates":[{"role":"user","url":"http://x"}]}]}`, "agentDefinition.commands[0].messageTemplates[0].url"},
		{"unknown in a strategy", `{"commands":[{"name":"d","contextVariableCollectionStrategy":{"source":"http://x"}}]}`, "agentDefinition.commands[0].contextVariableCollectionStrategy.source"},
		{"unknown in a variable", `{"commands":[{"name":"d","contextVariableCollectionStrategy":{"contextVariables":[{"name":"v","fetch":"http://x"}]}}]}`, "agentDefinition.commands[0].contextVariableCollectionStrategy.contextVariables[0].fetch"},
		{"unknown model field", `{"commands":[{"name":"d","modelConfiguration":{"baseURL":"http://x"}}]}`, "agentDefinition.commands[0].modelConfiguration.baseURL"},
		{"merge key", "commands:\n- &c {name: d}\n- <<: *c\n  tools: [x]\n", "agentDefinition.commands[1].<<"},
		{"duplicate key, the second refused", `{"service":{"endpoint":""},"service":{"endpoint":"http://127.0.0.1:9"}}`, "agentDefinition.service.endpoint"},
	}
	for _, tc := range tests {
		err := Check([]byte(tc.def), self)
		if tc.path == "" {
			if err != nil {
				t.Errorf("%s: refused: %v", tc.name, err)
			}
			continue
		}
		if err == nil || err.Code != apierr.CodeDefinitionNotAllowed || err.Status != 422 {
			t.Errorf("%s: got %v, want DEFINITION_NOT_ALLOWED", tc.name, err)
			continue
		}
		if !strings.HasPrefix(err.Message, tc.path+": not allowed in a request-carried definition: ") {
			t.Errorf("%s: message %q, want it to name %s", tc.name, err.Message, tc.path)
		}
	}
}

// TestCheckSuggestsKeys: an unknown key's refusal lists the allowed ones
// and the nearest.
func TestCheckSuggestsKeys(t *testing.T) {
	err := Check([]byte(`{"commands":[{"name":"d","mesageTemplates":[]}]}`), "")
	if err == nil || !strings.Contains(err.Message, `did you mean "messageTemplates"?`) || !strings.Contains(err.Message, "only actions, contextVariableCollectionStrategy, description,") {
		t.Fatalf("got %v", err)
	}
}

// TestSameGateway: only this gateway's own address, as the platform's
// copy of a definition names it, is the gateway.
func TestSameGateway(t *testing.T) {
	tests := []struct {
		endpoint, self string
		want           bool
	}{
		{"http://127.0.0.1:18080", "http://127.0.0.1:18080", true},
		{"http://127.0.0.1:18080/", "http://127.0.0.1:18080", true},
		{"http://127.0.0.1:18080/agent", "http://127.0.0.1:18080", true},
		{"HTTP://LOCALHOST:18080", "http://localhost:18080", true},
		{"https://gw.example.com", "https://gw.example.com:443", true},
		{"https://gw.example.com/agentgw/agents/x", "https://gw.example.com/agentgw", true},
		{"https://gw.example.com/agentgwx", "https://gw.example.com/agentgw", false},
		{"https://gw.example.com/", "https://gw.example.com/agentgw", false},
		{"http://gw.example.com", "https://gw.example.com", false},
		{"http://127.0.0.1:18081", "http://127.0.0.1:18080", false},
		{"http://localhost:18080", "http://127.0.0.1:18080", false},
		{"http://u@127.0.0.1:18080", "http://127.0.0.1:18080", false},
		{"http://127.0.0.1:18080@10.0.0.1/", "http://127.0.0.1:18080", false},
		{"http://127.0.0.1:18080", "", false},
		{"mailto:x@y", "mailto:x@y", false},
		{"%zz", "http://127.0.0.1:18080", false},
	}
	for _, tc := range tests {
		if got := SameGateway(tc.endpoint, tc.self); got != tc.want {
			t.Errorf("SameGateway(%q, %q) = %v, want %v", tc.endpoint, tc.self, got, tc.want)
		}
	}
}

// FuzzCheck: whatever a client sends, Check does not panic, and what it
// lets through decodes to a definition that names no service but this
// gateway, no tools, steps, hand-offs or schedules, and no handler steps.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		`{"commands":[{"name":"default","messageTemplates":[{"role":"user","template":"hi"}]}]}`,
		`{"service":{"endpoint":"http://127.0.0.1:18080"}}`,
		`{"tools":[{"name":"f","runtime":"http","entry":"http://x"}]}`,
		`{"commands":[{"name":"d","steps":[{"id":"a"}],"actions":[{"onAccept":[{"id":"x"}]}]}]}`,
		"commands:\n- &c {name: d, tools: [x]}\n- *c\n",
		`{"schedules":[{"webhook":"http://x"}],"handoffs":[{}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if Check(raw, self) != nil {
			return
		}
		var diags agent.Diagnostics
		def := &agent.Definition{}
		if (&agent.NodeDecoder{File: "f", Diags: &diags}).DecodeYAML(raw, def, "agent") != nil {
			return
		}
		if s := def.Service; s != nil && (s.TokenEnv != "" || s.Endpoint != "" && !SameGateway(s.Endpoint, self)) {
			t.Fatalf("service %+v let through", s)
		}
		if len(def.Tools) > 0 || len(def.Handoffs) > 0 || len(def.Schedules) > 0 {
			t.Fatalf("tools, hand-offs or schedules let through: %s", raw)
		}
		for _, c := range def.Commands {
			if c == nil {
				continue
			}
			if len(c.Steps) > 0 || len(c.Tools) > 0 {
				t.Fatalf("steps or tools let through: %s", raw)
			}
			for _, a := range c.Actions {
				if handlerSteps(a) {
					t.Fatalf("handler steps let through: %s", raw)
				}
			}
		}
	})
}

// handlerSteps reports whether the action a has a handler with steps.
func handlerSteps(a *agent.Value) bool {
	a = a.Resolved()
	if a == nil || a.Kind() != agent.ValueMapping {
		return false
	}
	for _, e := range a.Entries() {
		h := e.Value.Resolved()
		if !slices.Contains(handlerKeys, e.Key) || h == nil {
			continue
		}
		if h.Kind() == agent.ValueList {
			return true
		}
		if h.Kind() == agent.ValueMapping {
			for _, he := range h.Entries() {
				if he.Key != "command" {
					return true
				}
			}
		}
	}
	return false
}
