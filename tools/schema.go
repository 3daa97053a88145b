package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// maxReportedLeaves bounds how many schema violations one message lists.
const maxReportedLeaves = 5

// noLoader refuses every external $ref: a tool's schema is self-contained.
type noLoader struct{}

// Load implements jsonschema.URLLoader.
func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external $ref %q: not allowed; keep the schema self-contained", url)
}

// compileSchema normalizes the parameters schema through JSON, makes its
// top-level type "object" and compiles it.
func (t *Tool) compileSchema() ([]string, error) {
	doc := t.Parameters
	if doc == nil {
		doc = map[string]any{"type": "object"}
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("parameters: not a JSON value: %w", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("parameters: %w", err)
	}
	obj := v.(map[string]any)
	if err := ensureObjectType(obj); err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	c.DefaultDraft(jsonschema.Draft2020)
	loc := "mem:///tools/" + t.Name + ".json"
	if err := c.AddResource(loc, obj); err != nil {
		return nil, fmt.Errorf("parameters: %w", err)
	}
	sch, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("parameters: invalid JSON Schema: %s", schemaErrorText(err, loc))
	}
	t.schema = sch
	t.params = declaredNames(obj)
	if t.schemaJSON, err = json.Marshal(obj); err != nil {
		return nil, fmt.Errorf("parameters: %w", err)
	}
	return nil, nil
}

// ensureObjectType sets a missing top-level "type" to "object" and rejects
// any other: the parameters are always a JSON object.
func ensureObjectType(obj map[string]any) error {
	switch ty := obj["type"].(type) {
	case nil:
		obj["type"] = "object"
		return nil
	case string:
		if ty == "object" {
			return nil
		}
	case []any:
		for _, x := range ty {
			if x == "object" {
				return nil
			}
		}
	}
	return fmt.Errorf("parameters: the top-level type must be \"object\", got %v", obj["type"])
}

// Validate checks params against the tool's parameters schema, read as
// closed: a name the schema does not declare is refused unless the schema
// opts in to undeclared names (see paramNames). The error names each
// failing or undeclared parameter (at most five). Every call passes here
// (Call), whoever makes it: a model, a plan step, a schedule or an MCP
// client.
func (t *Tool) Validate(params map[string]any) error {
	if err := t.params.undeclared(t.Name, params); err != nil {
		return fmt.Errorf("invalid parameters: %w", err)
	}
	var v any = params
	if params == nil {
		v = map[string]any{}
	}
	err := t.schema.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("invalid parameters: %w", err)
	}
	return fmt.Errorf("invalid parameters: %s", leafMessages(ve, func(loc []string) string {
		return fmt.Sprintf("parameter %q: ", strings.Join(loc, "."))
	}))
}

// schemaErrorText renders a schema compile error: the violations of the
// metaschema one per location, or the library's message with the
// schema's internal URL replaced by "parameters".
func schemaErrorText(err error, loc string) string {
	var sve *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	if errors.As(err, &sve) && errors.As(sve.Err, &ve) {
		return leafMessages(ve, func(loc []string) string {
			return "at /" + strings.Join(loc, "/") + ": "
		})
	}
	return strings.ReplaceAll(err.Error(), loc, "parameters")
}

// leafMessages joins the messages of the leaves of e (at most
// maxReportedLeaves), each prefixed by where(location) unless at the root.
func leafMessages(e *jsonschema.ValidationError, where func([]string) string) string {
	var msgs []string
	collectLeaves(e, func(leaf *jsonschema.ValidationError) {
		// The library prints "at '<pointer>': <message>"; render the
		// message alone and say where ourselves.
		text := (&jsonschema.ValidationError{ErrorKind: leaf.ErrorKind}).Error()
		text = strings.TrimPrefix(text, "at '': ")
		if len(leaf.InstanceLocation) > 0 {
			text = where(leaf.InstanceLocation) + text
		}
		msgs = append(msgs, text)
	})
	if len(msgs) > maxReportedLeaves {
		msgs = append(msgs[:maxReportedLeaves], fmt.Sprintf("and %d more", len(msgs)-maxReportedLeaves))
	}
	return strings.Join(msgs, "; ")
}

// collectLeaves calls fn for each violation at the leaves of e.
func collectLeaves(e *jsonschema.ValidationError, fn func(*jsonschema.ValidationError)) {
	if len(e.Causes) == 0 {
		fn(e)
		return
	}
	for _, c := range e.Causes {
		collectLeaves(c, fn)
	}
}
