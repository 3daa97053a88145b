package plan

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/internal/golden"
)

// TestRunReportGolden runs a plan that touches every feature and compares its report with
// testdata/report.golden: one line per step (id, status, attempts, error, value) and the final state.
func TestRunReportGolden(t *testing.T) {
	h := newHarness(t, []Node{
		{ID: "inst_1", Output: mustOut(t, "state.analysis && state.audit.analysis")},
		{ID: "inst_2", Refs: map[string]*Ref{"data": mustRef(t, "${dependencies.inst_1.result.data}")},
			When: mustCond(t, "dependencies.inst_1.status == 'COMPLETED' AND dependencies.inst_1.result.score > 0.8")},
		{ID: "notify", DependsOn: []string{"inst_1"}, When: mustCond(t, "dependencies.inst_1.result.anomaly_detected == true")},
		{ID: "verify", OnError: OnErrorContinue, Retry: Retry{Limit: 1}, Output: mustOut(t, "†state.user.verified || †state.user.failed")},
		{ID: "summary", Refs: map[string]*Ref{"in": mustRef(t, "$state.user.verified || $state.user.failed")},
			DependsOn: []string{"verify"}, Output: mustOut(t, "state.summary")},
	}, map[string]stepFunc{
		"inst_1": func(ctx context.Context, in Invocation) (any, error) {
			return map[string]any{"score": 0.92, "data": []any{1, 2, 3}, "anomaly_detected": false}, nil
		},
		"inst_2": func(ctx context.Context, in Invocation) (any, error) { return len(in.Inputs["data"].([]any)), nil },
		"verify": func(ctx context.Context, in Invocation) (any, error) {
			return nil, fmt.Errorf("attempt %d: no such user", in.Attempt)
		},
		"summary": func(ctx context.Context, in Invocation) (any, error) { return in.Inputs["in"], nil },
	})
	rep, err := h.run(context.Background(), Options{State: map[string]any{"user": map[string]any{"id": "perfect-stranger"}}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range rep.Results {
		value, _ := json.Marshal(r.Value)
		fmt.Fprintf(&b, "%s %s attempts=%d err=%v value=%s\n", r.ID, r.Status, r.Attempts, r.Err, value)
	}
	state, _ := json.MarshalIndent(rep.State, "", "  ")
	b.Write(state)
	b.WriteByte('\n')
	golden.Check(t, "testdata/report.golden", []byte(b.String()))
}
