package handoffstep

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/conversation"
	"github.com/agentgw/agentgw/plan"
)

// fakeConvs is one stored conversation and its change log.
type fakeConvs struct {
	c   *conversation.Context
	log *conversation.Changes
}

func (f fakeConvs) Get(context.Context, string, string) (*conversation.Context, error) {
	return f.c, nil
}
func (f fakeConvs) Changes(context.Context, string, string, int64) (*conversation.Changes, error) {
	return f.log, nil
}

// TestInteractions: the stored user and assistant turns with text, timed
// by the change that added them (the context's creation when the log no
// longer has it), the latest MaxInteractions, content clipped.
func TestInteractions(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	msg := func(role, content string) conversation.Message {
		return conversation.Message{Role: role, Content: content}
	}
	c := &conversation.Context{CreatedAt: at(0), UpdatedAt: at(59), Messages: []conversation.Message{
		msg("user", "dropped from the log"), msg("assistant", "ok"),
		msg("user", "hi"), msg("assistant", ""), msg("tool", "42"), msg("assistant", "hello"),
		msg("user", strings.Repeat("x", 600)),
	}}
	log := &conversation.Changes{Changes: []conversation.Change{
		{At: at(1), Operation: conversation.OpAddMessage, Messages: []conversation.Message{msg("user", "hi"), msg("assistant", "")}},
		{At: at(2), Operation: conversation.OpUpdateState},
		{At: at(3), Operation: conversation.OpAddMessage, Messages: []conversation.Message{msg("tool", "42"), msg("assistant", "hello")}},
		{At: at(4), Operation: conversation.OpAddMessage, Messages: []conversation.Message{msg("user", strings.Repeat("x", 600))}},
	}}
	got, err := Interactions(context.Background(), fakeConvs{c, log}, "c", "o")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, u := range got {
		lines = append(lines, fmt.Sprintf("%s %s %s %.12s", u.Timestamp.Format("15:04"), u.Type, u.Sender, u.Content))
	}
	want := "03:00 CHAT_MESSAGE User dropped from|03:00 CHAT_MESSAGE Agent ok|03:01 CHAT_MESSAGE User hi|" +
		"03:03 CHAT_MESSAGE Agent hello|03:04 CHAT_MESSAGE User xxxxxxxxxxxx"
	if strings.Join(lines, "|") != want {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "|"), want)
	}
	if n := len(got[len(got)-1].Content); n > maxDetails+20 {
		t.Errorf("the long turn is %d bytes", n)
	}

	for range 2 * MaxInteractions {
		c.Messages = append(c.Messages, msg("user", "again"))
	}
	if got, _ := Interactions(context.Background(), fakeConvs{c, log}, "c", "o"); len(got) != MaxInteractions {
		t.Errorf("%d interactions, want the latest %d", len(got), MaxInteractions)
	}
}

// TestPreviousActions: the completed steps but the sender, by the time
// they finished, with their results.
func TestPreviousActions(t *testing.T) {
	sc := &plan.Scope{Steps: map[string]map[string]any{
		"b":    {"status": "COMPLETED", "result": map[string]any{"n": 1}, "finished": "2026-01-02T03:00:02Z"},
		"a":    {"status": "COMPLETED", "result": "text", "finished": "2026-01-02T03:00:01.5Z"},
		"c":    {"status": "FAILED", "finished": "2026-01-02T03:00:03Z"},
		"d":    {"status": "PENDING"},
		"self": {"status": "RUNNING"},
	}}
	got, _ := json.Marshal(previousActions(sc, "self"))
	want := `[{"action_type":"STEP_COMPLETED","details":"step a: \"text\"","step_id":"a","timestamp":"2026-01-02T03:00:01.5Z"},` +
		`{"action_type":"STEP_COMPLETED","details":"step b: {\"n\":1}","step_id":"b","timestamp":"2026-01-02T03:00:02Z"}]`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestInteractionsStoredTimes: a turn the gateway wrote with its time
// (contexts.Message.Time) is at that time, whatever the change log says;
// one kept before times were recorded still takes its change's.
func TestInteractionsStoredTimes(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	c := &conversation.Context{CreatedAt: at(0), Messages: []conversation.Message{
		{Role: "user", Content: "old"},
		{Role: "assistant", Content: "timed", Time: at(30)},
	}}
	log := &conversation.Changes{Changes: []conversation.Change{
		{At: at(1), Operation: conversation.OpAddMessage, Messages: []conversation.Message{{Role: "user", Content: "old"}}},
		{At: at(2), Operation: conversation.OpAddMessage, Messages: []conversation.Message{{Role: "assistant", Content: "timed"}}},
	}}
	got, err := Interactions(context.Background(), fakeConvs{c, log}, "c", "o")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, u := range got {
		lines = append(lines, u.Timestamp.Format("15:04")+" "+u.Sender)
	}
	if want := "03:01 User|03:30 Agent"; strings.Join(lines, "|") != want {
		t.Errorf("got %s, want %s", strings.Join(lines, "|"), want)
	}
}
