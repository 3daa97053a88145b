package usage

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/internal/testclock"
	"github.com/agentgw/agentgw/observe"
)

// newMeter is a Meter on a fresh database of db with cfg, its clock at
// t0; closed when the test ends (Close is idempotent for the tests that
// close it to flush).
func newMeter(t *testing.T, db string, cfg Config) (*Meter, *testclock.Clock, *prometheus.Registry) {
	t.Helper()
	clock := testclock.New(t0)
	reg := prometheus.NewRegistry()
	cfg.Now, cfg.Registerer = clock.Now, reg
	m, err := New(openStore(t, db), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m, clock, reg
}

var (
	ada = access.Caller{Owner: access.MemberOwner("ada"), KeyID: "k-ada", User: "ada", Team: "core"}
	bob = access.Caller{Owner: access.MemberOwner("bob"), KeyID: "k-bob", User: "bob", Team: "core"}
	eve = access.Caller{Owner: access.TeamOwner("ops"), KeyID: "k-eve", Team: "ops"}
)

// TestMeterBudgets: a team's token budget is shared by its keys, a key's
// budget is its own, a request that does not fit is refused with the
// window's end, and settlement gives back what the estimate took beyond
// the usage.
func TestMeterBudgets(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		m, _, reg := newMeter(t, db, Config{ReserveOutputTokens: 100, Budgets: []Budget{
			{Team: "core", TokensPerDay: 1000},
			{Key: "k-bob", TokensPerMonth: 250},
		}})
		// 400 bytes: 100 tokens in, 100 out reserved.
		run, err := m.Admit(ctx, ada, "r1", 400)
		if err != nil {
			t.Fatal(err)
		}
		run.End(observe.Outcome{Model: "gpt-4o", Agent: "chat", Usage: observe.Usage{In: 100, Out: 50}}) // gives 50 back
		var runs []observe.Run
		for i := range 3 {
			r, err := m.Admit(ctx, ada, "r", 400)
			if err != nil {
				t.Fatalf("request %d: %v", i, err)
			}
			runs = append(runs, r)
		}
		// core has 200 + 3*200 = 800 reserved (settlement not yet written).
		if _, err := m.Admit(ctx, bob, "b1", 400); err != nil {
			t.Fatalf("bob's first: %v", err)
		}
		// bob's own budget (250/month) does not fit a second 200.
		_, err = m.Admit(ctx, bob, "b2", 400)
		wantRefusal(t, err, apierr.CodeBudgetExceeded, "the key k-bob has spent its budget of 250 tokens per month", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
		// core is at 1000 now: ada is refused until tomorrow.
		_, err = m.Admit(ctx, ada, "r5", 0)
		wantRefusal(t, err, apierr.CodeBudgetExceeded, "the team core has spent its budget of 1000 tokens per day", time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC))
		// Another team is not bounded.
		if _, err := m.Admit(ctx, eve, "e1", 1<<20); err != nil {
			t.Fatalf("eve: %v", err)
		}
		for _, r := range runs {
			r.End(observe.Outcome{}) // no model called: all given back
		}
		m.rec.Close() // flushes
		spent, err := m.Store().Spent(ctx, "team:core|tokens|d2026-11-29")
		if err != nil || spent != 150+200 {
			t.Errorf("core spent %d, %v; want 350 (ada's 150 and bob's unsettled 200)", spent, err)
		}
		if got := testutil.ToFloat64(m.refused.WithLabelValues("team", "tokens")); got != 1 {
			t.Errorf("refused{team,tokens} = %v", got)
		}
		if got := testutil.ToFloat64(m.warnings.WithLabelValues("team", "tokens")); got != 1 {
			t.Errorf("warnings{team,tokens} = %v, want 1 (once, when 800 was passed)", got)
		}
		_ = reg
		rows, err := m.Summary(ctx, access.Caller{Admin: true}, ByKey, t0)
		if err != nil {
			t.Fatal(err)
		}
		if want := []Row{{Value: "k-ada", Requests: 1, TokensIn: 100, TokensOut: 50}}; !reflect.DeepEqual(rows, want) {
			t.Errorf("by key: %+v, want %+v", rows, want)
		}
	})
}

// wantRefusal checks err is code with a message starting msg and
// ResetsAt at.
func wantRefusal(t *testing.T, err error, code, msg string, at time.Time) {
	t.Helper()
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code != code || !strings.HasPrefix(e.Message, msg) || !e.ResetsAt.Equal(at) {
		t.Fatalf("got %v (resets %v), want %s %q resetting at %s", err, e, code, msg, at)
	}
}

// TestMeterRequestsPerMinute: the rate limit is a window per minute; its
// refusal is RATE_LIMITED until the next minute.
func TestMeterRequestsPerMinute(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		m, clock, _ := newMeter(t, db, Config{Budgets: []Budget{{Key: "k-ada", RequestsPerMinute: 2}}})
		clock.Advance(30 * time.Second)
		for range 2 {
			if _, err := m.Admit(ctx, ada, "", 10); err != nil {
				t.Fatal(err)
			}
		}
		_, err := m.Admit(ctx, ada, "", 10)
		wantRefusal(t, err, apierr.CodeRateLimited, "the key k-ada may make 2 requests a minute", t0.Add(time.Minute))
		var e *apierr.Error
		errors.As(err, &e)
		if ra := e.RetryAfter(clock.Now()); ra != "30" {
			t.Errorf("Retry-After %q, want 30", ra)
		}
		clock.Advance(30 * time.Second)
		if _, err := m.Admit(ctx, ada, "", 10); err != nil {
			t.Errorf("next minute: %v", err)
		}
	})
}

// TestMeterDollars: a dollar budget reserves at the highest price and
// settles at the model's.
func TestMeterDollars(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		m, _, _ := newMeter(t, db, Config{ReserveOutputTokens: 1000,
			Prices:  map[string]Price{"big": {Input: 10, Output: 30}, "*": {Input: 1, Output: 2}},
			Budgets: []Budget{{Team: "ops", DollarsPerDay: 0.1}}})
		// 4000 bytes: 1000 in at $10/M + 1000 out at $30/M = $0.04 reserved.
		var runs []observe.Run
		for range 2 {
			r, err := m.Admit(ctx, eve, "", 4000)
			if err != nil {
				t.Fatal(err)
			}
			runs = append(runs, r)
		}
		_, err := m.Admit(ctx, eve, "", 4000)
		wantRefusal(t, err, apierr.CodeBudgetExceeded, "the team ops has spent its budget of $0.10 per day", time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC))
		runs[0].End(observe.Outcome{Model: "small", Usage: observe.Usage{In: 1000, Out: 1000}}) // $0.003
		runs[1].End(observe.Outcome{Model: "big", Usage: observe.Usage{In: 1000, Out: 1000}})   // $0.04
		m.rec.Close()
		if spent, _ := m.Store().Spent(ctx, "team:ops|dollars|d2026-11-29"); spent != 43_000_000 {
			t.Errorf("spent %d nano-dollars, want 43000000", spent)
		}
		rows, _ := m.Summary(ctx, eve, ByModel, t0)
		if want := []Row{{Value: "big", Requests: 1, TokensIn: 1000, TokensOut: 1000, Cost: 0.04},
			{Value: "small", Requests: 1, TokensIn: 1000, TokensOut: 1000, Cost: 0.003}}; !reflect.DeepEqual(rows, want) {
			t.Errorf("eve's usage by model: %+v", rows)
		}
		if rows, _ := m.Summary(ctx, ada, ByModel, t0); len(rows) != 0 {
			t.Errorf("ada sees eve's usage: %+v", rows)
		}
	})
}

// TestMeterObserver: HTTP POSTs get a Watch to join, a schedule's run is
// recorded under its source without a key.
func TestMeterObserver(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		m, _, _ := newMeter(t, db, Config{})
		if _, run := m.Begin(ctx, &observe.Request{Source: observe.SourceHTTP, Method: "GET"}); run != nil {
			t.Error("a GET is watched")
		}
		if _, run := m.Begin(ctx, &observe.Request{Source: observe.SourceHTTP, Method: "POST"}); run == nil {
			t.Error("a POST is not watched")
		}
		_, run := m.Begin(ctx, &observe.Request{Source: observe.SourceSchedule, RequestID: "s1"})
		run.End(observe.Outcome{Agent: "nightly", Model: "m", Usage: observe.Usage{In: 3, Out: 4, Estimated: true}})
		_, run = m.Begin(ctx, &observe.Request{Source: observe.SourceHandoff})
		run.End(observe.Outcome{Agent: "noop"}) // no model: nothing recorded
		m.rec.Close()
		rows, _ := m.Summary(ctx, access.Caller{Admin: true}, ByAgent, t0)
		if want := []Row{{Value: "nightly", Requests: 1, TokensIn: 3, TokensOut: 4, Estimated: 1}}; !reflect.DeepEqual(rows, want) {
			t.Errorf("by agent: %+v", rows)
		}
	})
}

// TestBudgetCheck: a budget names one subject and sets a limit.
func TestBudgetCheck(t *testing.T) {
	for _, b := range []Budget{{TokensPerDay: 1}, {Key: "a", Team: "b", TokensPerDay: 1}, {Team: "x"}, {Team: "x", TokensPerDay: -1}} {
		if b.Check() == nil {
			t.Errorf("%+v passes", b)
		}
	}
	if err := (Budget{User: "ada", RequestsPerMinute: 1}).Check(); err != nil {
		t.Error(err)
	}
}

// TestMeterNoUsage: a successful model call that reported no usage is
// charged and recorded at its estimate, marked estimated; a failed one
// is given back.
func TestMeterNoUsage(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		m, _, _ := newMeter(t, db, Config{ReserveOutputTokens: 10, Budgets: []Budget{{Key: "k-ada", TokensPerDay: 1000}}})
		ok, err := m.Admit(ctx, ada, "ok", 40) // 10 in + 10 out
		if err != nil {
			t.Fatal(err)
		}
		failed, err := m.Admit(ctx, ada, "failed", 400) // 100 in + 10 out
		if err != nil {
			t.Fatal(err)
		}
		ok.End(observe.Outcome{Model: "passed-through"})
		failed.End(observe.Outcome{Model: "passed-through", Code: apierr.CodeUpstreamError})
		m.rec.Close()
		if spent, _ := m.Store().Spent(ctx, "key:k-ada|tokens|d2026-11-29"); spent != 20 {
			t.Errorf("spent %d, want 20", spent)
		}
		rows, _ := m.Summary(ctx, ada, ByModel, t0)
		if want := []Row{{Value: "passed-through", Requests: 2, TokensIn: 10, TokensOut: 10, Estimated: 1}}; !reflect.DeepEqual(rows, want) {
			t.Errorf("%+v", rows)
		}
	})
}

// TestMeterReserve: a run no request started is held to its owner's
// budgets (a member's user's, a team owner's team's): Reserve refuses it
// when they are spent; the first run watched in its context settles the
// reservation, a later one there is charged what it uses, and a
// reservation no run took is given back. Other owners are held to none.
func TestMeterReserve(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		m, _, _ := newMeter(t, db, Config{ReserveOutputTokens: 100, Budgets: []Budget{
			{User: "ada", TokensPerDay: 300},
			{Team: "ops", TokensPerDay: 1000},
		}})
		// 400 bytes: 100 in + 100 out reserved on user:ada.
		rctx, release, err := m.Reserve(ctx, observe.SourceHandoff, access.MemberOwner("ada"), "handoff-1", 400)
		if err != nil {
			t.Fatal(err)
		}
		if spent, _ := m.Store().Spent(ctx, "user:ada|tokens|d2026-11-29"); spent != 200 {
			t.Errorf("reserved %d, want 200", spent)
		}
		_, first := m.Begin(rctx, &observe.Request{Source: observe.SourceHandoff, RequestID: "handoff-1"})
		_, second := m.Begin(rctx, &observe.Request{Source: observe.SourceInternal, RequestID: "ask"}) // a tool's run inside it
		first.End(observe.Outcome{Agent: "triage", Model: "m", Usage: observe.Usage{In: 100, Out: 50}})
		second.End(observe.Outcome{Agent: "helper", Model: "m", Usage: observe.Usage{In: 10, Out: 10}})
		release() // taken: nothing more
		// 200 (its settlement is not written yet) + 200 > 300: refused.
		_, _, err = m.Reserve(ctx, observe.SourceSchedule, access.MemberOwner("ada"), "schedule-s1", 400)
		wantRefusal(t, err, apierr.CodeBudgetExceeded, "the user ada has spent its budget of 300 tokens per day", time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC))
		// A team owner's run: its team's budget; released untaken, all back.
		_, release, err = m.Reserve(ctx, observe.SourceSchedule, access.TeamOwner("ops"), "schedule-s2", 0)
		if err != nil {
			t.Fatal(err)
		}
		if spent, _ := m.Store().Spent(ctx, "team:ops|tokens|d2026-11-29"); spent != 100 {
			t.Errorf("ops reserved %d, want 100", spent)
		}
		release()
		release() // once only
		// A static token's, the operator's, a named user's: no budget.
		for _, owner := range []string{access.TokenOwner("abc"), access.Operator, "user:ada", access.Anonymous, "member:"} {
			octx, release, err := m.Reserve(ctx, observe.SourceSchedule, owner, "s", 1<<30)
			if err != nil || octx != ctx {
				t.Errorf("%s: %v (ctx changed: %v)", owner, err, octx != ctx)
			}
			release()
		}
		m.rec.Close() // flushes
		if spent, _ := m.Store().Spent(ctx, "user:ada|tokens|d2026-11-29"); spent != 170 {
			t.Errorf("ada spent %d, want 170 (150 settled, 20 charged)", spent)
		}
		if spent, _ := m.Store().Spent(ctx, "team:ops|tokens|d2026-11-29"); spent != 0 {
			t.Errorf("ops spent %d after a release, want 0", spent)
		}
		rows := storedRecords(t, m.Store())
		want := []Record{
			{RequestID: "handoff-1", Source: observe.SourceHandoff, User: "ada", Agent: "triage", Model: "m", In: 100, Out: 50},
			{RequestID: "ask", Source: observe.SourceInternal, User: "ada", Agent: "helper", Model: "m", In: 10, Out: 10},
		}
		if !reflect.DeepEqual(rows, want) {
			t.Errorf("records:\n%+v\nwant\n%+v", rows, want)
		}
	})
}
