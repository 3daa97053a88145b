package plan

import (
	"reflect"
	"strings"
	"testing"
)

func TestIsRef(t *testing.T) {
	tests := map[string]bool{
		"$state.x": true, "  $input.action.node ": true, "†state.userInput": true, "${dependencies.a.result}": true,
		"$context.file || $state.f": true, "$5.00": false, "$state": false, "$foo.bar": false, "state.x": false,
		"hello $state.x": false, "": false, "$": false, "${": true,
	}
	for in, want := range tests {
		if got := IsRef(in); got != want {
			t.Errorf("IsRef(%q) = %v, want %v", in, got, want)
		}
	}
}

// refScope is a scope with a value of every interesting type.
func refScope() *Scope {
	return &Scope{
		State: NewState(map[string]any{
			"userInput": "typed", "default": "fallback", "empty": "", "zero": 0, "no": false, "null": nil,
			"profile": map[string]any{"name": "ann"}, "permissions": []any{"read", "write"},
		}),
		Steps: map[string]map[string]any{
			"inst_1": {"id": "inst_1", "status": "COMPLETED", "result": map[string]any{"data": []any{1.5, 2}}},
		},
		Context: map[string]any{"branch": "main", "typed": struct {
			Name string `json:"name"`
		}{"ann"}},
		Input: map[string]any{"action": map[string]any{"node": map[string]any{"id": "n1"}}},
	}
}

func TestRefResolve(t *testing.T) {
	tests := []struct {
		in      string
		gate    bool
		paths   []string
		want    any
		present bool
	}{
		{in: "$state.userInput", paths: []string{"state.userInput"}, want: "typed", present: true},
		{in: "†state.userInput", paths: []string{"state.userInput"}, want: "typed", present: true},
		{in: "${dependencies.inst_1.result.data}", paths: []string{"dependencies.inst_1.result.data"}, want: []any{1.5, 2}, present: true},
		{in: "${ steps.inst_1.result.data.0 }", paths: []string{"steps.inst_1.result.data.0"}, want: 1.5, present: true},
		{in: "$state.missing || $state.default", paths: []string{"state.missing", "state.default"}, want: "fallback", present: true},
		{in: "†input.optionalData||†state.default", paths: []string{"input.optionalData", "state.default"}, want: "fallback", present: true},
		{in: "$state.userInput || $state.default", paths: []string{"state.userInput", "state.default"}, want: "typed", present: true},
		{in: "$state.null || $state.zero", paths: []string{"state.null", "state.zero"}, want: 0, present: true},
		{in: "$state.empty || $state.default", paths: []string{"state.empty", "state.default"}, want: "", present: true},
		{in: "$state.no", paths: []string{"state.no"}, want: false, present: true},
		{in: "$state.a || $state.b", paths: []string{"state.a", "state.b"}, want: nil, present: false},
		{in: "$state.profile && $state.permissions", gate: true, paths: []string{"state.profile", "state.permissions"}, want: []any{"read", "write"}, present: true},
		{in: "†state.permissions && †state.profile", gate: true, paths: []string{"state.permissions", "state.profile"}, want: map[string]any{"name": "ann"}, present: true},
		{in: "$state.profile && $state.missing", gate: true, paths: []string{"state.profile", "state.missing"}, want: nil, present: false},
		{in: "${state.profile} && ${context.branch}", gate: true, paths: []string{"state.profile", "context.branch"}, want: "main", present: true},
		{in: "$context.typed.name", paths: []string{"context.typed.name"}, want: "ann", present: true},
		{in: "$input.action.node.id", paths: []string{"input.action.node.id"}, want: "n1", present: true},
		{in: "$state.permissions.5", paths: []string{"state.permissions.5"}, want: nil, present: false},
		{in: "$state.userInput.x", paths: []string{"state.userInput.x"}, want: nil, present: false},
		{in: "$steps.nope.result", paths: []string{"steps.nope.result"}, want: nil, present: false},
	}
	sc := refScope()
	for _, tt := range tests {
		r, err := ParseRef(tt.in)
		if err != nil {
			t.Errorf("ParseRef(%q): %v", tt.in, err)
			continue
		}
		var paths []string
		for _, p := range r.Paths() {
			paths = append(paths, p.String())
		}
		if r.Gate() != tt.gate || !reflect.DeepEqual(paths, tt.paths) {
			t.Errorf("ParseRef(%q) gate=%v paths=%q, want %v %q", tt.in, r.Gate(), paths, tt.gate, tt.paths)
		}
		got, ok := r.Resolve(sc)
		if ok != tt.present || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q.Resolve = %#v, %v; want %#v, %v", tt.in, got, ok, tt.want, tt.present)
		}
	}
}

func TestRefResolveCopies(t *testing.T) {
	sc := refScope()
	r, _ := ParseRef("$state.profile")
	v, _ := r.Resolve(sc)
	v.(map[string]any)["name"] = "changed"
	if again, _ := r.Resolve(sc); again.(map[string]any)["name"] != "ann" {
		t.Fatalf("modifying a resolved value changed the state: %v", again)
	}
}

func TestRefStepIDs(t *testing.T) {
	r, err := ParseRef("$steps.a.result || $dependencies.b-2.result || $state.x || ${steps.a.error}")
	if err != nil {
		t.Fatal(err)
	}
	if got := r.StepIDs(); !reflect.DeepEqual(got, []string{"a", "b-2"}) {
		t.Errorf("StepIDs = %q", got)
	}
	if r.String() != "$steps.a.result || $dependencies.b-2.result || $state.x || ${steps.a.error}" {
		t.Errorf("String = %q", r.String())
	}
}

func TestParseRefErrors(t *testing.T) {
	tests := []struct{ in, wantErr string }{
		{"", "empty reference"},
		{"   ", "empty reference"},
		{"$state.a || $state.b && $state.c", "mixes || and &&"},
		{"$state.a ||", "operand 2: empty operand"},
		{"|| $state.a", "operand 1: empty operand"},
		{"$state.a || state.b", `operand 2: "state.b": a path in a reference starts with $ or †`},
		{"${state.a", "${ without its closing }"},
		{"$user.name", `root "user"`},
		{"$state..a", "empty segment"},
		{"$state.a | $state.b", "neither an identifier"},
		{"${state.a} x", "${ without its closing }"},
	}
	for _, tt := range tests {
		_, err := ParseRef(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("ParseRef(%q) error = %v, want containing %q", tt.in, err, tt.wantErr)
		}
	}
}
