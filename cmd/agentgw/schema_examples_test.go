package main

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agenttest"
	"github.com/agentgw/agentgw/schema"
)

// compileSchemaFile compiles a committed schema.
func compileSchemaFile(t *testing.T, file string) *jsonschema.Schema {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	url := "file:///" + filepath.Base(file)
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s does not compile: %v", file, err)
	}
	return s
}

// validateYAML validates every document of a YAML (or JSON) file against
// s, joining the problems.
func validateYAML(s *jsonschema.Schema, data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var errs []error
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return errors.Join(errs...)
		}
		if err != nil {
			return err
		}
		if v == nil {
			continue
		}
		j, err := schema.ToJSON(v)
		if err != nil {
			return err
		}
		if err := s.Validate(j); err != nil {
			errs = append(errs, err)
		}
	}
}

var modeline = regexp.MustCompile(`\A# yaml-language-server: \$schema=(\S+)\n`)

// TestSchemaExamples: every example file under configs validates against
// its schema (agents/ against the agent schema, their *_test.yaml against
// the agent test schema, gateway.yaml against the config schema), and every YAML one starts with the yaml-language-server
// comment naming that schema by a path that resolves to it.
func TestSchemaExamples(t *testing.T) {
	const root = "../../configs"
	schemas := map[string]*jsonschema.Schema{
		agentSchemaFile:  compileSchemaFile(t, agentSchemaFile),
		configSchemaFile: compileSchemaFile(t, configSchemaFile),
		testSchemaFile:   compileSchemaFile(t, testSchemaFile),
	}
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		var want string
		inAgents := strings.HasPrefix(rel, "agents"+string(filepath.Separator))
		switch {
		case inAgents && agenttest.IsTestFile(p):
			want = testSchemaFile
		case inAgents && agent.IsDefinitionFile(p):
			want = agentSchemaFile
		case rel == "gateway.yaml":
			want = configSchemaFile
		default:
			return nil
		}
		n++
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".yaml") {
			m := modeline.FindSubmatch(data)
			if m == nil {
				t.Errorf("%s: does not start with # yaml-language-server: $schema=...", rel)
			} else if got := filepath.Join(filepath.Dir(p), filepath.FromSlash(string(m[1]))); got != filepath.Clean(want) {
				t.Errorf("%s: $schema=%s is %s, want %s", rel, m[1], got, want)
			}
		}
		if err := validateYAML(schemas[want], data); err != nil {
			t.Errorf("%s does not validate against %s:\n%v", rel, filepath.Base(want), err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 15 {
		t.Errorf("checked %d example files; want the agents, their tests and gateway.yaml", n)
	}
}
