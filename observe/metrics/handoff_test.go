package metrics

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/agentgw/agentgw/observe"
)

// TestHandoffLimit (issue 24, item 5): a hand-off kept DEAD at a bound of
// its task is counted as result "limit", apart from ok and error.
func TestHandoffLimit(t *testing.T) {
	m := New(Options{NoRuntime: true})
	ctx, run := m.Begin(context.Background(), &observe.Request{Source: observe.SourceHandoff})
	for _, err := range []error{nil, errors.New("queue full"), observe.ErrHandoffLimit, fmt.Errorf("sending: %w", observe.ErrHandoffLimit)} {
		_, end := run.Handoff(ctx, observe.Handoff{Type: "NOTIFICATION", To: "b"})
		end(err)
	}
	run.End(observe.Outcome{Result: observe.ResultOK})
	for result, want := range map[string]float64{"ok": 1, "error": 1, "limit": 2} {
		if got := testutil.ToFloat64(m.handoffs.WithLabelValues("NOTIFICATION", result)); got != want {
			t.Errorf("result=%s: %v, want %v", result, got, want)
		}
	}
}
