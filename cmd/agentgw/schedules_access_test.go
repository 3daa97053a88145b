package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/configs"
)

// apiError is the error body of an API call, in part.
type apiError struct {
	Content struct{ ErrorCode, Message string }
}

// waitRun polls schedule id, as the caller of header, until its newest
// run is no longer RUNNING, and returns it.
func waitRun(t *testing.T, base, id string, header ...string) runView {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var sc scheduleView
		jsonCall(t, "GET", base+"/schedules/"+id, "", &sc, header...)
		if len(sc.Runs) > 0 && sc.Runs[0].Status != "RUNNING" {
			return sc.Runs[0]
		}
	}
	t.Fatalf("schedule %s: no run finished", id)
	return runView{}
}

// TestScheduleToolAttack: issue 24's attack, against the test fixer in a
// real Go project: a schedule made over the API that calls run_tests (a
// USER_CONSENT tool, not unattended) with an undeclared exec parameter is
// refused with 422 TOOL_NOT_UNATTENDED, nothing is stored, and the file
// the injected command would write never appears.
func TestScheduleToolAttack(t *testing.T) {
	project := t.TempDir()
	fixer, err := configs.FS.ReadFile("agents/fixer.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		"go.mod":            "module victim\n\ngo 1.26\n",
		"v_test.go":         "package victim\n\nimport \"testing\"\n\nfunc TestV(t *testing.T) {}\n",
		"agents/fixer.yaml": string(fixer),
	} {
		p := filepath.Join(project, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := testConfig(t, "")
	cfg.Agents = []string{filepath.Join(project, "agents")}
	cfg.Tools.WorkRoots = []string{project}
	cfg.Scheduler.Tick = Duration(100 * time.Millisecond)
	setWorkdir(t, filepath.Join(project, "agents", "fixer.yaml"), "..")
	env := map[string]string{}
	for _, k := range []string{"PATH", "HOME", "GOPATH", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOPROXY"} {
		env[k] = os.Getenv(k)
	}
	base := startGateway(t, cfg, env)

	pwned := filepath.Join(t.TempDir(), "p")
	body := fmt.Sprintf(`{"name":"x","every":"24h","agent":"fixer","tool":"run_tests","params":{"exec":"sh -c 'id > %s'"}}`, pwned)
	var made struct {
		ID string
		apiError
	}
	code := jsonCall(t, "POST", base+"/schedules", body, &made)
	if code == http.StatusCreated { // the old gateway: run it, as the attacker would
		jsonCall(t, "POST", base+"/schedules/"+made.ID+"/run", "", nil)
		waitRun(t, base, made.ID)
	}
	if _, err := os.Stat(pwned); !os.IsNotExist(err) {
		t.Errorf("the injected command ran: %s exists (%v)", pwned, err)
	}
	if code != http.StatusUnprocessableEntity || made.Content.ErrorCode != apierr.CodeToolNotUnattended ||
		!strings.Contains(made.Content.Message, `"run_tests"`) {
		t.Errorf("POST /schedules = %d %+v, want 422 %s naming run_tests", code, made.Content, apierr.CodeToolNotUnattended)
	}
	var list struct{ Schedules []scheduleView }
	jsonCall(t, "GET", base+"/schedules", "", &list)
	for _, sc := range list.Schedules {
		if sc.Source == "" {
			t.Errorf("a refused schedule was stored: %+v", sc)
		}
	}
}

// TestScheduleOwnership: with inbound auth, a schedule belongs to the token
// that made it. Token B neither lists nor reads, changes, runs or deletes
// token A's (404 each time); an admin token sees and changes every
// schedule, the operator's too; a run acts as its creator, so B's schedule
// naming A's conversation fails and leaves it untouched, while A's writes
// into it.
func TestScheduleOwnership(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "agents/ticker.yaml", tickerAgent)
	cfg := testConfig(t, "")
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	cfg.Scheduler.Tick = Duration(100 * time.Millisecond)
	cfg.Schedules = []*agent.ScheduleDef{{Name: "op-sched", Every: "1h", Agent: "ticker", Prompt: "operator"}}
	base := startGateway(t, cfg, map[string]string{"AGENTGW_TOKENS": "tok-a,tok-b", "AGENTGW_ADMIN_TOKENS": "tok-admin"})
	tokA, tokB, tokAdmin := []string{"Authorization", "Bearer tok-a"}, []string{"Authorization", "Bearer tok-b"}, []string{"Authorization", "Bearer tok-admin"}

	if code := jsonCall(t, "POST", base+"/contexts", `{"contextId":"a-conv"}`, nil, tokA...); code != http.StatusCreated {
		t.Fatalf("A's conversation: %d", code)
	}
	var a, b scheduleView
	if code := jsonCall(t, "POST", base+"/schedules", `{"name":"a-sched","every":"1h","agent":"ticker","prompt":"from a","user":"alice","contextId":"a-conv"}`, &a, tokA...); code != http.StatusCreated {
		t.Fatalf("A's schedule: %d", code)
	}
	// B names A's conversation (and a user): accepted, but its run acts as B.
	if code := jsonCall(t, "POST", base+"/schedules", `{"name":"b-sched","every":"1h","agent":"ticker","prompt":"from b","user":"alice","contextId":"a-conv"}`, &b, tokB...); code != http.StatusCreated {
		t.Fatalf("B's schedule: %d", code)
	}

	names := func(header []string) []string {
		var list struct{ Schedules []scheduleView }
		if code := jsonCall(t, "GET", base+"/schedules", "", &list, header...); code != http.StatusOK {
			t.Fatalf("GET /schedules: %d", code)
		}
		var out []string
		for _, sc := range list.Schedules {
			out = append(out, sc.Name)
		}
		return out
	}
	for _, tc := range []struct {
		who    string
		header []string
		want   []string
	}{
		{"A", tokA, []string{"a-sched"}},
		{"B", tokB, []string{"b-sched"}},
		{"admin", tokAdmin, []string{"a-sched", "b-sched", "from-the-agent", "op-sched"}},
	} {
		if got := names(tc.header); !slices.Equal(got, tc.want) {
			t.Errorf("%s lists %v, want %v", tc.who, got, tc.want)
		}
	}

	var refusal apiError
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/schedules/" + a.ID, ""},
		{"PATCH", "/schedules/" + a.ID, `{"enabled":false}`},
		{"PATCH", "/schedules/" + a.ID, `{"name":"a-sched","every":"1h","agent":"ticker","prompt":"hijacked"}`},
		{"POST", "/schedules/" + a.ID + "/run", ""},
		{"DELETE", "/schedules/" + a.ID, ""},
		{"GET", "/schedules/" + cfgScheduleID(t, base, tokAdmin, "op-sched"), ""},
		{"DELETE", "/schedules/" + cfgScheduleID(t, base, tokAdmin, "op-sched"), ""},
	} {
		refusal = apiError{}
		if code := jsonCall(t, tc.method, base+tc.path, tc.body, &refusal, tokB...); code != http.StatusNotFound || refusal.Content.ErrorCode != apierr.CodeNotFound {
			t.Errorf("B: %s %s = %d %+v, want 404 NOT_FOUND", tc.method, tc.path, code, refusal.Content)
		}
	}
	var still scheduleView
	if code := jsonCall(t, "GET", base+"/schedules/"+a.ID, "", &still, tokA...); code != http.StatusOK || !still.Enabled || still.RunCount != 0 {
		t.Errorf("A's schedule after B's attempts: %d %+v", code, still)
	}

	// B's run may not write into A's conversation.
	if code := jsonCall(t, "POST", base+"/schedules/"+b.ID+"/run", "", nil, tokB...); code != http.StatusAccepted {
		t.Fatalf("B runs its schedule: %d", code)
	}
	if r := waitRun(t, base, b.ID, tokB...); r.Status != "FAILED" || !strings.Contains(r.Error, apierr.CodeContextNotFound) {
		t.Errorf("B's run into A's conversation: %+v, want FAILED with %s", r, apierr.CodeContextNotFound)
	}
	// A's may.
	if code := jsonCall(t, "POST", base+"/schedules/"+a.ID+"/run", "", nil, tokA...); code != http.StatusAccepted {
		t.Fatalf("A runs its schedule: %d", code)
	}
	if r := waitRun(t, base, a.ID, tokA...); r.Status != "SUCCESS" || r.Result.Text != "tick: from a for alice" {
		t.Errorf("A's run: %+v", r)
	}
	var conv struct {
		Messages []struct{ Role, Content string }
	}
	jsonCall(t, "GET", base+"/contexts/a-conv", "", &conv, tokA...)
	var contents []string
	for _, m := range conv.Messages {
		contents = append(contents, m.Content)
	}
	if !slices.Equal(contents, []string{"from a", "tick: from a for alice"}) {
		t.Errorf("A's conversation: %q", contents)
	}

	// The admin sees and changes everyone's.
	if code := jsonCall(t, "GET", base+"/schedules/"+a.ID, "", nil, tokAdmin...); code != http.StatusOK {
		t.Errorf("the admin reads A's schedule: %d", code)
	}
	if code := jsonCall(t, "PATCH", base+"/schedules/"+cfgScheduleID(t, base, tokAdmin, "op-sched"), `{"enabled":false}`, nil, tokAdmin...); code != http.StatusOK {
		t.Errorf("the admin disables the operator's schedule: %d", code)
	}
	if code := jsonCall(t, "DELETE", base+"/schedules/"+b.ID, "", nil, tokAdmin...); code != http.StatusNoContent {
		t.Errorf("the admin deletes B's schedule: %d", code)
	}
}

// cfgScheduleID is the id of the schedule named name, as an admin lists it.
func cfgScheduleID(t *testing.T, base string, admin []string, name string) string {
	t.Helper()
	var list struct{ Schedules []scheduleView }
	jsonCall(t, "GET", base+"/schedules", "", &list, admin...)
	for _, sc := range list.Schedules {
		if sc.Name == name {
			return sc.ID
		}
	}
	t.Fatalf("no schedule %s", name)
	return ""
}

// TestScheduleLimits: with the defaults, a caller's schedule every second
// is 422 SCHEDULE_TOO_FREQUENT, and its 21st schedule 409
// SCHEDULE_QUOTA_EXCEEDED, while another caller may still make one.
func TestScheduleLimits(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "agents/ticker.yaml", tickerAgent)
	cfg := testConfig(t, "")
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	base := startGateway(t, cfg, map[string]string{"AGENTGW_TOKENS": "tok-a,tok-b"})
	tokA, tokB := []string{"Authorization", "Bearer tok-a"}, []string{"Authorization", "Bearer tok-b"}

	var refusal apiError
	for _, body := range []string{
		`{"name":"fast","every":"1s","agent":"ticker"}`,
		`{"name":"fast","every":"59s","agent":"ticker"}`,
	} {
		if code := jsonCall(t, "POST", base+"/schedules", body, &refusal, tokA...); code != http.StatusUnprocessableEntity ||
			refusal.Content.ErrorCode != apierr.CodeScheduleTooFrequent || !strings.Contains(refusal.Content.Message, "scheduler.minInterval") {
			t.Errorf("POST %s = %d %+v, want 422 %s", body, code, refusal.Content, apierr.CodeScheduleTooFrequent)
		}
	}
	for i := range 20 {
		if code := jsonCall(t, "POST", base+"/schedules", fmt.Sprintf(`{"name":"s%d","every":"1m","agent":"ticker","enabled":false}`, i), nil, tokA...); code != http.StatusCreated {
			t.Fatalf("schedule %d: %d", i, code)
		}
	}
	refusal = apiError{}
	if code := jsonCall(t, "POST", base+"/schedules", `{"name":"s20","every":"1h","agent":"ticker"}`, &refusal, tokA...); code != http.StatusConflict ||
		refusal.Content.ErrorCode != apierr.CodeScheduleQuota {
		t.Errorf("the 21st schedule: %d %+v, want 409 %s", code, refusal.Content, apierr.CodeScheduleQuota)
	}
	if code := jsonCall(t, "POST", base+"/schedules", `{"name":"b0","every":"1h","agent":"ticker"}`, nil, tokB...); code != http.StatusCreated {
		t.Errorf("another caller's first schedule: %d", code)
	}
}
