package plan

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// fuzzScope builds a scope whose state, step records, context and input come from JSON (anything that is
// not a JSON object leaves them empty).
func fuzzScope(data string) *Scope {
	var m map[string]any
	_ = json.Unmarshal([]byte(data), &m)
	steps := map[string]map[string]any{}
	for k, v := range m {
		if rec, ok := v.(map[string]any); ok {
			steps[k] = rec
		}
	}
	return &Scope{State: NewState(m), Steps: steps, Context: m, Input: m}
}

func FuzzParseRef(f *testing.F) {
	for _, s := range []string{
		"$state.a", "†state.userInput || †state.default", "$state.p && $state.q", "${dependencies.inst_1.result.data}",
		"${ steps.a.result.0 } || $input.x", "$state.a || $state.b && $state.c", "${state.a", "$$state.a", "† state.a", "",
	} {
		f.Add(s, `{"a": {"b": [1, "x"]}, "p": 1, "q": null}`)
	}
	f.Fuzz(func(t *testing.T, s, data string) {
		IsRef(s)
		r, err := ParseRef(s)
		if err != nil {
			return
		}
		if len(r.Paths()) == 0 {
			t.Fatalf("ParseRef(%q) has no paths", s)
		}
		again, err := ParseRef(r.String())
		if err != nil || !reflect.DeepEqual(again.Paths(), r.Paths()) || again.Gate() != r.Gate() {
			t.Fatalf("ParseRef(%q) does not round-trip through %q: %v", s, r.String(), err)
		}
		r.StepIDs()
		sc := fuzzScope(data)
		v, ok := r.Resolve(sc)
		if !ok && v != nil {
			t.Fatalf("absent reference %q resolved to %v", s, v)
		}
	})
}

func FuzzParseOutput(f *testing.F) {
	for _, s := range []string{
		"state.a", "†state.data.user.verified || †state.data.user.failed", "$state.a && $state.b.c && state.d",
		"state.a || state.b || state.c", "steps.a", "state", "state.a && state.a.b", "state.0.1",
	} {
		f.Add(s, `{"a": "text", "b": [1]}`)
	}
	f.Fuzz(func(t *testing.T, s, data string) {
		o, err := ParseOutput(s)
		if err != nil {
			return
		}
		for _, p := range o.Paths() {
			if p[0] != RootState || len(p) < 2 {
				t.Fatalf("ParseOutput(%q) accepted path %v", s, p)
			}
		}
		sc := fuzzScope(data)
		for _, st := range []Status{Completed, Failed, Timeout, Skipped} {
			_ = o.Write(sc.State, map[string]any{"r": 1}, errors.New("e"), st)
		}
		sc.State.Snapshot()
	})
}

func FuzzCompileCondition(f *testing.F) {
	for _, s := range []string{
		"dependencies.inst_1.status == 'COMPLETED' AND dependencies.inst_1.result.score > 0.8",
		"(dependencies.inst_1.status == 'COMPLETED' AND dependencies.inst_1.result.score > 0.8) OR (dependencies.inst_2.status == 'FAILED')",
		"NOT contains(state.a, 'x') OR isEmpty(context.b)", "steps.fetch-user.result.0 == null", "not (a", "'x' not in state.l",
		"state.a.b.c > 1 && !state.d || state.e[0] != \"y\"", "NOT NOT NOT", "len(state.a) > 2 ? true : false",
		"all(state.l, {# > 1})", "state.a.1.2 contains 'x'", "steps['x'].status == nil",
	} {
		f.Add(s, `{"a": {"b": {"c": 2}}, "l": [1, 2], "inst_1": {"status": "COMPLETED", "result": {"score": 0.9}}}`)
	}
	f.Fuzz(func(t *testing.T, s, data string) {
		rewrite(s)
		c, err := CompileCondition(s)
		if err != nil {
			return
		}
		c.StepIDs()
		if ok, err := c.Eval(fuzzScope(data)); ok && err != nil {
			t.Fatalf("%q is true with an error: %v", s, err)
		}
		if ok, err := c.Eval(&Scope{}); ok && err != nil {
			t.Fatalf("%q is true with an error: %v", s, err)
		}
	})
}

func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"state.a.b", "steps.x-y.0", "", "a..b", "input"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePath(s)
		if err == nil && p.String() != s {
			t.Fatalf("ParsePath(%q).String() = %q", s, p.String())
		}
	})
}
