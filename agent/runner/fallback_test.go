package runner

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/llm/llmtest"
)

const fallbackAgents = `
name: fb
modelConfiguration: {modelName: agent-model, fallbackModels: [agent-fb]}
commands:
  - name: default
    messageTemplates: [{role: user, template: "{{ .userInputPrompt }}"}]
  - name: own
    modelConfiguration: {modelName: cmd-model, fallbackModels: [cmd-fb1, cmd-fb2]}
    messageTemplates: [{role: user, template: "{{ .userInputPrompt }}"}]
  - name: none
    modelConfiguration: {fallbackModels: []}
    messageTemplates: [{role: user, template: "{{ .userInputPrompt }}"}]
  - name: step
    steps:
      - id: ask
        llm:
          stream: true
          modelConfiguration: {modelName: step-model, fallbackModels: [step-fb]}
          messageTemplates: [{role: user, template: "{{ .userInputPrompt }}"}]
---
name: plain
commands:
  - name: default
    messageTemplates: [{role: user, template: "{{ .userInputPrompt }}"}]
`

// fallbackModel fails with 503 for the models in failing and answers the
// others "from MODEL".
func fallbackModel(t *testing.T, failing ...string) *llmtest.Model {
	return llmtest.New(t, llmtest.Respond(func(r llmtest.Request) llmtest.Reply {
		if slices.Contains(failing, r.Model) {
			return llmtest.Error(http.StatusServiceUnavailable, "overloaded")
		}
		return llmtest.Text("from " + r.Model)
	}))
}

// models are the models of the requests m received.
func models(m *llmtest.Model) []string {
	var out []string
	for _, r := range m.Requests() {
		out = append(out, r.Model)
	}
	return out
}

// TestFallbackModels: a model that fails before answering is replaced by
// the fallback models of the nearest level that sets them (llm step,
// command, agent), else the gateway's; an empty list means none. The test
// asserts the model of every request the upstream received.
func TestFallbackModels(t *testing.T) {
	tests := []struct {
		agent, command string
		failing        []string
		models         []string
		text           string // "" when the run ends with an error
	}{
		{"fb", "default", []string{"agent-model"}, []string{"agent-model", "agent-fb"}, "from agent-fb"},
		{"fb", "own", []string{"cmd-model", "cmd-fb1"}, []string{"cmd-model", "cmd-fb1", "cmd-fb2"}, "from cmd-fb2"},
		{"fb", "none", []string{"agent-model"}, []string{"agent-model"}, ""},
		{"fb", "step", []string{"step-model"}, []string{"step-model", "step-fb"}, "from step-fb"},
		{"plain", "default", []string{"default-model"}, []string{"default-model", "gateway-fb"}, "from gateway-fb"},
		{"plain", "default", []string{"default-model", "gateway-fb"}, []string{"default-model", "gateway-fb"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.agent+"/"+tt.command+" failing "+strings.Join(tt.failing, ","), func(t *testing.T) {
			up := fallbackModel(t, tt.failing...)
			c, err := llm.New(llm.Config{BaseURL: up.URL(), FallbackModels: []string{"gateway-fb"}})
			if err != nil {
				t.Fatal(err)
			}
			r, _ := testRunner(t, fallbackAgents, nil, RunnerConfig{LLM: c, DefaultModel: "default-model"})
			rec, err := runRequest(t, r, `{"agent":"`+tt.agent+`","command":"`+tt.command+`","contextVariables":[{"name":"userInputPrompt","value":"hi"}]}`)
			if err != nil {
				t.Fatal(err)
			}
			if got := models(up); !slices.Equal(got, tt.models) {
				t.Errorf("the upstream was asked for %q, want %q", got, tt.models)
			}
			if e := rec.Err(); tt.text == "" && (e == nil || e.Code != apierr.CodeUpstreamError || e.UpstreamStatus != 503) {
				t.Errorf("error %+v, want UPSTREAM_ERROR 503", e)
			}
			if text := rec.Transcript(); tt.text != "" && text != tt.text {
				t.Errorf("text %q, want %q (frames %+v)", text, tt.text, rec.Frames())
			}
		})
	}
}

func TestFallbackModelsLint(t *testing.T) {
	_, diags := parseAll("bad.yaml", []byte(`
name: bad
modelConfiguration: {fallbackModels: ["", x, x]}
commands:
  - name: default
    modelConfiguration: {fallbackModels: [" "]}
    messageTemplates: [{role: user, template: "hi"}]
`))
	got := diags.String()
	for _, want := range []string{
		`bad.yaml:2:1: agent: modelConfiguration.fallbackModels[0] is empty`,
		`bad.yaml:2:1: warning: agent: modelConfiguration.fallbackModels names "x" twice`,
		`bad.yaml:5:5: command "default": modelConfiguration.fallbackModels[0] is empty`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("diagnostics do not hold %q:\n%s", want, got)
		}
	}
}
