package agentrun

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/internal/pgtest"
	"github.com/agentgw/agentgw/schedule"
	"github.com/agentgw/agentgw/store/pgstore"
	"github.com/agentgw/agentgw/store/sqlitestore"
	"github.com/agentgw/agentgw/tools"
	"github.com/agentgw/agentgw/tools/toolload"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// toolsAgent defines one tool of each kind a schedule may or may not call;
// %UNATTENDED% is the ok tool's unattended flag.
const toolsAgent = `name: tooled
tools:
  - {name: ok, description: counts, runtime: builtin, entry: count, export: true, unattended: %UNATTENDED%,
     parameters: {type: object, properties: {n: {type: integer}}, additionalProperties: false}}
  - {name: consent, description: counts, runtime: builtin, entry: count, export: true, unattended: true, permissionLevel: USER_CONSENT}
  - {name: hidden, description: counts, runtime: builtin, entry: count, unattended: true}
  - {name: plain, description: counts, runtime: builtin, entry: count, export: true}
  - {name: front, description: asks the IDE, runtime: frontend, unattended: true}
commands: [{name: default, reply: hi}]
`

// fixture is an API and a scheduler over a store, with the agent
// toolsAgent whose tools count their calls in calls.
type fixture struct {
	api   *API
	reg   *program.Registry
	tm    *tools.Manager
	dir   string
	calls *atomic.Int64
	// budget is the runs' budget: it refuses the owner "team:spent".
	budget *fakeBudget
	// runs run the schedules: a test may set its Handoffs before a run.
	runs *Runs
	// revoked are the ids of the keys the runs' key check finds revoked.
	keysMu  sync.Mutex
	revoked map[string]bool
}

// load (re)loads toolsAgent with the ok tool's unattended flag.
func (f *fixture) load(t *testing.T, unattended bool) []*program.Agent {
	t.Helper()
	flag := "false"
	if unattended {
		flag = "true"
	}
	if err := os.WriteFile(filepath.Join(f.dir, "tooled.yaml"), []byte(strings.ReplaceAll(toolsAgent, "%UNATTENDED%", flag)), 0o644); err != nil {
		t.Fatal(err)
	}
	agents, diags := program.LoadWith(program.LoadOptions{Tools: toolload.Compiler{Manager: f.tm}}, f.dir)
	if diags.Errors() > 0 || len(agents) != 1 {
		t.Fatalf("loading: %v", diags)
	}
	return agents
}

func newFixture(t *testing.T, backend string, limits Limits) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{dir: t.TempDir(), calls: &atomic.Int64{}, budget: &fakeBudget{}}
	f.tm = tools.NewManager(tools.Config{Builtins: map[string]tools.BuiltinFunc{
		"count": func(context.Context, map[string]any) (any, error) { return f.calls.Add(1), nil },
	}})
	f.reg = program.NewRegistry(f.load(t, true))
	r := runner.NewRunner(f.reg, runner.RunnerConfig{})
	var st *schedule.Store
	var err error
	if backend == "postgres" {
		p, perr := pgstore.Open(ctx, pgtest.Schema(t))
		if perr != nil {
			t.Fatal(perr)
		}
		t.Cleanup(func() { _ = p.Close() })
		st, err = schedule.NewPostgres(ctx, p.Pool(), schedule.Options{})
	} else {
		s, serr := sqlitestore.Open(filepath.Join(t.TempDir(), "s.db"))
		if serr != nil {
			t.Fatal(serr)
		}
		t.Cleanup(func() { _ = s.Close() })
		st, err = schedule.NewSQLite(ctx, s.DB(), schedule.Options{})
	}
	if err != nil {
		t.Fatal(err)
	}
	// Every key is live but those revoked names.
	f.revoked = map[string]bool{}
	runs := &Runs{Runner: r, Budget: f.budget, Keys: func(_ context.Context, id string) (bool, error) {
		f.keysMu.Lock()
		defer f.keysMu.Unlock()
		return !f.revoked[id], nil
	}}
	f.runs = runs
	sched, err := schedule.New(st, schedule.Config{Runner: runs.Run})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sched.Stop(context.Background()) })
	f.api = &API{Store: st, Scheduler: sched, Registry: f.reg, Limits: limits}
	return f
}

func eachBackend(t *testing.T, test func(t *testing.T, backend string)) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) { test(t, b) })
	}
}

// code is err's protocol error code, "" when it has none.
func code(err error) string {
	var e *apierr.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// runNow runs schedule id now as who and waits for its outcome.
func (f *fixture) runNow(t *testing.T, who access.Caller, id string) (schedule.Run, Result) {
	t.Helper()
	run, err := f.api.RunNow(context.Background(), who, id)
	if err != nil {
		t.Fatalf("RunNow: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if run, err = f.api.Scheduler.Wait(ctx, run.ID); err != nil {
		t.Fatal(err)
	}
	var res Result
	if len(run.Result) > 0 {
		if err := json.Unmarshal(run.Result, &res); err != nil {
			t.Fatal(err)
		}
	}
	return run, res
}

// TestUnattendedTools: a schedule made over the API may name only a tool
// the operator marked unattended (and exported, AUTO, not frontend), with
// parameters its schema accepts; otherwise 422 and nothing stored or run.
// The check is made again at each run: a tool no longer unattended fails
// the run with TOOL_NOT_UNATTENDED and does not run. The operator's
// schedules may name any tool.
func TestUnattendedTools(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		ctx := context.Background()
		f := newFixture(t, backend, Limits{})
		who := access.Caller{Owner: "token:a"}
		for _, tc := range []struct {
			body, code, msg string
		}{
			{`{"name":"c","every":"1h","agent":"tooled","tool":"consent"}`, apierr.CodeToolNotUnattended, "USER_CONSENT"},
			{`{"name":"h","every":"1h","agent":"tooled","tool":"hidden"}`, apierr.CodeToolNotUnattended, "not exported"},
			{`{"name":"p","every":"1h","agent":"tooled","tool":"plain"}`, apierr.CodeToolNotUnattended, "unattended: true"},
			{`{"name":"f","every":"1h","agent":"tooled","tool":"front"}`, apierr.CodeToolNotUnattended, "frontend"},
			{`{"name":"n","every":"1h","agent":"tooled","tool":"none"}`, apierr.CodeBadRequest, `no tool "none"`},
			{`{"name":"a","every":"1h","agent":"nobody","tool":"ok"}`, apierr.CodeBadRequest, "nobody"},
			{`{"name":"t","every":"1h","agent":"tooled","tool":"ok","params":{"n":"x"}}`, apierr.CodeInvalidParameters, "n"},
			{`{"name":"u","every":"1h","agent":"tooled","tool":"ok","params":{"exec":"sh -c 'id'"}}`, apierr.CodeInvalidParameters, "exec"},
		} {
			_, err := f.api.Create(ctx, who, []byte(tc.body))
			var e *apierr.Error
			if !errors.As(err, &e) || e.Code != tc.code || !strings.Contains(e.Message, tc.msg) {
				t.Errorf("Create(%s) = %v, want %s containing %q", tc.body, err, tc.code, tc.msg)
			} else if want := map[bool]int{true: 400, false: 422}[tc.code == apierr.CodeBadRequest]; e.Status != want {
				t.Errorf("Create(%s): status %d, want %d", tc.body, e.Status, want)
			}
		}
		if l, _ := f.api.List(ctx, access.Caller{Admin: true}); len(l) != 0 {
			t.Errorf("refused schedules were stored: %d", len(l))
		}

		sc, err := f.api.Create(ctx, who, []byte(`{"name":"ok","every":"1h","agent":"tooled","tool":"ok","params":{"n":1}}`))
		if err != nil {
			t.Fatal(err)
		}
		if run, res := f.runNow(t, who, sc.ID); run.Status != schedule.StatusSuccess || f.calls.Load() != 1 {
			t.Fatalf("a run of an unattended tool: %+v %+v, %d calls", run, res, f.calls.Load())
		}
		// The operator takes unattended away: the next run fails, and the tool does not run.
		f.reg.Swap(f.load(t, false))
		run, res := f.runNow(t, who, sc.ID)
		if run.Status != schedule.StatusFailed || res.Error == nil || res.Error.Code != apierr.CodeToolNotUnattended ||
			!strings.Contains(run.Error, "unattended") || f.calls.Load() != 1 {
			t.Errorf("a run after unattended was taken away: %+v, result %+v, %d calls", run, res.Error, f.calls.Load())
		}
		// The operator's own schedules name any tool.
		static, err := FromDef(&agent.ScheduleDef{Name: "op", Every: "1h", Tool: "plain"}, "tooled")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.api.Store.Sync(ctx, "config", []schedule.Schedule{static}); err != nil {
			t.Fatal(err)
		}
		op, err := f.api.Store.GetByName(ctx, "op")
		if err != nil {
			t.Fatal(err)
		}
		if run, res := f.runNow(t, access.Caller{Admin: true}, op.ID); run.Status != schedule.StatusSuccess || f.calls.Load() != 2 {
			t.Errorf("the operator's schedule of a tool: %+v %+v", run, res)
		}
	})
}

// TestUnknownTargets: a schedule made over the API (POST, or a whole
// definition by PATCH) that names an agent, command or tool this gateway
// does not have is refused with 400 BAD_REQUEST naming the field (it used
// to be stored and fail at every run); nothing is stored or changed.
func TestUnknownTargets(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		ctx := context.Background()
		f := newFixture(t, backend, Limits{})
		who := access.Caller{Owner: "token:a"}
		tests := []struct {
			body, msg string
			v         apierr.Violation
		}{
			{`{"name":"a","every":"1h","agent":"toled"}`, `schedule "a": agent: no agent "toled"; did you mean "tooled"?`,
				apierr.Violation{Pointer: "/agent", Message: `no agent "toled"; did you mean "tooled"?`}},
			{`{"name":"c","every":"1h","agent":"tooled","command":"defalt"}`, `schedule "c": command: agent "tooled" has no command "defalt"; did you mean "default"?`,
				apierr.Violation{Pointer: "/command", Message: `agent "tooled" has no command "defalt"; did you mean "default"?`}},
			{`{"name":"t","every":"1h","agent":"tooled","tool":"nothing"}`, `schedule "t": tool: agent "tooled" has no tool "nothing"`,
				apierr.Violation{Pointer: "/tool", Message: `agent "tooled" has no tool "nothing"`}},
		}
		for _, tt := range tests {
			_, err := f.api.Create(ctx, who, []byte(tt.body))
			var e *apierr.Error
			if !errors.As(err, &e) || e.Code != apierr.CodeBadRequest || e.Status != 400 || e.Message != tt.msg ||
				len(e.Violations) != 1 || e.Violations[0] != tt.v {
				t.Errorf("Create(%s) = %#v, want 400 BAD_REQUEST %q at %s", tt.body, err, tt.msg, tt.v.Pointer)
			}
		}
		if l, _ := f.api.List(ctx, access.Caller{Admin: true}); len(l) != 0 {
			t.Errorf("refused schedules were stored: %+v", l)
		}
		// A whole definition by PATCH is checked the same; the stored one stays.
		sc, err := f.api.Create(ctx, who, []byte(`{"name":"ok","every":"1h","agent":"tooled"}`))
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range tests {
			body := strings.Replace(tt.body, `"name":"`+tt.msg[10:11]+`"`, `"name":"ok"`, 1)
			_, err := f.api.Patch(ctx, who, sc.ID, []byte(body))
			want := strings.Replace(tt.msg, `schedule "`+tt.msg[10:11]+`"`, `schedule "ok"`, 1)
			var e *apierr.Error
			if !errors.As(err, &e) || e.Status != 400 || e.Message != want {
				t.Errorf("Patch(%s) = %v, want 400 %q", body, err, want)
			}
		}
		got, err := f.api.Get(ctx, who, sc.ID)
		if err != nil || string(got.Target) != `{"agent":"tooled"}` {
			t.Errorf("the schedule after refused PATCHes: %s, %v", got.Target, err)
		}
	})
}

// TestLimits: schedules made over the API are bounded per owner
// (SCHEDULE_QUOTA_EXCEEDED, 409) and in frequency
// (SCHEDULE_TOO_FREQUENT, 422), at creation and at a PATCH.
func TestLimits(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		ctx := context.Background()
		f := newFixture(t, backend, Limits{MaxPerOwner: 2, MinInterval: 5 * time.Minute})
		a, b := access.Caller{Owner: "token:a"}, access.Caller{Owner: "token:b"}
		for _, body := range []string{
			`{"name":"x","every":"1s","agent":"tooled"}`,
			`{"name":"x","every":"4m59s","agent":"tooled"}`,
			`{"name":"x","cron":"* * * * *","agent":"tooled"}`,
			`{"name":"x","cron":"0,3 9 * * *","agent":"tooled"}`,
		} {
			if _, err := f.api.Create(ctx, a, []byte(body)); code(err) != apierr.CodeScheduleTooFrequent || err.(*apierr.Error).Status != 422 {
				t.Errorf("Create(%s) = %v, want SCHEDULE_TOO_FREQUENT", body, err)
			}
		}
		first, err := f.api.Create(ctx, a, []byte(`{"name":"a1","every":"5m","agent":"tooled"}`))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.api.Create(ctx, a, []byte(`{"name":"a2","cron":"*/5 * * * *","agent":"tooled"}`)); err != nil {
			t.Fatal(err)
		}
		_, err = f.api.Create(ctx, a, []byte(`{"name":"a3","once":"2099-01-01T00:00:00Z","agent":"tooled"}`))
		if code(err) != apierr.CodeScheduleQuota || err.(*apierr.Error).Status != 409 {
			t.Errorf("a third schedule: %v, want SCHEDULE_QUOTA_EXCEEDED", err)
		}
		if _, err := f.api.Create(ctx, b, []byte(`{"name":"b1","every":"1h","agent":"tooled"}`)); err != nil {
			t.Errorf("another owner's first schedule: %v", err)
		}
		if _, err := f.api.Patch(ctx, a, first.ID, []byte(`{"name":"a1","every":"1s","agent":"tooled"}`)); code(err) != apierr.CodeScheduleTooFrequent {
			t.Errorf("PATCH to every 1s: %v, want SCHEDULE_TOO_FREQUENT", err)
		}
		// The operator's files are bound by neither.
		var defs []schedule.Schedule
		for _, n := range []string{"s1", "s2", "s3"} {
			sc, err := FromDef(&agent.ScheduleDef{Name: n, Every: "1s"}, "tooled")
			if err != nil {
				t.Fatal(err)
			}
			defs = append(defs, sc)
		}
		if _, err := f.api.Store.Sync(ctx, "config", defs); err != nil {
			t.Errorf("the operator's schedules: %v", err)
		}
	})
}

// TestOwnership: a schedule is its creator's: another caller gets
// NOT_FOUND for it on every call and does not list it; an admin sees and
// runs all; the operator's are listed to admins only.
func TestOwnership(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		ctx := context.Background()
		f := newFixture(t, backend, Limits{})
		a, b, admin := access.Caller{Owner: "token:a"}, access.Caller{Owner: "token:b"}, access.Caller{Owner: "token:adm", Admin: true}
		sc, err := f.api.Create(ctx, a, []byte(`{"name":"mine","every":"1h","agent":"tooled"}`))
		if err != nil || sc.Owner != "token:a" {
			t.Fatalf("Create: %+v, %v", sc, err)
		}
		static, _ := FromDef(&agent.ScheduleDef{Name: "op", Every: "1h"}, "tooled")
		if _, err := f.api.Store.Sync(ctx, "config", []schedule.Schedule{static}); err != nil {
			t.Fatal(err)
		}
		names := func(who access.Caller) []string {
			l, err := f.api.List(ctx, who)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, s := range l {
				out = append(out, s.Name)
			}
			return out
		}
		if got := strings.Join(names(a), ","); got != "mine" {
			t.Errorf("A lists %q", got)
		}
		if got := strings.Join(names(b), ","); got != "" {
			t.Errorf("B lists %q", got)
		}
		if got := strings.Join(names(admin), ","); got != "mine,op" {
			t.Errorf("the admin lists %q", got)
		}
		calls := map[string]func(access.Caller) error{
			"Get": func(w access.Caller) error { _, err := f.api.Get(ctx, w, sc.ID); return err },
			"Patch": func(w access.Caller) error {
				_, err := f.api.Patch(ctx, w, sc.ID, []byte(`{"enabled":false}`))
				return err
			},
			"Run":    func(w access.Caller) error { _, err := f.api.RunNow(ctx, w, sc.ID); return err },
			"Delete": func(w access.Caller) error { return f.api.Delete(ctx, w, sc.ID) },
		}
		for name, call := range calls {
			if err := call(b); code(err) != apierr.CodeNotFound {
				t.Errorf("B's %s of A's schedule: %v, want NOT_FOUND", name, err)
			}
		}
		if got, err := f.api.Get(ctx, a, sc.ID); err != nil || !got.Enabled {
			t.Errorf("A's schedule after B's attempts: %+v, %v", got, err)
		}
		if _, err := f.api.Get(ctx, a, schedule.StaticID("config", "op")); code(err) != apierr.CodeNotFound {
			t.Errorf("A reads the operator's schedule: %v", err)
		}
		if _, err := f.api.Get(ctx, admin, sc.ID); err != nil {
			t.Errorf("the admin reads A's schedule: %v", err)
		}
		if err := f.api.Delete(ctx, admin, sc.ID); err != nil {
			t.Errorf("the admin deletes A's schedule: %v", err)
		}
	})
}
