package main

import (
	"net/http"
	"strings"
	"testing"
)

// TestRouteSuggestions checks, on a loopback gateway, the exact
// suggestedAction of the errors of /schedules, /contexts, /handoffs and
// /tasks: each says what to do about that route's object (a schedule, a
// context and who owns it, a hand-off message), never the agent request's
// shape or the list of endpoints.
func TestRouteSuggestions(t *testing.T) {
	base := startGateway(t, testConfig(t, ""), nil)

	// A conversation of user ada, which a request naming no user cannot see.
	var made struct{ ContextID string }
	if code := jsonCall(t, "POST", base+"/contexts", `{"contextId":"conv-42"}`, &made, "X-Agentgw-User", "ada"); code != http.StatusCreated {
		t.Fatalf("POST /contexts = %d", code)
	}
	handoff := func(metadata string) string {
		return `{"metadata":{"message_id":"7f1f0a52-9a5e-4b8e-8f00-000000000c01","timestamp":"2026-01-02T03:04:05Z",` +
			`"protocol_version":"1.0.0","sender_id":"ci","recipient_id":"security","task_id":"task-ci","priority":"LOW"` + metadata + `},` +
			`"context":{"workflow_state":"CI","previous_actions":[]},"payload":{"handoff_type":"ESCALATION","data":{"issue_category":"SECURITY",` +
			`"severity":"LOW","customer_info":{"user_id":"ci","name":"CI"},"technical_details":{"symptoms":"a secret in the log"}}},"instructions":{}}`
	}
	const (
		schedule         = `send a schedule as JSON: {"name", "every"|"cron"|"once", "agent", "command"?, "prompt"?, …} (docs/schedules.md)`
		contextAnonymous = "this request names no user, and a context is seen only by the user that created it: " +
			"send its X-Agentgw-User header (the userInfo.id of the agent requests that made it)"
		contextOwner = "check the id and who asks: a context is seen only by the caller that created it " +
			"(the same token, or the same X-Agentgw-User header); a deleted id cannot be used again; POST /contexts creates a new one"
		handoffMessage = `send one hand-off message as JSON, as handoff/schemas/message.schema.json describes (docs/multi-agent.md, "Hand-offs between agents")`
	)
	tests := []struct {
		name, method, path, body string
		header                   []string
		code, want               string
	}{
		{"a schedule with a bad cron", "POST", "/schedules", `{"name":"x","cron":"not a cron","agent":"hello"}`, nil,
			"BAD_REQUEST", schedule},
		{"a schedule with no time", "POST", "/schedules", `{"name":"x","agent":"hello"}`, nil,
			"BAD_REQUEST", schedule},
		{"a schedule that is not there", "GET", "/schedules/nope", "", nil,
			"NOT_FOUND", "GET /schedules lists them"},
		{"a context, asked with no user", "GET", "/contexts/conv-42", "", nil,
			"CONTEXT_NOT_FOUND", contextAnonymous},
		{"a context's changes, asked with no user", "GET", "/contexts/conv-42/changes", "", nil,
			"CONTEXT_NOT_FOUND", contextAnonymous},
		{"a context, deleted with no user", "DELETE", "/contexts/conv-42", "", nil,
			"CONTEXT_NOT_FOUND", contextAnonymous},
		{"a context, asked by another user", "GET", "/contexts/conv-42", "", []string{"X-Agentgw-User", "bob"},
			"CONTEXT_NOT_FOUND", contextOwner},
		{"a context that is not there", "GET", "/contexts/conv-43", "", []string{"X-Agentgw-User", "ada"},
			"CONTEXT_NOT_FOUND", contextOwner},
		{"an expired hand-off", "POST", "/handoffs", handoff(`,"expiration_time":"2026-01-02T04:04:05Z"`), nil,
			"BAD_REQUEST", "an expired message is never delivered: send it again with metadata.expiration_time in the future, or without one"},
		{"a hand-off that is not JSON", "POST", "/handoffs", `{"metadata":`, nil,
			"BAD_REQUEST", handoffMessage},
		{"a hand-off that is not there", "GET", "/handoffs/nope", "", nil,
			"NOT_FOUND", "check the message_id: a hand-off message is seen only by the caller that submitted it; GET /tasks/{task_id} lists a task's messages"},
		{"a task that is not there", "GET", "/tasks/nope", "", nil,
			"NOT_FOUND", "check the task_id: a task lists only the hand-off messages its caller submitted; POST /handoffs sends one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got struct {
				Content struct{ ErrorCode, SuggestedAction string }
			}
			jsonCall(t, tt.method, base+tt.path, tt.body, &got, tt.header...)
			if got.Content.ErrorCode != tt.code || got.Content.SuggestedAction != tt.want {
				t.Errorf("%s %s = %s %q\nwant %s %q", tt.method, tt.path, got.Content.ErrorCode, got.Content.SuggestedAction, tt.code, tt.want)
			}
			if strings.Contains(got.Content.SuggestedAction, "shape of the agent request") || strings.Contains(got.Content.SuggestedAction, "GET /healthz") {
				t.Errorf("%s %s: the suggestion is not about the route: %q", tt.method, tt.path, got.Content.SuggestedAction)
			}
		})
	}
}
