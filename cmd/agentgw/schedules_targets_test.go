package main

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentgw/agentgw/agent"
)

// TestScheduleUnknownTargets: POST /schedules, and a whole definition by
// PATCH, naming an agent, command or tool the gateway does not have is a
// 400 BAD_REQUEST naming the field (README "Schedules": 400 for an invalid
// target), not a 201 whose runs all fail; nothing is stored or changed.
func TestScheduleUnknownTargets(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "agents/ticker.yaml", tickerAgent)
	cfg := testConfig(t, "")
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	base := startGateway(t, cfg, nil)

	type refusal struct {
		Content struct {
			ErrorCode string `json:"errorCode"`
			Message   string `json:"message"`
			Details   struct {
				Violations []agent.Violation `json:"violations"`
			} `json:"details"`
		} `json:"content"`
	}
	tests := []struct {
		body, message string
		violation     agent.Violation
	}{
		{`{"name":"x","every":"1h","agent":"tickr"}`, `schedule "x": agent: no agent "tickr"; did you mean "ticker"?`,
			agent.Violation{Pointer: "/agent", Message: `no agent "tickr"; did you mean "ticker"?`}},
		{`{"name":"x","every":"1h","agent":"ticker","command":"review"}`, `schedule "x": command: agent "ticker" has no command "review"`,
			agent.Violation{Pointer: "/command", Message: `agent "ticker" has no command "review"`}},
		{`{"name":"x","every":"1h","agent":"ticker","tool":"git.log"}`, `schedule "x": tool: agent "ticker" has no tool "git.log"`,
			agent.Violation{Pointer: "/tool", Message: `agent "ticker" has no tool "git.log"`}},
	}
	var made scheduleView
	if code := jsonCall(t, "POST", base+"/schedules", `{"name":"x","every":"1h","agent":"ticker","prompt":"p"}`, &made); code != http.StatusCreated {
		t.Fatalf("POST a valid schedule = %d", code)
	}
	for _, tt := range tests {
		for _, call := range []struct{ method, path, body string }{
			{"POST", "/schedules", `{"name":"y"` + tt.body[len(`{"name":"x"`):]},
			{"PATCH", "/schedules/" + made.ID, tt.body},
		} {
			var r refusal
			code := jsonCall(t, call.method, base+call.path, call.body, &r)
			msg := tt.message
			if call.method == "POST" {
				msg = `schedule "y"` + tt.message[len(`schedule "x"`):]
			}
			if code != http.StatusBadRequest || r.Content.ErrorCode != agent.CodeBadRequest || r.Content.Message != msg ||
				len(r.Content.Details.Violations) != 1 || r.Content.Details.Violations[0] != tt.violation {
				t.Errorf("%s %s %s = %d %+v, want 400 BAD_REQUEST %q at %s", call.method, call.path, call.body, code, r.Content, msg, tt.violation.Pointer)
			}
		}
	}
	var list struct{ Schedules []json.RawMessage }
	jsonCall(t, "GET", base+"/schedules", "", &list)
	var got struct {
		Name   string
		Target map[string]any
	}
	for _, raw := range list.Schedules {
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		if got.Name == "y" {
			t.Errorf("a refused schedule was stored: %s", raw)
		}
		if got.Name == "x" && (got.Target["agent"] != "ticker" || got.Target["command"] != nil || got.Target["tool"] != nil) {
			t.Errorf("the schedule after refused PATCHes: %s", raw)
		}
	}
}

// TestScheduleOnceDisabled: a once schedule that ran is stored disabled,
// and GET /schedules/{id} says so (it used to stay enabled).
func TestScheduleOnceDisabled(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "agents/ticker.yaml", tickerAgent)
	cfg := testConfig(t, "")
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	cfg.Scheduler.Tick = Duration(100 * time.Millisecond)
	base := startGateway(t, cfg, nil)

	at := time.Now().Add(time.Second).UTC().Format(time.RFC3339Nano)
	var made scheduleView
	if code := jsonCall(t, "POST", base+"/schedules", `{"name":"remind","once":"`+at+`","agent":"ticker","prompt":"now"}`, &made); code != http.StatusCreated || !made.Enabled {
		t.Fatalf("POST = %d %+v", code, made)
	}
	sc := waitRuns(t, base, made.ID, 1)
	if sc.Enabled || sc.NextRun != nil || sc.Runs[0].Status != "SUCCESS" || sc.Runs[0].Result.Text != "tick: now for " {
		t.Errorf("the once schedule after its run: enabled %v, next %v, runs %+v; want disabled, no next run, one SUCCESS", sc.Enabled, sc.NextRun, sc.Runs)
	}
}
