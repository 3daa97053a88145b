package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// modelCall is a request the fake model received.
type modelCall struct {
	Stream   bool `json:"stream"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
}

// prompt joins the call's messages as "role: content" lines.
func (c modelCall) prompt() string {
	var b strings.Builder
	for _, m := range c.Messages {
		fmt.Fprintf(&b, "%s: %s\n", m.Role, m.Content)
	}
	return b.String()
}

// The fake model's answers.
var (
	explainChunks = []string{"This file ", "adds numbers."}
	reviewChunks  = []string{"Review: ", "Double has no test; ", "Sub is fine."}
)

// findingsJSON is the non-streamed answer: findings in the node shape the
// reviewer's prompt asks for, fenced as models like to.
const findingsJSON = `{"nodes": [
  {"id": "f1", "pId": "root", "type": "file", "name": "internal/calc/add.go", "description": "1 finding", "labels": []},
  {"id": "f1.1", "pId": "f1", "type": "finding", "name": "line 9: Double has no test", "description": "Add a test for Double.", "labels": ["low"]},
  {"id": "f2", "pId": "root", "type": "file", "name": "internal/calc/sub.go", "description": "1 finding", "labels": []},
  {"id": "f2.1", "pId": "f2", "type": "finding", "name": "line 3: Sub is undocumented", "description": "Document Sub.", "labels": ["low"]}
]}`

// modelFake is an OpenAI-compatible model platform: streamed requests get
// an explanation (system prompt of the repo agent) or a review, the others
// a chat.completion whose content is findingsJSON.
type modelFake struct {
	*httptest.Server
	// completion, when set, replaces the findings as the non-streamed answer.
	completion string
	mu         sync.Mutex
	calls      []modelCall
}

func newModelFake(t *testing.T) *modelFake {
	m := &modelFake{}
	m.Server = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.Close)
	return m
}

func (m *modelFake) serve(w http.ResponseWriter, r *http.Request) {
	data, _ := io.ReadAll(r.Body)
	var c modelCall
	if r.URL.Path != "/chat/completions" || json.Unmarshal(data, &c) != nil {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	m.calls = append(m.calls, c)
	m.mu.Unlock()
	if !c.Stream {
		w.Header().Set("Content-Type", "application/json")
		answer := "```json\n" + findingsJSON + "\n```"
		if m.completion != "" {
			answer = m.completion
		}
		content, _ := json.Marshal(answer)
		fmt.Fprintf(w, `{"id":"chatcmpl-f","object":"chat.completion","created":1,"model":"fake-1","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}]}`, content)
		return
	}
	chunks := reviewChunks
	if strings.Contains(c.prompt(), "You explain source files") {
		chunks = explainChunks
	}
	w.Header().Set("Content-Type", "text/event-stream")
	const frame = `data: {"id":"chatcmpl-up","object":"chat.completion.chunk","created":1,"model":"fake-1","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}` + "\n\n"
	for _, s := range chunks {
		delta, _ := json.Marshal(map[string]string{"content": s})
		fmt.Fprintf(w, frame, delta, "null")
		w.(http.Flusher).Flush()
	}
	fmt.Fprintf(w, frame, "{}", `"stop"`)
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// received returns the calls so far.
func (m *modelFake) received() []modelCall {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]modelCall(nil), m.calls...)
}
