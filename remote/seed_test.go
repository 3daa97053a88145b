package remote_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/golden"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/remote"
	"github.com/agentgw/agentgw/sse"
)

// seedSample behaves as the seed-003 sample agent server: it answers on
// any path; it refuses a Content-Type other than exactly
// application/json; its chunks carry a numeric id, an empty object and
// finish_reason, and a usage; it ends with "data: [Done]\n" and one line
// break; command "xxx" pipes a model platform's stream as it is. (The
// seed's text shows `\\n` in its JavaScript, the escaping of the page it
// was copied from: real line breaks are meant.)
func seedSample(seen *[]string) http.HandlerFunc {
	const messageID = 1700000000123
	message := func(content string) string {
		b, _ := json.Marshal(map[string]any{
			"id": messageID, "model": "happy", "object": "", "created": 1700000000.123,
			"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": content},
				"logprobs": nil, "finish_reason": ""}},
			"usage": map[string]any{"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
		})
		return "data: " + string(b) + "\n\n"
	}
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "content-type error", http.StatusInternalServerError)
			return
		}
		var req struct {
			Agent            string `json:"agent"`
			Command          string `json:"command"`
			ContextVariables []struct {
				Name  string          `json:"name"`
				Value json.RawMessage `json:"value"`
			} `json:"contextVariables"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		*seen = append(*seen, r.URL.Path+" agent="+req.Agent+" command="+req.Command)
		var user struct {
			Nickname string `json:"nickname"`
		}
		for _, v := range req.ContextVariables {
			if v.Name == "userInfo" {
				_ = json.Unmarshal(v.Value, &user)
			}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("Connection", "keep-alive")
		switch req.Command {
		case "default":
			send(w, message(fmt.Sprintf("你好,%s !\n", user.Nickname)))
			send(w, message("欢迎访问 Agent hello !"))
			send(w, `event: copilot_action`+"\n"+`data: {"action":"confirm","state":{},"data":{"title":"获取版本号","command":"version","prompt":""}}`+"\n\n")
			send(w, "data: [Done]\n")
		case "version":
			send(w, message("当前版本是 v1.0.0 \n"))
			send(w, "data: [Done]\n")
		case "xxx":
			w.WriteHeader(http.StatusOK)
			send(w, `data: {"id":"chatcmpl-platform","object":"chat.completion.chunk","created":1700000001,"model":"hunyuan","choices":[{"index":0,"delta":{"role":"assistant","content":"model "},"finish_reason":null}]}`+"\n\n")
			send(w, `data: {"id":"chatcmpl-platform","object":"chat.completion.chunk","created":1700000001,"model":"hunyuan","choices":[{"index":0,"delta":{"content":"answer"},"finish_reason":null}]}`+"\n\n")
			send(w, `data: {"id":"chatcmpl-platform","object":"chat.completion.chunk","created":1700000001,"model":"hunyuan","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n")
			send(w, llmtest.Done)
		}
	}
}

// throughGateway forwards a request to endpoint as the gateway's runner
// would, into its SSE writer (fixed id and time), and returns the bytes
// the plugin receives.
func throughGateway(t *testing.T, c *remote.Client, endpoint, agentName, body string, terminator string) []byte {
	t.Helper()
	var out bytes.Buffer
	w := sse.NewWriter(&out, sse.Options{ID: "chatcmpl-ours", Model: "hello", Created: 1700000999, Terminator: terminator})
	em := emit.NewSSEEmitter(w, "req-ours")
	if err := c.Forward(context.Background(), endpoint, agentName, []byte(body), nil, em); err != nil {
		if e := apierr.AsError(err); e.Code != apierr.CodeCanceled {
			if err := em.Error(e); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := em.End(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestSeedSample: the seed-003 sample server as a remote agent, each
// command, as the plugin receives it from the gateway
// (testdata/gateway/seed_<command>.golden): our id on every chunk, its
// action validated and passed on, its [Done] replaced by our end.
func TestSeedSample(t *testing.T) {
	var seen []string
	srv := remoteServer(t, llmtest.Handle(seedSample(&seen)))
	c := newClient(t, remote.Config{})
	for _, command := range []string{"default", "version", "xxx"} {
		t.Run(command, func(t *testing.T) {
			body := fmt.Sprintf(`{"agent":"hello","command":%q,"contextVariables":[{"name":"userInfo","value":{"id":"u1","name":"ann","nickname":"Ann"}}]}`, command)
			// The sample is reached at its base URL with the body's agent name.
			out := throughGateway(t, c, srv.URL(), "", body, "[Done]")
			golden.Check(t, filepath.Join("testdata", "gateway", "seed_"+command+".golden"), out)
		})
	}
	if want := "/agent agent=hello command=default|/agent agent=hello command=version|/agent agent=hello command=xxx"; strings.Join(seen, "|") != want {
		t.Errorf("the sample saw %q, want %q", seen, want)
	}
}

// TestRemoteGateway: another agentgw's stream (text, an action, an error
// frame, its end) as the plugin receives it from this gateway
// (testdata/gateway/agentgw.golden).
func TestRemoteGateway(t *testing.T) {
	srv := remoteServer(t, llmtest.Handle(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/agents/security" {
			http.NotFound(w, r)
			return
		}
		streamHeaders(w)
		send(w, chunk("Found "))
		send(w, chunk("2 issues."))
		send(w, `event: copilot_action`+"\n"+`data: {"action":"confirm","state":"signed.by.the.remote","data":{"title":"Fix them","message":"apply the fixes"}}`+"\n\n")
		send(w, ": ping\n\n")
		send(w, `event: copilot_error`+"\n"+`data: {"errorCode":"TOOL_FAILED","message":"the linter failed","recoverable":true,"suggestedAction":"try again","requestId":"rid-9","source":"server"}`+"\n\n")
		send(w, `data: {"id":"chatcmpl-remote","object":"chat.completion.chunk","created":1700000000,"model":"m1","choices":[{"index":0,"delta":{},"finish_reason":"error"}]}`+"\n\n")
		send(w, llmtest.Done)
	}))
	out := throughGateway(t, newClient(t, remote.Config{}), srv.URL(), "security", agentBody, "")
	golden.Check(t, filepath.Join("testdata", "gateway", "agentgw.golden"), out)
}
