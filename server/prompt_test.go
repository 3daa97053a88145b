package server_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestPromptPreview: POST /agents/{name}/prompt answers, byte for byte, the
// body the same request sends the model when it runs, and sends nothing
// itself; a command with no prompt of its own has none to show.
func TestPromptPreview(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`{"command":"templated","contextVariables":[{"name":"userInputPrompt","value":"why?"}]}`,
		`{"command":"default","contextVariables":[{"name":"userInputPrompt","value":"hi"},{"name":"globalPrompts","value":[{"role":"system","content":"be brief"}]}]}`,
	} {
		gw := newGateway(t, withUpstream(replay(t, "normal.sse")))
		preview := post(t, gw.URL+"/agents/chat/prompt", body)
		if preview.status != http.StatusOK || preview.header.Get("Content-Type") != "application/json" {
			t.Fatalf("preview: %d %s: %s", preview.status, preview.header.Get("Content-Type"), preview.body)
		}
		if n := gw.up.Count(); n != 0 {
			t.Fatalf("the preview sent %d requests upstream", n)
		}
		readStream(t, post(t, gw.URL+"/agents/chat", body), "[DONE]")
		if sent := gw.up.Only(t).Body; string(sent) != string(preview.body) {
			t.Errorf("preview:\n%s\nsent upstream:\n%s", preview.body, sent)
		}
	}
	gw := newGateway(t)
	for path, want := range map[string]string{
		"/agents/hello/prompt":   `"errorCode":"BAD_REQUEST"`,
		"/agents/nobody/prompt":  `"errorCode":"AGENT_NOT_FOUND"`,
		"/agents/planner/prompt": `"errorCode":"BAD_REQUEST"`,
	} {
		r := post(t, gw.URL+path, `{"command":"default"}`)
		if !strings.Contains(string(r.body), want) {
			t.Errorf("%s: %d %s, want %s", path, r.status, r.body, want)
		}
	}
}
