package plan

import (
	"reflect"
	"testing"
	"time"
)

// mustRef parses a reference or fails the test.
func mustRef(t testing.TB, s string) *Ref {
	t.Helper()
	r, err := ParseRef(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// mustCond compiles a condition or fails the test.
func mustCond(t testing.TB, s string) *Condition {
	t.Helper()
	c, err := CompileCondition(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// mustOut parses an output path or fails the test.
func mustOut(t testing.TB, s string) *Output {
	t.Helper()
	o, err := ParseOutput(s)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestNewPlanErrors(t *testing.T) {
	tests := []struct {
		name  string
		nodes []Node
		want  []string
	}{
		{name: "empty and duplicate ids", nodes: []Node{{ID: ""}, {ID: "a"}, {ID: "a"}, {ID: "my step"}},
			want: []string{
				"step 0 (id): empty id",
				`step 2 (id): duplicate id "a" (first used by step 1)`,
				`step 3 (id): id "my step": use letters, digits, _ and - (starting with a letter or _), or a number`,
			}},
		{name: "unknown dependency with a suggestion", nodes: []Node{{ID: "fetch_user"}, {ID: "b", DependsOn: []string{"fetch_usr", "zzz"}}},
			want: []string{
				`step 1 (dependsOn): depends on unknown step "fetch_usr" (did you mean "fetch_user"?)`,
				`step 1 (dependsOn): depends on unknown step "zzz"`,
			}},
		{name: "self dependency", nodes: []Node{{ID: "a", DependsOn: []string{"a"}}},
			want: []string{`step 0 (dependsOn): step "a" depends on itself`}},
		{name: "references and conditions", nodes: []Node{
			{ID: "load"},
			{ID: "b", When: mustCond(t, "steps.lod.status == 'COMPLETED' AND dependencies.b.status == nil"),
				Refs: map[string]*Ref{"x": mustRef(t, "$steps.nope.result || $state.y"), "y": nil}},
		},
			want: []string{
				`step 1 (when): names unknown step "lod" (did you mean "load"?)`,
				`step 1 (when): step "b" depends on itself`,
				`step 1 (with.x): references unknown step "nope"`,
				"step 1 (with.y): nil reference",
			}},
		{name: "settings", nodes: []Node{{ID: "a", Timeout: -1, Retry: Retry{Limit: -1, Backoff: -time.Second}, OnError: "ignore"}},
			want: []string{
				"step 0 (timeout): negative timeout -1ns",
				"step 0 (retry.limit): negative retry limit -1",
				"step 0 (retry.backoff): negative backoff -1s",
				`step 0 (onError): unknown onError "ignore" (want fail or continue)`,
			}},
		{name: "two-step cycle", nodes: []Node{{ID: "a", DependsOn: []string{"b"}}, {ID: "b", DependsOn: []string{"a"}}},
			want: []string{"step 0 (dependsOn): dependency cycle: a -> b -> a"}},
		{name: "cycles through implicit dependencies, with a tail", nodes: []Node{
			{ID: "x"},
			{ID: "a", DependsOn: []string{"x"}, Refs: map[string]*Ref{"in": mustRef(t, "${dependencies.c.result}")}},
			{ID: "b", DependsOn: []string{"a"}},
			{ID: "c", When: mustCond(t, "steps.b.status == 'COMPLETED'")},
			{ID: "d", DependsOn: []string{"c"}},
			{ID: "e", DependsOn: []string{"f"}},
			{ID: "f", DependsOn: []string{"e", "x"}},
		},
			want: []string{
				"step 1 (dependsOn): dependency cycle: a -> c -> b -> a",
				"step 5 (dependsOn): dependency cycle: e -> f -> e",
			}},
		{name: "cycle found alongside other errors", nodes: []Node{{ID: "a", DependsOn: []string{"b", "q"}}, {ID: "b", DependsOn: []string{"a"}}},
			want: []string{
				`step 0 (dependsOn): depends on unknown step "q"`,
				"step 0 (dependsOn): dependency cycle: a -> b -> a",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, errs := NewPlan(tt.nodes)
			if p != nil {
				t.Error("got a plan despite errors")
			}
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("errors:\n%q\nwant:\n%q", got, tt.want)
			}
		})
	}
}

func TestNewPlanEmpty(t *testing.T) {
	p, errs := NewPlan(nil)
	if p != nil || len(errs) != 1 || errs[0].Step != -1 || errs[0].Field != "steps" || errs[0].Error() != "plan: no steps" {
		t.Errorf("NewPlan(nil) = %v, %v", p, errs)
	}
}

func TestPlanDeps(t *testing.T) {
	p, errs := NewPlan([]Node{
		{ID: "a"},
		{ID: "b"},
		{ID: "c", DependsOn: []string{"b", "a", "b"}},
		{ID: "d", DependsOn: []string{"a"}, When: mustCond(t, "dependencies.c.status == 'COMPLETED'"),
			Refs: map[string]*Ref{"x": mustRef(t, "$steps.b.result && $state.x")}},
	})
	if errs != nil {
		t.Fatal(errs)
	}
	want := [][]int{nil, nil, {0, 1}, {0, 1, 2}}
	for i := range want {
		if got := p.Deps(i); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("Deps(%d) = %v, want %v", i, got, want[i])
		}
	}
	if p.Len() != 4 || p.Node(3).ID != "d" {
		t.Errorf("Len = %d, Node(3) = %q", p.Len(), p.Node(3).ID)
	}
}

func TestRetryDelay(t *testing.T) {
	r := Retry{Backoff: time.Second}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second}
	for i, w := range want {
		if got := r.delay(i + 1); got != w {
			t.Errorf("delay(%d) = %v, want %v", i+1, got, w)
		}
	}
	if got := (Retry{Backoff: time.Hour}).delay(1); got != MaxBackoff {
		t.Errorf("a backoff over the cap = %v", got)
	}
}
