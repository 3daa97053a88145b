package stepkind

import (
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent"
)

// fake is a kind with a given spec that compiles nothing.
type fake struct{ spec agent.KindSpec }

func (f fake) Spec() agent.KindSpec       { return f.spec }
func (f fake) Compile(Compiler, any) Step { return nil }

// TestRegister: kinds keep their order, a name is taken once, and a spec
// without a name or with a configuration that is not a pointer is refused.
func TestRegister(t *testing.T) {
	r, err := NewRegistry(fake{agent.KindSpec{Name: "b", Config: new(string)}}, fake{agent.KindSpec{Name: "a", Config: &agent.Text{}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.KindNames(), ","); got != "b,a" {
		t.Errorf("names %s, want b,a", got)
	}
	if s, ok := r.KindSpec("a"); !ok || s.Name != "a" {
		t.Errorf("KindSpec(a) = %+v, %v", s, ok)
	}
	if _, ok := r.Kind("c"); ok {
		t.Error("an unregistered kind was found")
	}
	for _, tc := range []struct {
		spec agent.KindSpec
		want string
	}{
		{agent.KindSpec{Name: "a", Config: new(string)}, `"a": already registered`},
		{agent.KindSpec{Config: new(string)}, "no name"},
		{agent.KindSpec{Name: "c", Config: ""}, "Config must point"},
		{agent.KindSpec{Name: "d"}, "Config must point"},
	} {
		if err := r.Register(fake{tc.spec}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Register(%+v) = %v, want %q", tc.spec, err, tc.want)
		}
	}
}

// TestToPlain: results become the plain data references and templates
// read, whole numbers as int.
func TestToPlain(t *testing.T) {
	type result struct {
		Name  string  `json:"name"`
		Count float64 `json:"count"`
		Part  float64 `json:"part"`
	}
	got, err := ToPlain(result{Name: "x", Count: 3, Part: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	m := got.(map[string]any)
	if m["name"] != "x" || m["count"] != 3 || m["part"] != 0.5 {
		t.Errorf("ToPlain = %#v", got)
	}
}
