package plan

import (
	"reflect"
	"testing"
)

type user struct {
	Name  string `json:"name"`
	Email string `json:"email,omitempty"`
	Nick  string
	Skip  string `json:"-"`
	inner string
}

func TestScopeLookup(t *testing.T) {
	u := &user{Name: "ann", Email: "a@x", Nick: "an", Skip: "s", inner: "i"}
	var nilUser *user
	sc := &Scope{
		State: NewState(map[string]any{"list": []any{map[string]any{"k": "v"}}, "nil": nil}),
		Steps: map[string]map[string]any{"1": {"status": "COMPLETED"}, "gone": nil},
		Context: map[string]any{
			"user": u, "nilUser": nilUser, "strs": []string{"a", "b"}, "arr": [2]int{7, 8},
			"smap": map[string]string{"x": "y"}, "imap": map[int]string{1: "one"},
			"named": map[key]int{"k": 1},
		},
		Input: map[string]any{"n": 1},
	}
	tests := []struct {
		path  string
		want  any
		found bool
	}{
		{"state.list.0.k", "v", true},
		{"state.list.1", nil, false},
		{"state.list.x", nil, false},
		{"state.list.0.k.deeper", nil, false},
		{"state.nil", nil, true},
		{"steps.1.status", "COMPLETED", true},
		{"dependencies.1.status", "COMPLETED", true},
		{"steps.gone", nil, false},
		{"steps.gone.status", nil, false},
		{"context.user.name", "ann", true},
		{"context.user.email", "a@x", true},
		{"context.user.Nick", "an", true},
		{"context.user.Name", nil, false},
		{"context.user.Skip", nil, false},
		{"context.user.inner", nil, false},
		{"context.nilUser.name", nil, false},
		{"context.strs.1", "b", true},
		{"context.strs.2", nil, false},
		{"context.arr.0", 7, true},
		{"context.smap.x", "y", true},
		{"context.smap.z", nil, false},
		{"context.imap.1", nil, false},
		{"context.named.k", 1, true},
		{"input.n", 1, true},
		{"input.n.x", nil, false},
		{"steps", map[string]any{"1": map[string]any{"status": "COMPLETED"}, "gone": map[string]any(nil)}, true},
	}
	for _, tt := range tests {
		p, err := ParsePath(tt.path)
		if err != nil {
			t.Fatal(err)
		}
		got, found := sc.Lookup(p)
		if found != tt.found || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Lookup(%s) = %#v, %v; want %#v, %v", tt.path, got, found, tt.want, tt.found)
		}
	}
	var empty *Scope
	if _, ok := empty.Lookup(Path{"state", "x"}); ok {
		t.Error("a nil scope found something")
	}
	if _, ok := (&Scope{}).Lookup(Path{"context"}); ok {
		t.Error("a nil context root was found")
	}
	if _, ok := sc.Lookup(Path{"nope"}); ok {
		t.Error("an unknown root was found")
	}
}

type key string

func TestConditionDecimalStepID(t *testing.T) {
	c := mustCond(t, "steps.1.status == 'COMPLETED' AND steps[2] == nil")
	if got := c.StepIDs(); !reflect.DeepEqual(got, []string{"1", "2"}) {
		t.Errorf("StepIDs = %q", got)
	}
	ok, err := c.Eval(&Scope{Steps: map[string]map[string]any{"1": {"status": "COMPLETED"}}})
	if !ok || err != nil {
		t.Errorf("Eval = %v, %v", ok, err)
	}
}

func TestLooseEqual(t *testing.T) {
	tests := []struct {
		a, b any
		want bool
	}{
		{1, 1.0, true}, {uint8(2), int64(2), true}, {1, "1", false}, {"a", "a", true}, {nil, nil, true},
		{nil, 0, false}, {[]any{1}, []any{1}, true}, {[]any{1}, []any{2}, false}, {map[string]any{}, "x", false},
	}
	for _, tt := range tests {
		if got := looseEqual(tt.a, tt.b); got != tt.want {
			t.Errorf("looseEqual(%#v, %#v) = %v", tt.a, tt.b, got)
		}
	}
}
