package handoff

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed schemas
var schemaFiles embed.FS

// SchemaBaseURL is the base of the schemas' $id: a schema's $id is this
// followed by its path in Schemas. The ids name the files in the
// repository; nothing is fetched from them.
const SchemaBaseURL = "https://github.com/agentgw/agentgw/raw/main/handoff/schemas/"

// MessageSchemaPath is the message schema's path in Schemas.
const MessageSchemaPath = "message.schema.json"

// Schemas returns the embedded schema files: MessageSchemaPath and, for
// each type, DataSchemaPath.
func Schemas() fs.FS {
	sub, err := fs.Sub(schemaFiles, "schemas")
	if err != nil {
		panic(err) // "schemas" is a valid path, so fs.Sub cannot fail
	}
	return sub
}

// DataSchemaPath is the path in Schemas of the schema of t's payload.data,
// like "data/escalation.schema.json".
func DataSchemaPath(t Type) string { return "data/" + t.SchemaName() + ".schema.json" }

// embeddedLoader serves the embedded schemas by $id and refuses any other
// URL: schemas are never fetched.
type embeddedLoader struct{}

// Load implements jsonschema.URLLoader.
func (embeddedLoader) Load(url string) (any, error) {
	rel, ok := strings.CutPrefix(url, SchemaBaseURL)
	if !ok || !fs.ValidPath(rel) {
		return nil, fmt.Errorf("only the hand-off schemas (%s...) may be referenced", SchemaBaseURL)
	}
	raw, err := fs.ReadFile(schemaFiles, path.Join("schemas", rel))
	if err != nil {
		return nil, fmt.Errorf("no such hand-off schema: %w", err)
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(raw))
}

// newCompiler returns a compiler for draft 2020-12 that asserts formats
// (date-time as Go's RFC 3339 parser reads it, so that every accepted
// time decodes) and resolves references to the embedded schemas only.
func newCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.RegisterFormat(&jsonschema.Format{Name: "date-time", Validate: validateDateTime})
	c.UseLoader(embeddedLoader{})
	return c
}

// validateDateTime accepts what time.Time's JSON decoding accepts.
func validateDateTime(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	var t time.Time
	if err := t.UnmarshalText([]byte(s)); err != nil {
		return errors.New("want RFC 3339 such as 2023-10-27T10:30:00.123Z")
	}
	return nil
}

// messageSchema is the embedded message schema compiled once, on first
// use, and shared by every Validator: it never changes, and a compiled
// schema validates from any number of goroutines. Compiling it for each
// Validator kept one copy per hand-off type an agent accepts (the embedded
// example agents: 0.28 MB of the idle heap, 1.3 MB allocated at start).
var messageSchema = sync.OnceValues(compileMessageSchema)

// compileMessageSchema compiles the embedded message schema with the data
// schemas it references.
func compileMessageSchema() (*jsonschema.Schema, error) {
	sch, err := newCompiler().Compile(SchemaBaseURL + MessageSchemaPath)
	if err != nil {
		return nil, fmt.Errorf("compiling the hand-off message schema: %w", err)
	}
	return sch, nil
}

// compileDataSchema compiles a data schema declared for t. It may refer to
// the embedded schemas by their $id, to extend one of them.
func compileDataSchema(t Type, raw json.RawMessage) (*jsonschema.Schema, error) {
	if !t.Valid() {
		return nil, &SchemaError{Type: t, Err: fmt.Errorf("unknown handoff_type (known: %s)", typeList())}
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, &SchemaError{Type: t, Err: fmt.Errorf("not JSON: %w", err)}
	}
	c := newCompiler()
	loc := "mem:///declared/" + DataSchemaPath(t)
	if err := c.AddResource(loc, doc); err != nil {
		return nil, &SchemaError{Type: t, Err: err}
	}
	sch, err := c.Compile(loc)
	if err != nil {
		return nil, newSchemaError(t, loc, err)
	}
	return sch, nil
}

// typeList is the known types, comma-separated.
func typeList() string {
	var names []string
	for _, t := range Types() {
		names = append(names, string(t))
	}
	return strings.Join(names, ", ")
}
