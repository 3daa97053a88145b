package handoff

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// keywords are the JSON Schema keywords the schemas may use: a typo such
// as the seed's "minium" would otherwise be ignored silently.
var keywords = []string{"$schema", "$id", "$ref", "$defs", "title", "description", "type", "enum", "const",
	"properties", "required", "additionalProperties", "items", "minItems", "uniqueItems", "minLength",
	"maxLength", "pattern", "format", "minimum", "maximum", "oneOf", "allOf", "if", "then"}

// TestSchemaFiles: every file under schemas/ is a draft 2020-12 JSON Schema
// that compiles (and so passes the metaschema), uses known keywords only,
// has the $id of its path, and is embedded byte for byte; there is one data
// schema per type and nothing else.
func TestSchemaFiles(t *testing.T) {
	var onDisk []string
	err := filepath.WalkDir("schemas", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, "schemas"+string(filepath.Separator)))
		onDisk = append(onDisk, rel)
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		checkSchemaFile(t, rel, raw)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var embedded []string
	if err := fs.WalkDir(Schemas(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			embedded = append(embedded, p)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{MessageSchemaPath}
	for _, typ := range Types() {
		want = append(want, DataSchemaPath(typ))
	}
	slices.Sort(want)
	if slices.Sort(onDisk); !slices.Equal(onDisk, want) || !slices.Equal(embedded, want) {
		t.Errorf("schema files on disk %q, embedded %q, want %q", onDisk, embedded, want)
	}
}

// checkSchemaFile checks one schema file at rel (its path in Schemas).
func checkSchemaFile(t *testing.T, rel string, raw []byte) {
	t.Helper()
	if emb, err := fs.ReadFile(Schemas(), rel); err != nil || !bytes.Equal(emb, raw) {
		t.Errorf("%s: not embedded as it is on disk (%v)", rel, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" || doc["$id"] != SchemaBaseURL+rel {
		t.Errorf("%s: $schema %v, $id %v, want draft 2020-12 and %s", rel, doc["$schema"], doc["$id"], SchemaBaseURL+rel)
	}
	if _, err := newCompiler().Compile(SchemaBaseURL + rel); err != nil {
		t.Errorf("%s: %v", rel, err)
	}
	walkSchema(doc, rel, func(where, key string) {
		if !slices.Contains(keywords, key) {
			t.Errorf("%s: unknown keyword %q at %s", rel, key, where)
		}
	})
}

// walkSchema calls fn for every keyword of the schema s and its subschemas.
func walkSchema(s any, where string, fn func(where, key string)) {
	obj, ok := s.(map[string]any)
	if !ok {
		return
	}
	for k, v := range obj {
		fn(where, k)
		switch k {
		case "properties", "$defs":
			for name, sub := range v.(map[string]any) {
				walkSchema(sub, where+"/"+k+"/"+name, fn)
			}
		case "items", "additionalProperties", "if", "then":
			walkSchema(v, where+"/"+k, fn)
		case "oneOf", "allOf":
			for _, sub := range v.([]any) {
				walkSchema(sub, where+"/"+k, fn)
			}
		}
	}
}

// TestSchemaMatchesGo: the schema's enums are the Go constants.
func TestSchemaMatchesGo(t *testing.T) {
	raw, err := fs.ReadFile(Schemas(), MessageSchemaPath)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties struct {
			Metadata struct {
				Properties struct{ Priority struct{ Enum []Priority } }
			}
			Payload struct {
				Properties struct {
					HandoffType struct{ Enum []Type } `json:"handoff_type"`
				}
			}
		}
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	if got := s.Properties.Metadata.Properties.Priority.Enum; !slices.Equal(got, Priorities()) {
		t.Errorf("priority enum %q, want %q", got, Priorities())
	}
	if got := s.Properties.Payload.Properties.HandoffType.Enum; !slices.Equal(got, Types()) {
		t.Errorf("handoff_type enum %q, want %q", got, Types())
	}
	for _, typ := range Types() {
		if !bytes.Contains(raw, []byte(`"$ref": "`+DataSchemaPath(typ)+`"`)) {
			t.Errorf("the message schema does not apply %s to %s", DataSchemaPath(typ), typ)
		}
	}
}
