package server_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestScopedKeyAgentView: GET /agents/{name} shows a key limited to some
// commands of an agent those commands only (the others' templates and
// variables are the operator's, not the key holder's to read); a key
// with the whole agent, and the admin token, see every command.
func TestScopedKeyAgentView(t *testing.T) {
	t.Parallel()
	opt, _ := withKeys(t, nil)
	gw := newGateway(t, opt)
	greet := createKey(t, gw, "admin-tok", `{"user":"alice","agents":["chat/greet"]}`)
	two := createKey(t, gw, "admin-tok", `{"user":"bob","agents":["chat/gr*","chat/templated"]}`)
	whole := createKey(t, gw, "admin-tok", `{"user":"carol","agents":["chat"]}`)
	none := createKey(t, gw, "admin-tok", `{"user":"dave","agents":["greeter"]}`)

	greetJSON := `{"name":"greet","description":"A reply, then the model.","messageTemplates":[{"role":"system","template":"Greet the user."}]}`
	templatedJSON := `{"name":"templated","description":"Two system templates and a user template that mentions the input.","messageTemplates":[{"role":"system","template":"S1"},{"role":"user","template":"Q: {{ .userInputPrompt }}"},{"role":"system","template":"S2 for {{ .agent }}/{{ .command }}"}]}`
	head := `{"name":"chat","version":"0.1.0","type":"proxy","description":"Asks the upstream model.","publisherType":"","publisher":"","service":{"endpoint":"` + gw.URL + `"},"commands":[`
	for _, tc := range []struct {
		name, cred string
		commands   []string
	}{
		{"one command", greet.Secret, []string{greetJSON}},
		{"two commands", two.Secret, []string{templatedJSON, greetJSON}},
	} {
		r := sendKey(t, http.MethodGet, gw.URL+"/agents/chat", tc.cred, "")
		want := head + strings.Join(tc.commands, ",") + "]}\n"
		if r.status != http.StatusOK || string(r.body) != want {
			t.Errorf("%s: GET /agents/chat: %d\n%s\nwant\n%s", tc.name, r.status, r.body, want)
		}
	}
	for name, cred := range map[string]string{"whole agent": whole.Secret, "admin token": "admin-tok"} {
		r := sendKey(t, http.MethodGet, gw.URL+"/agents/chat", cred, "")
		for _, c := range []string{`"name":"default"`, `"name":"templated"`, `"name":"greet"`, `"name":"explain"`} {
			if r.status != http.StatusOK || !strings.Contains(string(r.body), c) {
				t.Errorf("%s: GET /agents/chat lacks %s: %d %s", name, c, r.status, r.body)
			}
		}
	}
	if r := sendKey(t, http.MethodGet, gw.URL+"/agents/chat", none.Secret, ""); r.status != http.StatusForbidden {
		t.Errorf("a key without chat: %d %s", r.status, r.body)
	}
}
