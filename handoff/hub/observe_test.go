package hub

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/handoff"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/observe/observetest"
)

// TestSendObserved: a hand-off sent during a request is reported to its
// observers with its type and recipients, a refused one with its error.
func TestSendObserved(t *testing.T) {
	h := newHub(t)
	rec := &observetest.Recorder{}
	ctx, w := observe.Observers{rec}.Begin(context.Background(), &observe.Request{Source: observe.SourceInternal})
	for _, to := range []string{"a1,a2", "nobody"} {
		msg, err := handoff.New(time.Now(), "tester", strings.Split(to, ","), handoff.Notification,
			map[string]any{"event_type": "build", "message": "done"}, handoff.Origin{})
		if err != nil {
			t.Fatal(err)
		}
		_, _, _ = h.Send(ctx, msg, Origin{})
	}
	w.End(observe.Outcome{})
	ev := rec.Events()
	if len(ev) != 6 || ev[1] != "handoff NOTIFICATION to=a1,a2" || ev[2] != "handoff NOTIFICATION end err=<nil>" ||
		ev[3] != "handoff NOTIFICATION to=nobody" || !strings.HasPrefix(ev[4], "handoff NOTIFICATION end err=") || ev[4] == "handoff NOTIFICATION end err=<nil>" {
		t.Errorf("events:\n%s", strings.Join(ev, "\n"))
	}
}
