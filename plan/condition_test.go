package plan

import (
	"reflect"
	"strings"
	"testing"
)

// seedScope is the evaluation context of the seed's example (section 6.2), plus state, context and input.
func seedScope() *Scope {
	return &Scope{
		State: NewState(map[string]any{
			"user": map[string]any{"name": "ann", "admin": true, "tags": []any{"go", "rust"}, "blank": "  "},
			"n":    3, "f": 2.5, "empty": map[string]any{}, "none": []any{},
		}),
		Steps: map[string]map[string]any{
			"inst_1": {"status": "COMPLETED", "result": map[string]any{
				"score": 0.92, "items": []any{"apple", "banana", "orange"},
				"metadata": map[string]any{"source": "primary", "confidence": "high"},
			}},
			"inst_2":     {"status": "COMPLETED", "result": map[string]any{"count": 5, "threshold": 0.75}},
			"fetch-user": {"status": "FAILED", "error": map[string]any{"message": "boom"}},
		},
		Context: map[string]any{"branch": "main", "files": []string{"a.go", "b.go"}, "ids": []any{1.0, 2.0}},
		Input:   map[string]any{"action": map[string]any{"node": map[string]any{"id": "n1"}}},
	}
}

func TestConditionEval(t *testing.T) {
	tests := []struct {
		src     string
		want    bool
		wantErr string // evaluation error (the result is then false)
	}{
		// The seed's examples, verbatim.
		{src: "dependencies.inst_1.status == 'COMPLETED'", want: true},
		{src: "dependencies.inst_1.status == 'COMPLETED' AND dependencies.inst_1.result.score > 0.8", want: true},
		{src: "dependencies.inst_1.result.score < 0.5 OR dependencies.inst_2.result.count > 3", want: true},
		{src: "(dependencies.inst_1.status == 'COMPLETED' AND dependencies.inst_1.result.score > 0.8) OR (dependencies.inst_2.status == 'FAILED')", want: true},
		{src: "dependencies.inst_1.result.anomaly_detected == true", want: false},
		{src: "dependencies.inst_abcdef.status == 'SUCCESS'", want: false},
		// Logic in every spelling.
		{src: "steps.inst_1.status == 'COMPLETED' and steps.inst_2.status == 'FAILED'", want: false},
		{src: "steps.inst_1.status == 'FAILED' or state.n == 3", want: true},
		{src: "state.n == 3 && state.f < 3 || false", want: true},
		{src: "NOT state.user.admin", want: false},
		{src: "not state.user.admin", want: false},
		{src: "!state.user.admin", want: false},
		{src: "NOT state.user.name == 'bob'", want: true},
		{src: "NOT state.n > 1 AND NOT (state.n > 5 OR NOT true)", want: false},
		{src: "NOT NOT state.user.admin", want: true},
		{src: "state.n > 1 AND NOT state.user.name == 'ann' OR state.f == 2.5", want: true},
		{src: "isEmpty(state.missing) AND NOT isEmpty(state.user.tags)", want: true},
		{src: "'x' not in state.user.tags", want: true},
		// contains(): strings, lists, maps.
		{src: "contains(state.user.name, 'nn')", want: true},
		{src: "contains(state.user.name, 'x')", want: false},
		{src: "contains(dependencies.inst_1.result.items, 'banana')", want: true},
		{src: "contains(dependencies.inst_1.result.items, 'kiwi')", want: false},
		{src: "contains(context.files, 'b.go')", want: true},
		{src: "contains(context.ids, 2)", want: true},
		{src: "contains(dependencies.inst_1.result.metadata, 'source')", want: true},
		{src: "contains(dependencies.inst_1.result.metadata, 'primary')", want: false},
		{src: "contains(state.missing, 'a')", want: false},
		{src: "contains (state.user.tags, \"go\")", want: true},
		{src: "state.user.name contains 'an'", want: true},
		// isEmpty().
		{src: "isEmpty(state.missing)", want: true},
		{src: "isEmpty(state.user.blank)", want: true},
		{src: "isEmpty(state.user.name)", want: false},
		{src: "isEmpty(state.empty) AND isEmpty(state.none)", want: true},
		{src: "isEmpty(state.user.tags)", want: false},
		{src: "isEmpty(state.n)", want: false},
		{src: "isEmpty(null)", want: true},
		// Missing paths are nil.
		{src: "state.nope.deeper.still == 'x'", want: false},
		{src: "state.nope.deeper == nil", want: true},
		{src: "state.nope == null", want: true},
		{src: "state.nope", want: false},
		{src: "state.user.name.x == null", want: true},
		{src: "state.user.tags.5 == nil", want: true},
		{src: "steps.ghost.status != 'COMPLETED'", want: true},
		// Comparisons of strings, numbers, bools; paths on both sides.
		{src: "state.user.name == \"ann\"", want: true},
		{src: "state.user.name != 'ann'", want: false},
		{src: "state.user.name < 'bob'", want: true},
		{src: "state.n >= 3 AND state.n <= 3.0", want: true},
		{src: "state.f > state.n", want: false},
		{src: "dependencies.inst_2.result.count > dependencies.inst_2.result.threshold", want: true},
		{src: "state.user.admin == true", want: true},
		{src: "state.user.admin != false", want: true},
		{src: "state.n == 3.0", want: true},
		// Paths in every form.
		{src: "steps.fetch-user.status == 'FAILED'", want: true},
		{src: "dependencies.fetch-user.error.message == 'boom'", want: true},
		{src: "steps['fetch-user'].status == 'FAILED'", want: true},
		{src: "state.user.tags.1 == 'rust'", want: true},
		{src: "state.user.tags[0] == 'go'", want: true},
		{src: "context.files.0 == 'a.go'", want: true},
		{src: "input.action.node.id == 'n1'", want: true},
		{src: "context.branch == 'main' AND state.AND == nil", want: true},
		{src: "state.n - 1 == 2", want: true},
		{src: "'AND' == 'AND' AND \"NOT x\" != 'x'", want: true},
		// Evaluation errors: false plus the error.
		{src: "state.nope > 0.8", wantErr: "invalid operation: <nil> > float64"},
		{src: "state.n", wantErr: "bool(int)"},
		{src: "state.user.name > 1", wantErr: "invalid operation"},
	}
	sc := seedScope()
	for _, tt := range tests {
		c, err := CompileCondition(tt.src)
		if err != nil {
			t.Errorf("CompileCondition(%q): %v", tt.src, err)
			continue
		}
		got, err := c.Eval(sc)
		if tt.wantErr != "" {
			if got || err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q = %v, %v; want false and an error containing %q", tt.src, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q = %v, %v; want %v", tt.src, got, err, tt.want)
		}
	}
}

func TestConditionEmptyScope(t *testing.T) {
	c, err := CompileCondition("state.a == nil AND steps.x.status == nil AND context.c == nil AND input.i == nil")
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range []*Scope{nil, {}} {
		if ok, err := c.Eval(sc); !ok || err != nil {
			t.Errorf("Eval(%v) = %v, %v; want true", sc, ok, err)
		}
	}
}

func TestCompileConditionErrors(t *testing.T) {
	tests := []struct{ src, wantErr string }{
		{"", "empty condition"},
		{"  ", "empty condition"},
		{"user.name == 'x'", "unknown name user"},
		{"1 + 2", "expected bool, but got int"},
		{"state.a ==", "unexpected token EOF"},
		{"state.a == 'x", "literal not terminated"},
		{"(state.a", "unexpected token EOF"},
		{"contains(state.a)", "not enough arguments"},
		{"isEmpty(state.a, 1)", "too many arguments"},
	}
	for _, tt := range tests {
		_, err := CompileCondition(tt.src)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("CompileCondition(%q) error = %v, want containing %q", tt.src, err, tt.wantErr)
		}
	}
}

func TestConditionStepIDs(t *testing.T) {
	c, err := CompileCondition("dependencies.inst_1.status == 'COMPLETED' AND steps.b-2.result.x > 1 OR steps['c'].status == 'X' OR dependencies.inst_1.attempts > 1 OR state.steps.z == 1")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.StepIDs(); !reflect.DeepEqual(got, []string{"inst_1", "b-2", "c"}) {
		t.Errorf("StepIDs = %q", got)
	}
	if c.String() != "dependencies.inst_1.status == 'COMPLETED' AND steps.b-2.result.x > 1 OR steps['c'].status == 'X' OR dependencies.inst_1.attempts > 1 OR state.steps.z == 1" {
		t.Errorf("String = %q", c.String())
	}
}

func TestRewrite(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a AND b OR c", "a and b or c"},
		{"NOT a == b", "not ( a == b)"},
		{"NOT a AND b", "not ( a )and b"},
		{"NOT (a OR b) AND c", "not ( (a or b) )and c"},
		{"f(NOT a, b)", "f(not ( a), b)"},
		{"a not in b", "a not in b"},
		{"x == null", "x == nil"},
		{"contains(a, 'AND')", "_contains(a, 'AND')"},
		{"a contains b", "a contains b"},
		{"steps.fetch-user.status", `steps["fetch-user"].status`},
		{"state.items.0.name", "state.items[0].name"},
		{"state.a - 1", "state.a - 1"},
		{"1.5 > state.x.AND", "1.5 > state.x.AND"},
		{`"it's" == 'say "NOT"'`, `"it's" == 'say "NOT"'`},
		{`'a\'AND' == x`, `'a\'AND' == x`},
		{"NOT", "not ()"},
		{"a ? NOT b : c", "a ? not ( b ): c"},
	}
	for _, tt := range tests {
		if got := rewrite(tt.in); got != tt.want {
			t.Errorf("rewrite(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
