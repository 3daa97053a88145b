package observe_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/observe/observetest"
)

// TestNilWatch: with no observer nothing is made, and every method of the
// nil Watch does nothing and hands back the context it was given.
func TestNilWatch(t *testing.T) {
	ctx := context.Background()
	got, w := observe.Observers(nil).Begin(ctx, &observe.Request{})
	if w != nil || got != ctx {
		t.Fatalf("Begin without observers: %v, %v", got, w)
	}
	if observe.From(ctx) != nil {
		t.Fatal("From found a Watch in a bare context")
	}
	c, end := w.Tool(ctx, observe.Tool{Name: "x"})
	end(observe.ToolResult{})
	c2, end2 := w.Step(c, observe.Step{})
	end2(observe.StepResult{})
	c3, end3 := w.Upstream(c2, observe.Upstream{})
	end3(observe.UpstreamResult{})
	if c3 != ctx {
		t.Fatal("a nil Watch changed the context")
	}
	h := http.Header{}
	observe.Inject(ctx, h)
	w.Failed("X")
	w.End(observe.Outcome{})
	if len(h) != 0 {
		t.Fatalf("Inject without a tracer added %v", h)
	}
}

// TestWatchOutcome: End completes the outcome from what the Watch saw, and
// runs once.
func TestWatchOutcome(t *testing.T) {
	tests := []struct {
		name   string
		events func(w *observe.Watch)
		given  observe.Outcome
		want   string
	}{
		{"ok", func(*observe.Watch) {}, observe.Outcome{Status: 200}, "end ok code= status=200"},
		{"in-stream error", func(w *observe.Watch) { w.Failed("UPSTREAM_ERROR") }, observe.Outcome{Status: 200}, "end error code=UPSTREAM_ERROR status=200"},
		{"refused", func(*observe.Watch) {}, observe.Outcome{Code: "BAD_REQUEST", Status: 400}, "end error code=BAD_REQUEST status=400"},
		{"paused", func(w *observe.Watch) { w.Paused(observe.PauseConsent) }, observe.Outcome{Status: 200}, "end paused code= status=200"},
		{"canceled", func(w *observe.Watch) { w.Failed("CANCELED") }, observe.Outcome{Status: 200}, "end canceled code=CANCELED status=200"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &observetest.Recorder{}
			_, w := observe.Observers{rec}.Begin(context.Background(), &observe.Request{Source: observe.SourceHTTP})
			tt.events(w)
			w.End(tt.given)
			w.End(tt.given)
			ev := rec.Events()
			if got := ev[len(ev)-1]; got != tt.want {
				t.Errorf("last event %q, want %q", got, tt.want)
			}
			if n := len(rec.Outcomes()); n != 1 {
				t.Errorf("End reached the observer %d times", n)
			}
			if rec.Outcomes()[0].Duration <= 0 {
				t.Error("no duration")
			}
		})
	}
}

// TestWatchFanOut: every observer sees every event, the contexts they
// return are chained, and ends run last-started first.
func TestWatchFanOut(t *testing.T) {
	a, b := &observetest.Recorder{}, &observetest.Recorder{}
	ctx, w := observe.Observers{a, b}.Begin(context.Background(), &observe.Request{Source: observe.SourceHandoff})
	if observe.From(ctx) != w {
		t.Fatal("the context does not carry the Watch")
	}
	_, end := w.Git(ctx, "diff", "repo")
	end(errors.New("boom"))
	w.Routed("a", "c", false)
	w.End(observe.Outcome{})
	want := "begin handoff |git diff repo|git diff end err=boom|routed a/c loaded=false|end ok code= status=0"
	for _, r := range []*observetest.Recorder{a, b} {
		if got := strings.Join(r.Events(), "|"); got != want {
			t.Errorf("events %q, want %q", got, want)
		}
	}
}
