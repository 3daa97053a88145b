package schema

import (
	"encoding/json"
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/agentgw/agentgw/agent"
)

// kinds is a fixed set of step kinds.
type kinds []agent.KindSpec

func (k kinds) KindSpec(name string) (agent.KindSpec, bool) {
	for _, s := range k {
		if s.Name == name {
			return s, true
		}
	}
	return agent.KindSpec{}, false
}

func (k kinds) KindNames() []string {
	var out []string
	for _, s := range k {
		out = append(out, s.Name)
	}
	return out
}

type inner struct {
	N int `yaml:"n" doc:"a number" default:"3"`
}

type sample struct {
	Pos   agent.Position   `yaml:"-"`
	Name  string           `yaml:"name"`
	Deps  []string         `yaml:"dependsOn" alias:"dependencies"`
	Wait  time.Duration    `yaml:"wait"`
	In    *inner           `yaml:"in"`
	Map   map[string]int   `yaml:"map"`
	Kinds []agent.StepKind `yaml:",kinds"`
	skip  string
	Plain bool
}

// TestReflect: fields by yaml tag (untagged ones skipped), aliases as
// properties that exclude their field, named structs in $defs with their
// docs and defaults, fixed types, and one property per step kind of which
// exactly one must be present (an empty string counting as none).
func TestReflect(t *testing.T) {
	r := &Reflector{
		Docs:  Docs{"github.com/agentgw/agentgw/schema.sample.Name": "the name", "github.com/agentgw/agentgw/schema.sample": "a sample"},
		Types: map[reflect.Type]Schema{reflect.TypeFor[time.Duration](): {"type": "string"}},
		Kinds: kinds{{Name: "say", Doc: "says", Config: new(string)}, {Name: "do", Config: &inner{}}},
	}
	root := r.Reflect(reflect.TypeFor[sample]())
	got, err := JSON(Document(r, root, "t", "d").Schema)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "$defs": {
    "schema.inner": {
      "additionalProperties": false,
      "properties": {
        "n": {
          "default": 3,
          "description": "a number",
          "type": "integer"
        }
      },
      "type": "object"
    },
    "schema.sample": {
      "additionalProperties": false,
      "allOf": [
        {
          "not": {
            "required": [
              "dependsOn",
              "dependencies"
            ]
          }
        },
        {
          "oneOf": [
            {
              "properties": {
                "say": {
                  "minLength": 1,
                  "not": {
                    "type": "null"
                  }
                }
              },
              "required": [
                "say"
              ]
            },
            {
              "properties": {
                "do": {
                  "not": {
                    "type": "null"
                  }
                }
              },
              "required": [
                "do"
              ]
            }
          ]
        }
      ],
      "description": "a sample",
      "properties": {
        "dependencies": {
          "description": "Another spelling of dependsOn.",
          "items": {
            "type": "string"
          },
          "type": "array"
        },
        "dependsOn": {
          "items": {
            "type": "string"
          },
          "type": "array"
        },
        "do": {
          "$ref": "#/$defs/schema.inner"
        },
        "in": {
          "$ref": "#/$defs/schema.inner"
        },
        "map": {
          "additionalProperties": {
            "type": "integer"
          },
          "type": "object"
        },
        "name": {
          "description": "the name",
          "type": "string"
        },
        "say": {
          "description": "says",
          "type": "string"
        },
        "wait": {
          "type": "string"
        }
      },
      "type": "object"
    }
  },
  "$ref": "#/$defs/schema.sample",
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "description": "d",
  "title": "t"
}
`
	if string(got) != want {
		t.Errorf("schema:\n%s\nwant:\n%s", got, want)
	}
	if used := r.UsedDocs(); len(used) != 2 {
		t.Errorf("used docs %v, want the two read", used)
	}
}

// TestDuration: the duration patterns take what time.ParseDuration takes
// (the unsigned one no negative durations) on a table of spellings.
func TestDuration(t *testing.T) {
	signed := regexp.MustCompile(Duration(true)["pattern"].(string))
	unsigned := regexp.MustCompile(Duration(false)["pattern"].(string))
	for _, s := range []string{"0", "30s", "1h30m", "1.5h", ".5s", "300ms", "2us", "-5s", "+5s", "5", "", "s", "1d", "5 s", "1e3s"} {
		d, err := time.ParseDuration(s)
		if got, want := signed.MatchString(s), err == nil; got != want {
			t.Errorf("signed pattern on %q: %v, want %v", s, got, want)
		}
		if got, want := unsigned.MatchString(s), err == nil && d >= 0; got != want {
			t.Errorf("unsigned pattern on %q: %v, want %v", s, got, want)
		}
	}
}

// TestDescribeFromYAML: head comments describe keys, values become
// defaults (non-empty lists examples), nested structs are followed, and
// keys that are no field are left alone.
func TestDescribeFromYAML(t *testing.T) {
	type sub struct {
		Level string `yaml:"level"`
	}
	type conf struct {
		Addr  string   `yaml:"addr"`
		Hosts []string `yaml:"hosts"`
		Log   sub      `yaml:"log"`
	}
	r := &Reflector{}
	r.Reflect(reflect.TypeFor[conf]())
	file := "# yaml-language-server: $schema=x.json\n# The file.\n\n# Where to listen,\n# host:port.\naddr: \":80\"\n# Hosts, e.g.:\n#   - a\nhosts: [a, b]\nlog:\n  # How much.\n  level: info\nextra: 1\n"
	if err := DescribeFromYAML(r, reflect.TypeFor[conf](), []byte(file)); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(r.Defs())
	want := `{"schema.conf":{"additionalProperties":false,"properties":{"addr":{"default":":80","description":"Where to listen, host:port.","type":"string"},"hosts":{"description":"Hosts, e.g.:\n  - a","examples":[["a","b"]],"items":{"type":"string"},"type":"array"},"log":{"$ref":"#/$defs/schema.sub"}},"type":"object"},"schema.sub":{"additionalProperties":false,"properties":{"level":{"default":"info","description":"How much.","type":"string"}},"type":"object"}}`
	if string(got) != want {
		t.Errorf("defs:\n%s\nwant:\n%s", got, want)
	}
}

// TestExtractDocs: type and field comments (above, or after on the line;
// shared by fields declared together) of this package's own source.
func TestExtractDocs(t *testing.T) {
	docs, err := ExtractDocs(map[string]string{"github.com/agentgw/agentgw/schema": "."})
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"github.com/agentgw/agentgw/schema.Generated":          "Generated is a schema with what making it read.",
		"github.com/agentgw/agentgw/schema.Generated.Docs":     "Docs are the entries of the reflector's Docs the schema uses, and Packages the import paths of its named types (where ExtractDocs finds their comments).",
		"github.com/agentgw/agentgw/schema.AgentOptions.Kinds": "Kinds are the step kinds steps may use: the registry the loader uses.",
	} {
		if docs[key] != want {
			t.Errorf("%s: %q, want %q", key, docs[key], want)
		}
	}
	src, err := Docs{"p.T": `say "hi"`}.GoSource("main", "docs", "a test")
	if err != nil {
		t.Fatal(err)
	}
	wantSrc := "// Code generated by a test; DO NOT EDIT.\n\npackage main\n\nimport \"github.com/agentgw/agentgw/schema\"\n\n// docs are the doc comments the JSON Schemas use.\nfunc docs() schema.Docs {\n\treturn schema.Docs{\n\t\t\"p.T\": \"say \\\"hi\\\"\",\n\t}\n}\n"
	if string(src) != wantSrc {
		t.Errorf("GoSource:\n%s\nwant:\n%s", src, wantSrc)
	}
}
