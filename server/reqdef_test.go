package server_test

import (
	"strings"
	"testing"

	"github.com/agentgw/agentgw/apierr"
)

// adhocRequest carries a definition of an agent the gateway does not know,
// with a reply and an action that must never run.
const adhocRequest = `{"agent":"adhoc",
 "agentDefinition":{"name":"adhoc","modelConfiguration":{"modelName":"def-model","parameters":{"temperature":2}},
  "commands":[{"name":"default",
   "messageTemplates":[
     {"role":"system","template":"You review {{ len .packageFiles }} file(s):{{ range .packageFiles }} [{{ .filepath }}]{{ end }}"},
     {"role":"user","content":"Please: {{ .userInputPrompt }}"}],
   "contextVariableCollectionStrategy":{"type":"specify","contextVariables":[
     {"name":"packageFiles","resolveOptions":{"maximumNumber":1}},{"name":"userInputPrompt"}]},
   "reply":"SECRET REPLY",
   "actions":[{"action":"confirm","data":{"title":"Injected","message":"clicked"}}]}]},
 "contextVariables":[{"name":"userInputPrompt","value":"check it"},
  {"name":"packageFiles","value":[{"filepath":"go.mod","content":"module x"},{"filepath":"package.json","content":"{}"},{"filepath":"Cargo.toml","content":""}]}]}`

// TestRequestDefinitions: a request's agentDefinition is refused unless the
// operator allows it; allowed, only its templates, context strategy and
// model name are used.
func TestRequestDefinitions(t *testing.T) {
	t.Parallel()
	t.Run("not allowed", func(t *testing.T) {
		t.Parallel()
		gw := newGateway(t, withUpstream(replay(t, "normal.sse")))
		c := errorResponse(t, post(t, gw.URL+"/agent", adhocRequest), 404, apierr.CodeAgentNotFound)
		if !strings.Contains(c.Message, "does not accept agent definitions") {
			t.Errorf("message %q does not say request definitions are refused", c.Message)
		}
		if gw.up.Count() != 0 {
			t.Error("the upstream was called")
		}
	})
	t.Run("allowed", func(t *testing.T) {
		t.Parallel()
		gw := newGateway(t, withUpstream(replay(t, "normal.sse")), withRequestDefinitions(true))
		s := readStream(t, post(t, gw.URL+"/agent", adhocRequest), "[DONE]")
		if len(s.of("action")) != 0 || len(s.of("error")) != 0 || strings.Contains(s.text(), "SECRET") {
			t.Fatalf("the definition's reply or actions ran, or it failed: %v %q", s.kinds(), s.text())
		}
		if got := s.text(); got != "Hello, \"world\"\n" {
			t.Errorf("text %q, want the upstream's", got)
		}
		b := decodeUpstream(t, gw.up.Only(t))
		var got []string
		for _, m := range b.messages {
			got = append(got, m.Role+": "+m.Content)
		}
		want := []string{"system: You review 1 file(s): [go.mod]", "user: Please: check it"}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("messages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if string(b.fields["model"]) != `"def-model"` {
			t.Errorf("model %s, want the definition's", b.fields["model"])
		}
		if v, ok := b.fields["temperature"]; ok {
			t.Errorf("the definition's parameters reached the upstream: temperature %s", v)
		}
	})
	t.Run("reply only", func(t *testing.T) {
		t.Parallel()
		gw := newGateway(t, withUpstream(replay(t, "normal.sse")), withRequestDefinitions(true))
		body := `{"agent":"replier","agentDefinition":{"commands":[{"name":"default","reply":"SECRET REPLY",
			"actions":[{"action":"confirm","data":{"title":"Injected","message":"m"}}]}]}}`
		s := readStream(t, post(t, gw.URL+"/agent", body), "[DONE]")
		if strings.Contains(s.text(), "SECRET") || len(s.of("action")) != 0 {
			t.Errorf("the definition's reply or actions ran: %v %q", s.kinds(), s.text())
		}
		if errs := s.of("error"); len(errs) != 1 || errs[0].err.ErrorCode != apierr.CodeCommandEmpty {
			t.Errorf("want one COMMAND_EMPTY error frame, got %v", s.kinds())
		}
		if gw.up.Count() != 0 {
			t.Error("the upstream was called")
		}
	})
	t.Run("known agent", func(t *testing.T) {
		t.Parallel()
		gw := newGateway(t, withRequestDefinitions(true))
		body := `{"agent":"hello","agentDefinition":{"name":"hello","commands":[{"name":"default","reply":"SECRET REPLY"}]}}`
		s := readStream(t, post(t, gw.URL+"/agent", body), "[DONE]")
		if got := s.text(); got != "Hello, there!\nWelcome to agent hello!" {
			t.Errorf("text %q: the gateway's own definition must win", got)
		}
	})
	t.Run("invalid definition", func(t *testing.T) {
		t.Parallel()
		gw := newGateway(t, withRequestDefinitions(true))
		for _, def := range []string{
			`{"name":"other","commands":[{"name":"default","messageTemplates":[{"role":"system","template":"x"}]}]}`,
			`{"commands":[{"name":"nodefault","messageTemplates":[{"role":"system","template":"x"}]}]}`,
			`{"commands":[{"name":"default","messageTemplates":[{"role":"system","template":"{{ .x"}]}]}`,
		} {
			errorResponse(t, post(t, gw.URL+"/agent", `{"agent":"adhoc","agentDefinition":`+def+`}`), 400, apierr.CodeBadRequest)
		}
	})
	t.Run("unbounded template", func(t *testing.T) {
		t.Parallel()
		gw := newGateway(t, withUpstream(replay(t, "normal.sse")), withRequestDefinitions(true))
		for tmpl, want := range map[string]string{
			`{{ range 10000000 }}{{ end }}`:  "range over an integer is not allowed",
			`{{ printf \"%999999999d\" 1 }}`: "printf is not allowed",
			`{{ js .userInputPrompt }}`:      "js is not allowed",
		} {
			def := `{"commands":[{"name":"default","messageTemplates":[{"role":"user","template":"` + tmpl + `"}]}]}`
			c := errorResponse(t, post(t, gw.URL+"/agent", `{"agent":"adhoc","agentDefinition":`+def+`}`), 400, apierr.CodeBadRequest)
			if w := `command "default": template default.messageTemplates[0]: ` + want; !strings.Contains(c.Message, w) {
				t.Errorf("message %q, want it to say %q", c.Message, w)
			}
		}
		if gw.up.Count() != 0 {
			t.Error("the upstream was called")
		}
	})
}
