package openaiapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/agent/stage"
	"github.com/agentgw/agentgw/openaiapi"
	"github.com/agentgw/agentgw/server"
	"github.com/agentgw/agentgw/tools/toolload"
)

// recordingRemotes is a stage.RemoteAgents that keeps the requests it is
// asked to forward and answers each with one line of text.
type recordingRemotes struct{ got []*stage.RemoteRequest }

func (r *recordingRemotes) Owns(map[string]string) bool { return false }

func (r *recordingRemotes) Forward(_ context.Context, rr *stage.RemoteRequest) error {
	r.got = append(r.got, rr)
	return rr.Sink.Chunk([]byte(`{"choices":[{"index":0,"delta":{"content":"from afar"}}]}`))
}

// TestRemoteAgentBody: a chat completion for a remote agent forwards the
// agent request the endpoint makes of it (the body a plugin would have
// sent: userInputPrompt, globalPrompts, the earlier turns, the pass-through
// members), which the endpoint writes only for such an agent.
func TestRemoteAgentBody(t *testing.T) {
	dir := t.TempDir()
	def := "name: far\nversion: 1.0.0\ndescription: A remote agent.\nservice:\n  endpoint: http://192.0.2.1/\n" +
		"commands:\n  - name: default\n    description: Forwarded.\n"
	if err := os.WriteFile(filepath.Join(dir, "far.yaml"), []byte(def), 0o644); err != nil {
		t.Fatal(err)
	}
	agents, diags := program.LoadWith(program.LoadOptions{Tools: toolload.Default()}, dir)
	if diags.Errors() > 0 {
		t.Fatal(diags)
	}
	remotes := &recordingRemotes{}
	run := runner.NewRunner(program.NewRegistry(agents), runner.RunnerConfig{Remote: remotes})
	h := server.New(server.Config{Runner: run, OpenAI: openaiapi.New(openaiapi.Config{Runner: run})}).Handler()
	body := `{"model":"far","stream":true,"temperature":0.5,"messages":[{"role":"system","content":"be brief"},` +
		`{"role":"user","content":"hi"},{"role":"assistant","content":"hello"},{"role":"user","content":"again"}]}`
	req := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"content":"from afar"`) {
		t.Fatalf("status %d, answer %s", rec.Code, rec.Body)
	}
	if len(remotes.got) != 1 {
		t.Fatalf("%d requests forwarded, want 1", len(remotes.got))
	}
	want := `{"agent":"far","contextVariables":[{"name":"userInputPrompt","value":"again"},` +
		`{"name":"globalPrompts","value":[{"role":"system","content":"be brief"}]}],` +
		`"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}],"temperature":0.5}`
	if got := string(remotes.got[0].Body); got != want {
		t.Errorf("forwarded body\n %s\nwant\n %s", got, want)
	}
}
