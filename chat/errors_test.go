package chat

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentgw/agentgw/chat/chattest"
)

func TestChatFlagErrors(t *testing.T) {
	var hit atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hit.Store(true) }))
	defer srv.Close()
	tests := []struct {
		name       string
		args       []string
		wantStderr string
	}{
		{name: "malformed selection", args: []string{"--file", "x.go", "--selection", "4:x-6"},
			wantStderr: "agentgw chat: --selection: selection \"4:x-6\": column \"x\" is not a number\n"},
		{name: "selection backwards", args: []string{"--file", "x.go", "--selection", "6-4"},
			wantStderr: "agentgw chat: --selection: selection \"6-4\": the end 4 comes before the start 6:1\n"},
		{name: "line zero", args: []string{"--file", "x.go", "--selection", "0"},
			wantStderr: "agentgw chat: --selection: selection \"0\": line numbers count from 1, got 0\n"},
		{name: "selection without a file", args: []string{"--selection", "1-2"},
			wantStderr: "agentgw chat: --selection needs --file\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runChat(t, "", append([]string{"--url", srv.URL}, tt.args...)...)
			if code != 2 {
				t.Errorf("exit code = %d, want 2", code)
			}
			if stdout != "" {
				t.Errorf("stdout = %q", stdout)
			}
			if !strings.HasPrefix(stderr, tt.wantStderr) {
				t.Errorf("stderr = %q, want %q", stderr, tt.wantStderr)
			}
		})
	}
	if hit.Load() {
		t.Error("chat contacted the gateway despite a flag error")
	}
}

func TestChatTransportErrors(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()
	proxyErr := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "upstream connect error", http.StatusBadGateway)
	}))
	defer proxyErr.Close()
	garbled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("{not json"))
	}))
	defer garbled.Close()
	tests := []struct {
		name, url, want string
	}{
		{"gateway down", downURL, "agentgw chat: reaching the gateway: Get \"" + downURL + "/agents/hello\""},
		{"not an ERROR_RESPONSE", proxyErr.URL, "agentgw chat: the gateway answered 502 Bad Gateway: upstream connect error\n"},
		{"a definition that is not JSON", garbled.URL, "agentgw chat: reading agent hello: invalid character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runChat(t, "", "--url", tt.url, "--dir", t.TempDir())
			if code != 1 || !strings.HasPrefix(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q, want %q", code, stderr, tt.want)
			}
		})
	}
}

// cannedDefinition declares packageFiles with the platform's resolveOptions
// spelling.
const cannedDefinition = `{"name":"files","commands":[{"name":"default","contextVariableCollectionStrategy":{"type":"specify",
 "contextVariables":[{"name":"packageFiles","resolveOptions":{"maximumNumber":2}},{"name":"unknownThing"}]}}]}`

func TestChatCanned(t *testing.T) {
	ws := chattest.NewWorkspace(t)
	tests := []struct {
		name       string
		stream     string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{
			name: "tree", stream: textFrame("Files:") + treeFrame + stopFrame + doneFrame,
			wantStdout: "Files:\n" + treeOut,
		},
		{
			name:       "an error frame",
			stream:     textFrame("Working") + errorFrame(`{"errorCode":"TOOL_FAILED","message":"grep failed","recoverable":true,"suggestedAction":"retry"}`) + stopFrame + doneFrame,
			wantCode:   1,
			wantStdout: "Working\n\nerror TOOL_FAILED: grep failed\n  hint: retry\n",
			wantStderr: "agentgw chat: the agent reported an error\n",
		},
		{
			name: "a stream that stops", stream: textFrame("Work"), wantCode: 1,
			wantStdout: "Work\n", wantStderr: "agentgw chat: the stream ended without its terminator\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, rec := newCannedGateway(t, cannedDefinition, tt.stream)
			code, stdout, stderr := runChat(t, "", "--url", url+"/", "--agent", "files", "--dir", ws.Dir,
				"--token", "gw-token", "--bearer", "model-key")
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d", code, tt.wantCode)
			}
			if stdout != tt.wantStdout {
				t.Errorf("stdout:\n%q\nwant:\n%q", stdout, tt.wantStdout)
			}
			if stderr != tt.wantStderr {
				t.Errorf("stderr = %q, want %q", stderr, tt.wantStderr)
			}
			req := rec.Last(t)
			if got := req.Header.Get("X-Agentgw-Token"); got != "gw-token" {
				t.Errorf("X-Agentgw-Token = %q", got)
			}
			if got := req.Header.Get("Authorization"); got != "Bearer model-key" {
				t.Errorf("Authorization = %q", got)
			}
			if got := req.Header.Get("Accept"); got != "text/event-stream" {
				t.Errorf("Accept = %q", got)
			}
			var files []struct{ Filepath string }
			if !req.Value(t, "packageFiles", &files) || len(files) != 2 || files[0].Filepath != "go.mod" || files[1].Filepath != "package.json" {
				t.Errorf("packageFiles with resolveOptions maximumNumber 2: %+v", files)
			}
		})
	}
}
