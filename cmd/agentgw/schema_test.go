package main

import (
	"flag"
	"log/slog"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/internal/golden"
	"github.com/agentgw/agentgw/schema"
)

// schemaFiles are the committed schemas, relative to this package.
const (
	agentSchemaFile  = "../../configs/schema/agent.schema.json"
	configSchemaFile = "../../configs/schema/config.schema.json"
	testSchemaFile   = "../../configs/schema/agent-test.schema.json"
)

// sourceDocs are the doc comments of the types the schemas reflect, read
// from their source: the packages a first pass over the types met.
func sourceDocs(t *testing.T) schema.Docs {
	t.Helper()
	const module = "github.com/agentgw/agentgw"
	dirs := map[string]string{}
	for _, gen := range []func(schema.Docs) (schema.Generated, error){agentSchema, configSchema, agentTestSchema} {
		g, err := gen(nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, pkg := range g.Packages {
			switch {
			case pkg == "main":
				dirs[pkg] = "."
			case pkg == module || strings.HasPrefix(pkg, module+"/"):
				dirs[pkg] = filepath.Join("..", "..", filepath.FromSlash(strings.TrimPrefix(pkg, module)))
			}
		}
	}
	docs, err := schema.ExtractDocs(dirs)
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// TestSchemaFiles: the committed schemas (configs/schema) and the doc
// comments the binary makes them with (schema_docs_gen.go) are what the
// types, step kinds, tool runtimes and comments make now; go test
// -update writes all three. `agentgw schema` prints the committed files.
func TestSchemaFiles(t *testing.T) {
	docs := sourceDocs(t)
	used := schema.Docs{}
	for _, tc := range []struct {
		file string
		gen  func(schema.Docs) (schema.Generated, error)
	}{
		{agentSchemaFile, agentSchema},
		{configSchemaFile, configSchema},
		{testSchemaFile, agentTestSchema},
	} {
		g, err := tc.gen(docs)
		if err != nil {
			t.Fatal(err)
		}
		maps.Copy(used, g.Docs)
		out, err := schema.JSON(g.Schema)
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, tc.file, out)
	}
	src, err := used.GoSource("main", "schemaDocs", "go test ./cmd/agentgw -run TestSchemaFiles -update")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "schema_docs_gen.go", src)
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		t.Log("-update: the binary was built with the old docs; run the test again to compare agentgw schema's output")
		return
	}
	for arg, file := range map[string]string{"agent": agentSchemaFile, "config": configSchemaFile, "test": testSchemaFile} {
		code, stdout, stderr := runCLI(t, nil, "schema", arg)
		if code != 0 {
			t.Fatalf("schema %s: exit %d: %s", arg, code, stderr)
		}
		golden.Check(t, file, []byte(stdout))
	}
}

// TestSchemaUsage: a missing or unknown schema name is a usage error.
func TestSchemaUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "agentgw schema: want one of agent, config or test, got 0 arguments\nUsage: agentgw schema agent|config|test [flags]\n"},
		{[]string{"agent", "config"}, "agentgw schema: want one of agent, config or test, got 2 arguments\nUsage: agentgw schema agent|config|test [flags]\n"},
		{[]string{"agents"}, `agentgw schema: unknown schema "agents": agent, config or test`},
	} {
		code, _, stderr := runCLI(t, nil, append([]string{"schema"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("schema %v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestSchemaKinds: the agent schema's steps take exactly the kinds of the
// registry lint and serve load with, each with its spec's doc.
func TestSchemaKinds(t *testing.T) {
	g, err := agentSchema(nil)
	if err != nil {
		t.Fatal(err)
	}
	props := g.Schema["$defs"].(schema.Schema)["agent.Step"].(schema.Schema)["properties"].(schema.Schema)
	kinds := newLoader(&Config{}, envOf(nil), services{}, slog.New(slog.DiscardHandler)).kinds
	for _, name := range kinds.KindNames() {
		spec, _ := kinds.KindSpec(name)
		p, ok := props[name].(schema.Schema)
		if !ok {
			t.Errorf("step kind %s: no property in the schema", name)
			continue
		}
		if p["description"] != spec.Doc {
			t.Errorf("step kind %s: description %q, want the spec's %q", name, p["description"], spec.Doc)
		}
	}
}
