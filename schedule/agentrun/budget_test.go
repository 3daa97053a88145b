package agentrun

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/schedule"
)

// fakeBudget is an observe.Budget that refuses the owner "team:spent"
// with BUDGET_EXCEEDED and notes every reservation and release.
type fakeBudget struct {
	mu   sync.Mutex
	seen []string
}

func (b *fakeBudget) note(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seen = append(b.seen, s)
}

func (b *fakeBudget) notes() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.seen
	b.seen = nil
	return out
}

// Reserve implements observe.Budget.
func (b *fakeBudget) Reserve(ctx context.Context, source, owner, _ string, size int64) (context.Context, func(), error) {
	b.note("reserve " + source + " " + owner)
	if size <= 0 {
		b.note("no size")
	}
	if owner == access.TeamOwner("spent") {
		return ctx, nil, apierr.Errorf(apierr.CodeBudgetExceeded, "the team spent has spent its budget of 10 tokens per day; it resets at %s",
			time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC).Format(time.RFC3339))
	}
	return ctx, func() { b.note("release " + owner) }, nil
}

var _ observe.Budget = (*fakeBudget)(nil)

// TestRunsHeldToBudget: a schedule made over the API runs held to its
// owner's budgets: refused, its tool or command does not run and the run
// is FAILED with BUDGET_EXCEEDED in its result; with room, it runs and
// its reservation is released when it ends. The operator's schedules are
// held to none.
func TestRunsHeldToBudget(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		ctx := context.Background()
		f := newFixture(t, backend, Limits{})
		spent := access.Caller{Owner: access.TeamOwner("spent"), Team: "spent"}
		rich := access.Caller{Owner: access.TeamOwner("rich"), Team: "rich"}
		for _, body := range []string{
			`{"name":"tool","every":"1h","agent":"tooled","tool":"ok","params":{"n":1}}`,
			`{"name":"command","every":"1h","agent":"tooled","prompt":"hello"}`,
		} {
			sc, err := f.api.Create(ctx, spent, []byte(body))
			if err != nil {
				t.Fatal(err)
			}
			run, res := f.runNow(t, spent, sc.ID)
			if run.Status != schedule.StatusFailed || res.Error == nil || res.Error.Code != apierr.CodeBudgetExceeded ||
				res.Text != "" || f.calls.Load() != 0 {
				t.Errorf("%s over budget: %+v, result %+v, %d calls", sc.Name, run, res, f.calls.Load())
			}
			if got, want := f.budget.notes(), []string{"reserve schedule team:spent"}; !reflect.DeepEqual(got, want) {
				t.Errorf("%s over budget: budget saw %q, want %q", sc.Name, got, want)
			}
		}
		sc, err := f.api.Create(ctx, rich, []byte(`{"name":"rich-tool","every":"1h","agent":"tooled","tool":"ok","params":{"n":1}}`))
		if err != nil {
			t.Fatal(err)
		}
		if run, res := f.runNow(t, rich, sc.ID); run.Status != schedule.StatusSuccess || f.calls.Load() != 1 {
			t.Errorf("with room: %+v %+v, %d calls", run, res, f.calls.Load())
		}
		if got, want := f.budget.notes(), []string{"reserve schedule team:rich", "release team:rich"}; !reflect.DeepEqual(got, want) {
			t.Errorf("with room: budget saw %q, want %q", got, want)
		}
		static, err := FromDef(&agent.ScheduleDef{Name: "op", Every: "1h", Tool: "ok"}, "tooled")
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
		if run, res := f.runNow(t, access.Caller{Admin: true}, op.ID); run.Status != schedule.StatusSuccess {
			t.Errorf("the operator's schedule: %+v %+v", run, res)
		}
		if got := f.budget.notes(); len(got) != 0 {
			t.Errorf("the operator's schedule reserved: %q", got)
		}
	})
}
