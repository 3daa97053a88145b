package binding_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentgw/agentgw/agent/stage"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/contextvars"
	"github.com/agentgw/agentgw/conversation"
	"github.com/agentgw/agentgw/conversation/binding"
	"github.com/agentgw/agentgw/store"
)

// stored is the conversation's messages and state as the store holds
// them, without their times.
func stored(t *testing.T, repo conversation.Repo, id string) string {
	t.Helper()
	c, err := repo.Get(t.Context(), id, "u")
	if err != nil {
		t.Fatal(err)
	}
	type msg struct{ Role, Content string }
	var ms []msg
	for _, m := range c.Messages {
		ms = append(ms, msg{m.Role, m.Content})
	}
	data, _ := json.Marshal(map[string]any{"messages": ms, "state": c.State, "version": c.Version})
	return string(data)
}

// TestBindRefuses: what names no conversation binds none; what names one
// it cannot have is refused before the stream, with the protocol's codes.
func TestBindRefuses(t *testing.T) {
	repo := conversation.NewStoreRepo(store.NewMemory(), conversation.Config{})
	if _, err := repo.Create(t.Context(), "taken", "someone-else", nil); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		repo     conversation.Repo
		b        stage.Binding
		wantCode string
		wantMsg  string
	}{
		{"no id", repo, stage.Binding{Owner: "u"}, "", ""},
		{"a malformed id", repo, stage.Binding{ContextID: "a b", Owner: "u"}, apierr.CodeBadRequest, `context id "a b" is malformed`},
		{"no conversations kept", nil, stage.Binding{ContextID: "c1", Owner: "u"}, apierr.CodeBadRequest, `this gateway keeps no conversations, so contextId "c1" cannot be used`},
		{"another's", repo, stage.Binding{ContextID: "taken", Owner: "u"}, apierr.CodeContextNotFound, `no context "taken"`},
		{"a stale version", repo, stage.Binding{ContextID: "c2", Owner: "u", Version: 7}, apierr.CodeContextConflict, `context "c2" has changed since that version`},
		{"named by the context variable, no conversations kept", nil,
			stage.Binding{Owner: "u", Context: &contextvars.Set{Other: map[string]any{"context": map[string]any{"contextId": "c3"}}}},
			apierr.CodeBadRequest, `this gateway keeps no conversations, so contextId "c3" cannot be used`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.b.Context == nil {
				tc.b.Context = &contextvars.Set{}
			}
			conv, err := binding.New(tc.repo).Bind(t.Context(), tc.b)
			if tc.wantCode == "" {
				if conv != nil || err != nil {
					t.Fatalf("bound %v, %v; want nothing", conv, err)
				}
				return
			}
			var e *apierr.Error
			if conv != nil || !errors.As(err, &e) || e.Code != tc.wantCode || e.Message != tc.wantMsg {
				t.Fatalf("bound %v, %v; want %s %q", conv, err, tc.wantCode, tc.wantMsg)
			}
		})
	}
}

// TestBindPauseCommit binds a new conversation, feeds it a turn and a
// state write, keeps it across a pause (a big number whole: the store then
// reads it back as a float64) and commits it from the binding of the
// resumed run; a hand-off's answer is headed
// by whose it is and adds no user turn.
func TestBindPauseCommit(t *testing.T) {
	repo := conversation.NewStoreRepo(store.NewMemory(), conversation.Config{})
	set := &contextvars.Set{UserInputPrompt: "hi"}
	conv, err := binding.New(repo).Bind(t.Context(), stage.Binding{ContextID: "c", Owner: "u", Agent: "a", UserTurn: true, Context: set})
	if err != nil || conv == nil {
		t.Fatalf("bound %v, %v", conv, err)
	}
	if got, want := conv.ID()+"/"+conv.Owner(), "c/u"; got != want {
		t.Errorf("bound %s, want %s", got, want)
	}
	vars, _ := json.Marshal(set.Other)
	if got, want := string(vars), `{"context":{"contextId":"c","metadata":{},"state":{},"version":1},"state":{}}`; got != want {
		t.Errorf("the context variables %s, want %s", got, want)
	}
	conv.Show("hel")
	conv.SetState([]string{"n"}, json.Number("1152921504606846977"))
	paused := conv.Paused()
	if got, want := string(paused), `{"id":"c","owner":"u","user":"hi","text":"hel","patch":{"n":1152921504606846977}}`; got != want {
		t.Errorf("paused %s, want %s", got, want)
	}

	resumed, err := binding.New(repo).Bind(t.Context(), stage.Binding{Owner: "u", Agent: "a", Context: &contextvars.Set{}, Resumed: paused})
	if err != nil || resumed == nil {
		t.Fatalf("resumed %v, %v", resumed, err)
	}
	if got := string(resumed.Paused()); got != string(paused) {
		t.Errorf("paused again %s, want %s", got, paused)
	}
	resumed.Show("lo")
	resumed.SetState([]string{"m", "k"}, 2)
	if err := resumed.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, want := stored(t, repo, "c"), `{"messages":[{"Role":"user","Content":"hi"},{"Role":"assistant","Content":"hello"}],"state":{"m":{"k":2},"n":1152921504606847000},"version":2}`; got != want {
		t.Errorf("stored %s, want %s", got, want)
	}

	handoff := map[string]any{"payload": map[string]any{"handoff_type": "review"}, "metadata": map[string]any{"sender_id": "b", "task_id": "t1"}}
	h, err := binding.New(repo).Bind(t.Context(), stage.Binding{ContextID: "c", Owner: "u", Agent: "a", Handoff: handoff, UserTurn: true,
		Context: &contextvars.Set{UserInputPrompt: "ignored"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(h.Turns()); got != 2 {
		t.Errorf("%d stored turns, want 2", got)
	}
	h.Loop([]stage.Message{{Role: "assistant", Content: "looking"}}, "done")
	if err := h.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, want := stored(t, repo, "c"), `{"messages":[{"Role":"user","Content":"hi"},{"Role":"assistant","Content":"hello"},`+
		`{"Role":"assistant","Content":"looking"},{"Role":"assistant","Content":"[a, on the review hand-off from b, task t1]\ndone"}],"state":{"m":{"k":2},"n":1152921504606847000},"version":3}`; got != want {
		t.Errorf("stored %s, want %s", got, want)
	}
}
