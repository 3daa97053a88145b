package server_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/sse"
)

// preStreamCodes are the codes an ERROR_RESPONSE may carry, with their status.
var preStreamCodes = map[string]int{
	apierr.CodeBadRequest: 400, apierr.CodeStateInvalid: 400, apierr.CodeUnauthorized: 401,
	apierr.CodeAgentNotFound: 404, apierr.CodeCommandNotFound: 404, apierr.CodeNotFound: 404,
	apierr.CodePayloadTooLarge: 413, apierr.CodeUnsupportedMediaType: 415,
	apierr.CodeInvalidContext: 422, apierr.CodeRateLimited: 429,
}

// fuzzSeeds are realistic agent requests, good and bad.
var fuzzSeeds = []string{
	helloBody,
	`{"agent":"hello","command":"version"}`,
	`{"agent":"hello","command":"versoin"}`,
	`{"agent":"chat","command":"greet","model":"m","temperature":0.2,"messages":[{"role":"user","content":"hi"}]}`,
	`{"agent":"chat","command":"explain","contextVariables":[{"name":"activeEditor","value":{"filePath":"a.go","language":"go","content":"package a\nfunc f() {}\n","cursorOffset":3,"startLine":1,"startColumn":1,"endLine":2,"endColumn":12,"selectedRanges":[{"content":"func f() {}","startLine":2,"startColumn":1,"endLine":2,"endColumn":12,"contentBeforeSelection":"package a"}],"visibleRange":{"content":"package a","startLine":1,"startColumn":1,"endLine":1,"endColumn":10}}}]}`,
	`{"agent":"chat","command":"explain","contextVariables":[{"name":"activeEditor","value":{"startLine":"1"}}]}`,
	`{"agent":"chat","contextVariables":[{"name":"userInputPrompt","value":"why?"},{"name":"globalPrompts","value":[{"role":"system","content":"be brief"}]},{"name":"vcs","value":{"type":"git","branchName":"main","remotes":["origin"]}},{"name":"knowledgeBase","value":[{"knowledgeBaseId":"kb1","references":[{"score":0.5,"chunk":"c","metadata":{"fileName":"f","sourceType":"doc","source":"s"}}]}]},{"name":"packageFiles","value":[{"filepath":"go.mod","content":"module x"}]},{"name":"custom","value":{"any":[1,2]}}]}`,
	`{"agent":"hello","action":{"action":"confirm","state":"v1.e30.AAAA","accepted":false}}`,
	`{"agent":"hello","action":{"action":"tree","state":"x","treeId":"t1","nodeId":"n7","nodeAction":"expand","node":{"id":"n7"}}}`,
	`{"agent":"adhoc","agentDefinition":{"commands":[{"name":"default","reply":"r","messageTemplates":[{"role":"system","template":"{{ .userInputPrompt | upper }}"}]}]}}`,
	adhocRequest,
	`{"agent":`, `[]`, `null`, `"hello"`, `{}`, `{"agent":5}`, `{"agent":"hello","contextVariables":{}}`,
	`{"agent":"hello","messages":[{"role":5}]}`, `{"agent":"hello","agentDefinition":"x"}`,
}

// FuzzAgentEndpoint posts arbitrary bodies: never a 5xx or a panic, and the
// answer is either a complete event stream or a well-formed ERROR_RESPONSE.
func FuzzAgentEndpoint(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	h, _ := newHandler(f, withRequestDefinitions(true))
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest(http.MethodPost, "/agent", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body)
		}
		if rec.Code == http.StatusOK {
			checkFuzzStream(t, rec)
			return
		}
		checkFuzzError(t, rec)
	})
}

func checkFuzzStream(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("200 with Content-Type %q", ct)
	}
	out := rec.Body.Bytes()
	if !bytes.HasSuffix(out, []byte("\n\ndata: [DONE]\n\n")) {
		t.Fatalf("the stream does not end with the terminator:\n%s", out)
	}
	rd := sse.NewReader(bytes.NewReader(out))
	done := 0
	for {
		ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("reading the stream: %v", err)
		}
		if string(ev.Data) == "[DONE]" {
			done++
			continue
		}
		if done > 0 {
			t.Fatalf("a frame after the terminator: %q", ev.Data)
		}
		if !json.Valid(ev.Data) {
			t.Fatalf("frame %q is not JSON", ev.Data)
		}
	}
	if done != 1 {
		t.Fatalf("%d terminators:\n%s", done, out)
	}
}

func checkFuzzError(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	var e struct {
		Type    string `json:"type"`
		Content struct {
			ErrorCode string `json:"errorCode"`
			Message   string `json:"message"`
		} `json:"content"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil {
		t.Fatalf("status %d with a body that is not JSON: %v: %s", rec.Code, err, rec.Body)
	}
	status, known := preStreamCodes[e.Content.ErrorCode]
	if e.Type != "ERROR_RESPONSE" || !known || status != rec.Code || strings.TrimSpace(e.Content.Message) == "" {
		t.Fatalf("status %d with %s", rec.Code, rec.Body)
	}
}
