package toolload

import (
	"context"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/tools"
)

// Compiler is loading's tool compiler.
var _ program.ToolCompiler = Compiler{}

// TestCompiler: a tool that compiles is the manager's *tools.Tool with its
// warnings; one that does not is no tool at all (not a nil *tools.Tool in
// the interface), with the error naming it.
func TestCompiler(t *testing.T) {
	noop := func(context.Context, map[string]any) (any, error) { return nil, nil }
	c := Compiler{Manager: tools.NewManager(tools.Config{Builtins: map[string]tools.BuiltinFunc{"x": noop}})}
	got, _, err := c.Compile(toolspec.Spec{Name: "ok", Description: "d", Runtime: "builtin", Entry: "x"}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if tt, ok := got.(*tools.Tool); !ok || tt.Name != "ok" {
		t.Errorf("compiled %#v, want the *tools.Tool named ok", got)
	}
	got, _, err = c.Compile(toolspec.Spec{Name: "weird", Runtime: "bash"}, t.TempDir())
	if got != nil || err == nil || !strings.HasPrefix(err.Error(), `tool "weird": `) {
		t.Errorf("compiled %#v, %v; want no tool and an error naming weird", got, err)
	}
}
