package toolload

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/tools"
)

// TestLoadTools: the tools of several files load; a file that cannot be
// read or parsed, a name defined twice and a tool that does not compile
// are reported at their positions and skipped, and a warning keeps the
// tool.
func TestLoadTools(t *testing.T) {
	noop := func(context.Context, map[string]any) (any, error) { return nil, nil }
	m := tools.NewManager(tools.Config{Builtins: map[string]tools.BuiltinFunc{"x": noop}})
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a.yaml", `
- {name: one, description: d, runtime: builtin, entry: x}
- {name: one, description: d, runtime: builtin, entry: x}
- {name: weird, description: d, runtime: bash}
`)
	b := write("b.yaml", "- {name: two, description: d, runtime: builtin, entry: x}\n")
	bad := write("bad.yaml", "- [\n")
	missing := filepath.Join(dir, "missing.yaml")
	got, diags := LoadTools(m, a, b, bad, missing)
	if len(got) != 2 || got["one"] == nil || got["two"] == nil {
		t.Errorf("loaded %v, want one and two", got)
	}
	want := a + `:3:3: tool "one" is defined twice` + "\n" +
		a + `:4:3: tool "weird": runtime "bash": unknown; one of builtin, frontend, http, javascript, native, python, wasm` + "\n" +
		bad + ":1:4: syntax error: did not find expected node content\n" +
		missing + ": reading tools: open " + missing + ": "
	if !strings.HasPrefix(diags.String(), want) {
		t.Errorf("diagnostics:\n%s\nwant them to start with:\n%s", diags, want)
	}
	if diags.Errors() != 4 {
		t.Errorf("%d errors, want 4:\n%s", diags.Errors(), diags)
	}
}
