package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// scopedHandoff is a NOTIFICATION to to, in its own task, saying text,
// with no retry.
func scopedHandoff(n int, to, text string) string {
	return fmt.Sprintf(`{"metadata":{"message_id":"7f1f0a52-9a5e-4b8e-8f00-00000000d%03d","timestamp":"2026-01-02T03:04:05Z","protocol_version":"1.0.0","sender_id":"ci",`+
		`"recipient_id":%q,"task_id":"task-scope-%d","priority":"LOW"},"context":{"workflow_state":"CI","previous_actions":[]},`+
		`"payload":{"handoff_type":"NOTIFICATION","data":{"event_type":"x","message":%q}},`+
		`"instructions":{"failure_handling_strategy":{"retry_count":0}}}`, n, to, n, text)
}

// TestScopedKeyEndToEnd (issue 31 follow-up): through the whole gateway, a
// key limited to some agents hands off, schedules and lists within its
// scope only. Its hand-off to an agent in scope runs; to one out of it is
// 403 FORBIDDEN; one to an agent in scope that hands off on to an agent
// out of it (its recipient a template over the message) goes no further:
// the relay's run fails and the task holds that one message; a request's
// handoff step to an agent out of scope fails the same. Its schedules name
// only targets in scope. GET /agents lists only the hand-off types whose
// command it may call, and /mcp stays refused.
func TestScopedKeyEndToEnd(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "agents/worker.yaml", "name: worker\nhandoffs: [{type: NOTIFICATION}]\n"+
		"commands: [{name: default, reply: \"worker got {{ .handoff.payload.data.message }}\"}, {name: other, reply: o}]\n")
	writeFile(t, dir, "agents/vault.yaml", "name: vault\nhandoffs: [{type: NOTIFICATION}]\n"+
		"commands: [{name: default, reply: \"vault got {{ .handoff.payload.data.message }}\"}]\n")
	writeFile(t, dir, "agents/relay.yaml", "name: relay\nhandoffs: [{type: NOTIFICATION}]\ncommands:\n  - name: default\n    steps:\n"+
		"      - id: pass\n        handoff: {to: \"{{ .handoff.payload.data.message }}\", type: NOTIFICATION, retryCount: 0}\n"+
		"        with: {event_type: x, message: relayed}\n")
	writeFile(t, dir, "agents/sender.yaml", "name: sender\ncommands:\n  - name: default\n    steps:\n      - id: tell\n"+
		"        handoff: {to: vault, type: NOTIFICATION, retryCount: 0}\n        with: {event_type: x, message: from a request}\n")
	cfg := testConfig(t, "")
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	cfg.Server.Keys = true
	base := startGateway(t, cfg, map[string]string{"AGENTGW_ADMIN_TOKENS": "admin-token"})
	admin := []string{"Authorization", "Bearer admin-token"}
	mkKey := func(body string) []string {
		t.Helper()
		var key struct{ Secret string }
		if code := jsonCall(t, "POST", base+"/keys", body, &key, admin...); code != http.StatusCreated {
			t.Fatalf("POST /keys: %d", code)
		}
		return []string{"Authorization", "Bearer " + key.Secret}
	}
	carol := mkKey(`{"user":"carol","agents":["worker","relay","sender"]}`)
	dan := mkKey(`{"user":"dan","agents":["worker/other","relay"]}`)
	wait := func(id string) handoffStatus {
		t.Helper()
		var st handoffStatus
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			jsonCall(t, "GET", base+"/handoffs/"+id, "", &st, carol...)
			if st.Status != "QUEUED" && st.Status != "RUNNING" && st.Status != "" {
				return st
			}
		}
		t.Fatalf("hand-off %s did not end: %+v", id, st)
		return st
	}
	var errBody struct {
		Content struct{ ErrorCode, Message string }
	}

	// In scope.
	var st handoffStatus
	if code := jsonCall(t, "POST", base+"/handoffs", scopedHandoff(1, "worker", "hi"), &st, carol...); code != http.StatusAccepted {
		t.Fatalf("POST /handoffs to worker: %d %+v", code, st)
	}
	if got := wait(st.MessageID); got.Status != "COMPLETED" || got.Result.Text != "worker got hi" {
		t.Fatalf("the hand-off in scope: %+v", got)
	}
	// Out of scope, directly.
	if code := jsonCall(t, "POST", base+"/handoffs", scopedHandoff(2, "vault", "hi"), &errBody, carol...); code != http.StatusForbidden ||
		errBody.Content.Message != `this key may not hand off to agent "vault" (command "default")` {
		t.Errorf("POST /handoffs to vault: %d %+v", code, errBody)
	}
	// Out of scope, through the relay: the chain stops at the relay.
	if code := jsonCall(t, "POST", base+"/handoffs", scopedHandoff(3, "relay", "vault"), &st, carol...); code != http.StatusAccepted {
		t.Fatalf("POST /handoffs to relay: %d %+v", code, st)
	}
	if got := wait(st.MessageID); got.Status != "DEAD" || !strings.Contains(got.Error, `this key may not hand off to agent "vault"`) {
		t.Errorf("the relay handing off out of scope: %+v", got)
	}
	var task struct{ Messages []handoffStatus }
	if code := jsonCall(t, "GET", base+"/tasks/task-scope-3", "", &task, admin...); code != http.StatusOK || len(task.Messages) != 1 {
		t.Errorf("the relay's task holds %d messages (%d), want its one", len(task.Messages), code)
	}
	// A request's handoff step out of scope.
	code, body := keyCall(t, "POST", base+"/agents/sender", carol[1][len("Bearer "):], `{}`)
	if code != http.StatusOK || !strings.Contains(body, `this key may not hand off to agent \"vault\"`) {
		t.Errorf("the request's handoff step out of scope: %d %s", code, body)
	}

	// Schedules.
	for _, tc := range []struct {
		body string
		want int
	}{
		{`{"name":"a","every":"1h","agent":"vault"}`, http.StatusForbidden},
		{`{"name":"b","every":"1h","agent":"worker","handoffTo":"vault"}`, http.StatusForbidden},
		{`{"name":"c","every":"1h","agent":"worker","handoffTo":"relay"}`, http.StatusCreated},
	} {
		if code := jsonCall(t, "POST", base+"/schedules", tc.body, nil, carol...); code != tc.want {
			t.Errorf("POST /schedules %s: %d, want %d", tc.body, code, tc.want)
		}
	}

	// GET /agents: dan may call worker's other command only, which takes no
	// hand-off type: worker is listed without its hand-offs.
	var list struct {
		Agents []struct {
			Name     string
			Commands []struct{ Name string }
			Handoffs []struct{ Type, Command string }
		}
	}
	if code := jsonCall(t, "GET", base+"/agents", "", &list, dan...); code != http.StatusOK || len(list.Agents) != 2 {
		t.Fatalf("GET /agents with dan's key: %d %+v", code, list)
	}
	got := fmt.Sprintf("%+v", list.Agents)
	if want := "[{Name:relay Commands:[{Name:default}] Handoffs:[{Type:NOTIFICATION Command:default}]} {Name:worker Commands:[{Name:other}] Handoffs:[]}]"; got != want {
		t.Errorf("GET /agents with dan's key:\n%s\nwant\n%s", got, want)
	}
	if code := jsonCall(t, "POST", base+"/mcp", `{}`, &errBody, carol...); code != http.StatusForbidden {
		t.Errorf("/mcp with a scoped key: %d", code)
	}
}
