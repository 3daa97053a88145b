package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/llm/llmtest"
)

// promptLines joins the request's messages as "role: content" lines.
func promptLines(r llmtest.Request) string {
	var b strings.Builder
	for _, m := range r.Messages {
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

// newModelFake is an OpenAI-compatible model platform: streamed requests
// get an explanation (system prompt of the repo agent) or a review, the
// others a chat.completion whose content is completion, or findingsJSON
// when completion is not given.
func newModelFake(t *testing.T, completion ...string) *llmtest.Model {
	answer := "```json\n" + findingsJSON + "\n```"
	if len(completion) > 0 {
		answer = completion[0]
	}
	return llmtest.New(t, llmtest.Respond(func(r llmtest.Request) llmtest.Reply {
		switch {
		case r.Path != "/chat/completions":
			return llmtest.Error(http.StatusBadRequest, "bad request")
		case !r.Stream:
			return llmtest.Text(answer)
		case strings.Contains(promptLines(r), "You explain source files"):
			return llmtest.Text(explainChunks...)
		}
		return llmtest.Text(reviewChunks...)
	}))
}
