package tools

import (
	"context"
	"testing"
)

// TestCaller: a builtin reads the agent the runner named for its call;
// without one it reads "".
func TestCaller(t *testing.T) {
	var got []string
	m := NewManager(Config{Builtins: map[string]BuiltinFunc{"who": func(ctx context.Context, _ map[string]any) (any, error) {
		c, _ := CallerOf(ctx)
		got = append(got, c.Agent)
		return nil, nil
	}}})
	tool, _, err := m.Compile(Spec{Name: "who", Runtime: "builtin", Entry: "who"}, ".")
	if err != nil {
		t.Fatal(err)
	}
	tool.Call(WithCaller(t.Context(), Caller{Agent: "lead"}), Call{ID: "1"})
	tool.Call(t.Context(), Call{ID: "2"})
	if len(got) != 2 || got[0] != "lead" || got[1] != "" {
		t.Fatalf("callers %q, want [lead \"\"]", got)
	}
}
