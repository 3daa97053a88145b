package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/handoff/queue"
)

// handoffBody is a NOTIFICATION to the agent notified, as a client POSTs it.
func handoffBody(id, task, priority string) string {
	return `{"metadata":{"message_id":"` + id + `","timestamp":"2026-01-02T03:04:05Z",` +
		`"protocol_version":"1.0.0","sender_id":"ci","recipient_id":"notified","task_id":"` + task + `","priority":"` + priority + `"},` +
		`"context":{"workflow_state":"CI","previous_actions":[]},"payload":{"handoff_type":"NOTIFICATION","data":{"event_type":"x","message":"secret of ` + task + `"}},"instructions":{}}`
}

// TestHandoffsOwned (issue 24, items 4 and 8): with inbound auth, token B
// gets 404 for token A's message and task (results included), an admin
// token sees them; B reusing A's message id gets 409 without A's
// message; a CRITICAL message over the API is refused (422
// HANDOFF_PRIORITY_NOT_ALLOWED) under the default handoffs.maxExternalPriority.
func TestHandoffsOwned(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "agents/notified.yaml", "name: notified\nhandoffs: [{type: NOTIFICATION}]\ncommands: [{name: default, reply: \"got {{ .handoff.payload.data.message }}\"}]\n")
	cfg := testConfig(t, "")
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	base := startGateway(t, cfg, map[string]string{"AGENTGW_TOKENS": "token-a,token-b", "AGENTGW_ADMIN_TOKENS": "token-admin"})
	as := func(tok string) []string { return []string{"Authorization", "Bearer " + tok} }
	id := "7f1f0a52-9a5e-4b8e-8f00-00000000b001"
	var st handoffStatus
	if code := jsonCall(t, "POST", base+"/handoffs", handoffBody(id, "task-of-a", "HIGH"), &st, as("token-a")...); code != http.StatusAccepted {
		t.Fatalf("A's POST: %d", code)
	}
	deadline := time.Now().Add(20 * time.Second)
	for st.Status != "COMPLETED" && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		jsonCall(t, "GET", base+"/handoffs/"+id, "", &st, as("token-a")...)
	}
	if st.Result.Text != "got secret of task-of-a" {
		t.Fatalf("A's message: %+v", st)
	}
	for _, tc := range []struct {
		name, method, path, body, token string
		status                          int
		code                            string
	}{
		{"B reads A's message", "GET", "/handoffs/" + id, "", "token-b", 404, "NOT_FOUND"},
		{"B reads A's task", "GET", "/tasks/task-of-a", "", "token-b", 404, "NOT_FOUND"},
		{"B resends A's message", "POST", "/handoffs", handoffBody(id, "task-of-a", "HIGH"), "token-b", 409, "CONFLICT"},
		{"B reuses A's id", "POST", "/handoffs", handoffBody(id, "task-of-b", "LOW"), "token-b", 409, "CONFLICT"},
		{"B sends CRITICAL", "POST", "/handoffs", handoffBody("7f1f0a52-9a5e-4b8e-8f00-00000000b002", "task-of-b", "CRITICAL"), "token-b", 422, "HANDOFF_PRIORITY_NOT_ALLOWED"},
		{"the admin reads A's message", "GET", "/handoffs/" + id, "", "token-admin", 200, ""},
		{"the admin reads A's task", "GET", "/tasks/task-of-a", "", "token-admin", 200, ""},
		{"A reads its task", "GET", "/tasks/task-of-a", "", "token-a", 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.DefaultClient.Do(newRequest(t, tc.method, base+tc.path, tc.body, as(tc.token)...))
			if err != nil {
				t.Fatal(err)
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			body := string(data)
			if resp.StatusCode != tc.status || !strings.Contains(body, tc.code) {
				t.Fatalf("= %d %s, want %d %s", resp.StatusCode, body, tc.status, tc.code)
			}
			if tc.status >= 400 && strings.Contains(body, "secret of task-of-a") {
				t.Errorf("the refusal shows A's message: %s", body)
			}
			if tc.code == "HANDOFF_PRIORITY_NOT_ALLOWED" && !strings.Contains(body, "handoffs.maxExternalPriority") {
				t.Errorf("the refusal does not name the key: %s", body)
			}
		})
	}
}

// TestHandoffsConfigBounds: the handoffs section's keys reach the hub and
// the queue, and bad values are refused when the config is read.
func TestHandoffsConfigBounds(t *testing.T) {
	cfg, err := defaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	if h := cfg.Handoffs; h.MaxHops != 10 || h.MaxMessagesPerTask != 50 || h.MaxExternalPriority != "HIGH" ||
		h.Workers != queue.DefaultWorkers || time.Duration(h.FetchCooldown) != queue.DefaultFetchCooldown {
		t.Errorf("defaults: %+v", h)
	}
	// The schema editors check the file by carries the same bounds (a
	// patch key of another prefix than the docs' would match nothing).
	data, err := os.ReadFile("../../configs/schema/config.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Defs map[string]struct {
			Properties map[string]map[string]any `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	props := doc.Defs["agentgw.HandoffsConfig"].Properties
	if props["maxHops"]["minimum"] != 0.0 || props["maxMessagesPerTask"]["minimum"] != 0.0 ||
		fmt.Sprint(props["maxExternalPriority"]["enum"]) != "[LOW MEDIUM HIGH CRITICAL]" ||
		props["workers"]["minimum"] != 0.0 || props["workers"]["maximum"] != 1000.0 {
		t.Errorf("the schema's handoffs: %v", props)
	}
	bads := []HandoffsConfig{{MaxHops: -1}, {MaxMessagesPerTask: -2}, {MaxExternalPriority: "URGENT"},
		{Workers: -1}, {Workers: 1001}, {FetchCooldown: Duration(time.Microsecond)}, {FetchCooldown: Duration(101 * time.Millisecond)},
		{FetchCooldown: -1}}
	for _, bad := range bads {
		c := *cfg
		c.Handoffs = bad
		if err := c.validate(); err == nil || !strings.Contains(err.Error(), "handoffs.") {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

// TestHandoffsFromPluginRunsOwned: a hand-off an agent sends while it
// answers a plugin's request without a conversation belongs to the
// request's caller (token A): A reads it, B gets 404, as for one A posted.
func TestHandoffsFromPluginRunsOwned(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "agents/notified.yaml", "name: notified\nhandoffs: [{type: NOTIFICATION}]\ncommands: [{name: default, reply: \"got {{ .handoff.payload.data.message }}\"}]\n")
	writeFile(t, dir, "agents/sender.yaml", "name: sender\ncommands:\n  - name: default\n    steps:\n      - id: tell\n"+
		"        handoff: {to: notified, type: NOTIFICATION}\n        with: {event_type: x, message: from a plugin}\n")
	cfg := testConfig(t, "")
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	base := startGateway(t, cfg, map[string]string{"AGENTGW_TOKENS": "token-a,token-b"})
	as := func(tok string) []string { return []string{"Authorization", "Bearer " + tok} }
	resp, err := http.DefaultClient.Do(newRequest(t, "POST", base+"/agents/sender",
		`{"contextVariables":[{"name":"userInputPrompt","value":"go"}]}`, as("token-a")...))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`message ([0-9a-f-]{36})`).FindStringSubmatch(string(data))
	if resp.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("the plugin's request: %d %s", resp.StatusCode, data)
	}
	id := m[1]
	var st handoffStatus
	if code := jsonCall(t, "GET", base+"/handoffs/"+id, "", &st, as("token-a")...); code != http.StatusOK {
		t.Errorf("A reads the hand-off its request sent: %d", code)
	}
	if code := jsonCall(t, "GET", base+"/handoffs/"+id, "", &st, as("token-b")...); code != http.StatusNotFound {
		t.Errorf("B reads A's hand-off: %d, want 404", code)
	}
}
