package handoffstep

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/handoff"
	"github.com/agentgw/agentgw/tools"
)

// fakeSender keeps the message sent and answers with the answers in turn
// (the last one repeated).
type fakeSender struct {
	sent    *handoff.Message
	answers []Answer
}

func (f *fakeSender) Send(_ context.Context, msg *handoff.Message, _ Origin) (*Sent, error) {
	f.sent = msg
	return &Sent{MessageID: msg.Metadata.MessageID, TaskID: msg.Metadata.TaskID, Status: "QUEUED", Recipients: msg.Metadata.RecipientID}, nil
}

func (f *fakeSender) Answer(context.Context, string) (*Answer, error) {
	a := f.answers[0]
	if len(f.answers) > 1 {
		f.answers = f.answers[1:]
	}
	return &a, nil
}

// TestToolWait: handoff_to_agent with wait returns the receiver's answer
// when it comes in time, else a note of where it will be; its other new
// parameters reach the message.
func TestToolWait(t *testing.T) {
	ctx := tools.WithCaller(context.Background(), tools.Caller{Agent: "desk"})
	for _, tc := range []struct {
		name    string
		wait    any
		answers []Answer
		want    string
	}{
		{"in time", "5s", []Answer{{Status: "QUEUED"}, {Status: "RUNNING"}, {Status: "COMPLETED", Agent: "quick", Text: "yes", Final: true}},
			`{"answer":{"agent":"quick","error":"","text":"yes"},"status":"COMPLETED"}`},
		{"failed", 5.0, []Answer{{Status: "DEAD", Error: "boom", Final: true}},
			`{"answer":{"agent":"","error":"boom","text":""},"status":"DEAD"}`},
		{"too late", "150ms", []Answer{{Status: "RUNNING"}},
			`{"note":"no answer within 150ms (still RUNNING): its answer will be at GET /handoffs/M (task T)","status":"RUNNING"}`},
	} {
		f := &fakeSender{answers: tc.answers}
		out, err := Builtins(f)["handoff_to_agent"](ctx, map[string]any{"to": "quick", "type": "NOTIFICATION", "wait": tc.wait,
			"data": map[string]any{"event_type": "q", "message": "up?"}, "required_actions": []any{"CHECK"},
			"success_criteria": "known", "constraints": map[string]any{"time_limit": "PT1M"}})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		m := out.(map[string]any)
		if note, ok := m["note"].(string); ok {
			m["note"] = replaceIDs(note, f.sent)
		}
		delete(m, "message_id")
		delete(m, "task_id")
		delete(m, "recipients")
		got, _ := json.Marshal(m)
		if string(got) != tc.want {
			t.Errorf("%s: %s\nwant %s", tc.name, got, tc.want)
		}
		in, _ := json.Marshal(f.sent.Instructions)
		if string(in) != `{"required_actions":["CHECK"],"constraints":{"time_limit":"PT1M"},"success_criteria":"known"}` {
			t.Errorf("%s: instructions %s", tc.name, in)
		}
	}
}

func replaceIDs(s string, m *handoff.Message) string {
	return strings.NewReplacer(m.Metadata.MessageID, "M", m.Metadata.TaskID, "T").Replace(s)
}

// TestWaitParam: a duration or seconds, at most MaxWait.
func TestWaitParam(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want time.Duration
		err  bool
	}{
		{"30s", 30 * time.Second, false}, {2.5, 2500 * time.Millisecond, false}, {json.Number("3"), 3 * time.Second, false},
		{"soon", 0, true}, {"-1s", 0, true}, {"11m", 0, true}, {true, 0, true},
	} {
		d, err := waitParam(tc.in)
		if d != tc.want || (err != nil) != tc.err {
			t.Errorf("waitParam(%v) = %v, %v", tc.in, d, err)
		}
	}
}
