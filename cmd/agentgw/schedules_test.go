package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/agent"
)

// tickerAgent answers schedules without a model, and defines one.
const tickerAgent = `name: ticker
schedules:
  - {name: from-the-agent, every: 1h, prompt: hourly, enabled: false}
commands:
  - name: default
    reply: "tick: {{ .userInputPrompt }} for {{ .userInfo.id }}"
`

// scheduleView is what GET /schedules/{id} answers, in part.
type scheduleView struct {
	ID       string     `json:"id"`
	Name     string     `json:"name"`
	Every    string     `json:"every"`
	Enabled  bool       `json:"enabled"`
	NextRun  *time.Time `json:"nextRun"`
	RunCount int64      `json:"runCount"`
	Source   string     `json:"source"`
	Runs     []runView  `json:"runs"`
}

// runView is a run as GET /schedules/{id} shows it, in part.
type runView struct {
	Status string
	Due    time.Time
	Result struct{ Agent, Command, Text string }
	Error  string
}

// waitRuns polls schedule id until it has run n times, each recorded.
func waitRuns(t *testing.T, base, id string, n int) scheduleView {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		var sc scheduleView
		jsonCall(t, "GET", base+"/schedules/"+id, "", &sc)
		done := sc.RunCount >= int64(n) && len(sc.Runs) >= n
		for _, r := range sc.Runs {
			if r.Status == "RUNNING" {
				done = false
			}
		}
		if done {
			return sc
		}
	}
	t.Fatalf("schedule %s did not run %d times", id, n)
	return scheduleView{}
}

// TestSchedules: a config schedule every second runs on its own, its whole
// output recorded, into its conversation; the API makes, runs now,
// disables and deletes schedules; a file's schedule may only be enabled or
// disabled; invalid specs are 400s; agentgw schedules lists them.
func TestSchedules(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "agents/ticker.yaml", tickerAgent)
	cfg := testConfig(t, "")
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	cfg.Scheduler.Tick = Duration(100 * time.Millisecond)
	cfg.Schedules = []*agent.ScheduleDef{{Name: "every-second", Every: "1s", Agent: "ticker", Prompt: "beat", User: "ops", ContextID: "ticks"}}
	base := startGateway(t, cfg, nil)

	var list struct{ Schedules []scheduleView }
	jsonCall(t, "GET", base+"/schedules", "", &list)
	ids := map[string]string{}
	for _, s := range list.Schedules {
		ids[s.Name] = s.ID
	}
	if len(list.Schedules) != 2 || ids["every-second"] == "" || ids["from-the-agent"] == "" {
		t.Fatalf("GET /schedules: %+v", list.Schedules)
	}
	sc := waitRuns(t, base, ids["every-second"], 2)
	sc.Runs = slices.DeleteFunc(sc.Runs, func(r runView) bool { return r.Status == "SKIPPED" }) // a slow machine
	for _, r := range sc.Runs[:2] {
		if r.Status != "SUCCESS" || r.Result.Text != "tick: beat for ops" || r.Result.Agent != "ticker" {
			t.Errorf("a run: %+v", r)
		}
	}
	if !sc.Runs[0].Due.After(sc.Runs[1].Due) {
		t.Errorf("runs not newest first, or one due twice: %v %v", sc.Runs[0].Due, sc.Runs[1].Due)
	}
	var conv struct {
		Messages []struct{ Role, Content string }
	}
	jsonCall(t, "GET", base+"/contexts/ticks", "", &conv, "X-Agentgw-User", "ops")
	if len(conv.Messages) < 4 || conv.Messages[0].Content != "beat" || conv.Messages[1].Content != "tick: beat for ops" {
		t.Errorf("the schedule's conversation: %+v", conv.Messages)
	}

	// Made at run time: run now, disable, delete.
	var made scheduleView
	if code := jsonCall(t, "POST", base+"/schedules", `{"name":"later","cron":"0 3 * * *","timezone":"Europe/Paris","agent":"ticker","prompt":"now"}`, &made); code != http.StatusCreated || made.NextRun == nil {
		t.Fatalf("POST /schedules = %d %+v", code, made)
	}
	if code := jsonCall(t, "POST", base+"/schedules/"+made.ID+"/run", "", nil); code != http.StatusAccepted {
		t.Fatalf("run now = %d", code)
	}
	if got := waitRuns(t, base, made.ID, 1); got.Runs[0].Result.Text != "tick: now for " {
		t.Errorf("the run now: %+v", got.Runs[0])
	}
	var off scheduleView
	if code := jsonCall(t, "PATCH", base+"/schedules/"+made.ID, `{"enabled":false}`, &off); code != http.StatusOK || off.Enabled || off.NextRun != nil {
		t.Fatalf("disable = %d %+v", code, off)
	}
	var refused struct{ Content struct{ ErrorCode string } }
	if code := jsonCall(t, "POST", base+"/schedules/"+made.ID+"/run", "", &refused); code != http.StatusConflict || refused.Content.ErrorCode != "CONFLICT" {
		t.Fatalf("running a disabled schedule = %d %+v", code, refused)
	}
	if code := jsonCall(t, "DELETE", base+"/schedules/"+made.ID, "", nil); code != http.StatusNoContent {
		t.Fatalf("DELETE = %d", code)
	}
	var refusal struct {
		Content struct{ ErrorCode, Message string }
	}
	for _, tc := range []struct {
		method, path, body string
		status             int
		code, message      string
	}{
		{"GET", "/schedules/" + made.ID, "", 404, "NOT_FOUND", "no schedule"},
		{"PATCH", "/schedules/" + ids["every-second"], `{"name":"every-second","every":"2s","agent":"ticker"}`, 409, "CONFLICT", "is defined in a file"},
		{"POST", "/schedules", `{"name":"bad","cron":"61 * * * *","agent":"ticker"}`, 400, "BAD_REQUEST", "cron"},
		{"POST", "/schedules", `{"name":"bad","every":"soon","agent":"ticker"}`, 400, "BAD_REQUEST", "every"},
		{"POST", "/schedules", `{"name":"bad","every":"1h","agent":"ticker","webhook":"https://example.com/x"}`, 400, "BAD_REQUEST", "webhookAllow"},
		{"POST", "/schedules", `{"name":"every-second","every":"1h","agent":"ticker"}`, 409, "CONFLICT", "exists already"},
	} {
		if code := jsonCall(t, tc.method, base+tc.path, tc.body, &refusal); code != tc.status || refusal.Content.ErrorCode != tc.code || !strings.Contains(refusal.Content.Message, tc.message) {
			t.Errorf("%s %s %s = %d %+v, want %d %s containing %q", tc.method, tc.path, tc.body, code, refusal.Content, tc.status, tc.code, tc.message)
		}
	}
	// A file's schedule can be enabled or disabled at run time.
	if code := jsonCall(t, "PATCH", base+"/schedules/"+ids["from-the-agent"], `{"enabled":true}`, &off); code != http.StatusOK || !off.Enabled || off.NextRun == nil {
		t.Fatalf("enabling the agent's schedule = %d %+v", code, off)
	}

	var stdout, stderr bytes.Buffer
	if code := run([]string{"schedules", "--url", base}, envOf(nil), nil, &stdout, &stderr); code != 0 {
		t.Fatalf("agentgw schedules = %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "NAME") || !strings.HasPrefix(lines[1], "every-second") ||
		!strings.Contains(lines[1], "every 1s") || !strings.Contains(lines[1], "SUCCESS") || !strings.Contains(lines[1], "config") ||
		!strings.HasPrefix(lines[2], "from-the-agent") || !strings.Contains(lines[2], "agents") {
		t.Errorf("agentgw schedules:\n%s", stdout.String())
	}
}

// TestLintSchedules: a schedule an agent file gets wrong is a lint error at
// its position.
func TestLintSchedules(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "bad.yaml", `name: bad
schedules:
  - {name: typo, cron: "0 25 * * *"}
  - {name: twice, every: 1h}
  - {name: twice, every: 2h}
commands: [{name: default, reply: x}]
`)
	var stdout, stderr bytes.Buffer
	code := run([]string{"lint", dir}, envOf(nil), nil, &stdout, &stderr)
	out := stdout.String() + stderr.String()
	if code != 1 || !strings.Contains(out, "bad.yaml:3:5: schedule \"typo\": schedule: cron: hour field") || !strings.Contains(out, "hour") ||
		!strings.Contains(out, "bad.yaml:5:5: schedule \"twice\" is defined twice (also at ") {
		t.Fatalf("lint = %d\n%s", code, out)
	}
}

// TestScheduleTargets: a schedule whose target is a tool (an http tool
// here), whose result is handed to an agent and POSTed to an allowed
// webhook.
func TestScheduleTargets(t *testing.T) {
	var mu sync.Mutex
	var toolCalls, hooks []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		if r.URL.Path == "/hook" {
			hooks = append(hooks, string(body))
			return
		}
		toolCalls = append(toolCalls, string(body))
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"pong":true}`)
	}))
	defer srv.Close()
	dir := t.TempDir()
	writeFile(t, dir, "agents/pinger.yaml", `name: pinger
tools:
  - {name: ping, description: Pings, runtime: http, entry: "`+srv.URL+`/ping", parameters: {type: object, properties: {n: {type: integer}}}}
commands: [{name: default, reply: unused}]
`)
	writeFile(t, dir, "agents/notified.yaml", "name: notified\nhandoffs: [{type: NOTIFICATION}]\ncommands: [{name: default, reply: \"got {{ .handoff.payload.data.message }}\"}]\n")
	cfg := testConfig(t, "")
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	cfg.Tools.HTTPAllow = []string{srv.URL + "/"}
	cfg.Scheduler.Tick = Duration(100 * time.Millisecond)
	cfg.Scheduler.WebhookAllow = []string{srv.URL + "/hook"}
	cfg.Schedules = []*agent.ScheduleDef{{Name: "pings", Every: "1h", Agent: "pinger", Tool: "ping", Params: map[string]any{"n": 1},
		HandoffTo: "notified", Webhook: srv.URL + "/hook"}}
	base := startGateway(t, cfg, nil)

	var list struct{ Schedules []scheduleView }
	jsonCall(t, "GET", base+"/schedules", "", &list)
	if code := jsonCall(t, "POST", base+"/schedules/"+list.Schedules[0].ID+"/run", "", nil); code != http.StatusAccepted {
		t.Fatalf("run now = %d", code)
	}
	var sc struct {
		Runs []struct {
			Status string
			Error  string
			Result struct {
				Tool      string
				Output    map[string]any
				HandoffID string
				Webhook   int
			}
		}
	}
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		jsonCall(t, "GET", base+"/schedules/"+list.Schedules[0].ID, "", &sc)
		if len(sc.Runs) == 1 && sc.Runs[0].Status != "RUNNING" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no run: %+v", sc)
		}
	}
	r := sc.Runs[0]
	if r.Status != "SUCCESS" || r.Result.Tool != "ping" || r.Result.Output["pong"] != true || r.Result.Webhook != 200 || r.Result.HandoffID == "" {
		t.Fatalf("the run: %+v", r)
	}
	mu.Lock()
	if len(toolCalls) != 1 || !strings.Contains(toolCalls[0], `"n":1`) || len(hooks) != 1 || !strings.Contains(hooks[0], `"schedule":"pings"`) ||
		!strings.Contains(hooks[0], `"pong":true`) {
		t.Errorf("tool calls %q, webhooks %q", toolCalls, hooks)
	}
	mu.Unlock()
	var st handoffStatus
	for deadline := time.Now().Add(15 * time.Second); st.Status != "COMPLETED"; time.Sleep(50 * time.Millisecond) {
		jsonCall(t, "GET", base+"/handoffs/"+r.Result.HandoffID, "", &st)
		if time.Now().After(deadline) {
			t.Fatalf("the hand-off: %+v", st)
		}
	}
	if st.Result.Agent != "notified" || st.Result.Text != `got {"pong":true}` {
		t.Errorf("the hand-off's result: %+v", st.Result)
	}
}
