package handoff

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// DefaultMaxBytes is a new Validator's size limit for one message.
const DefaultMaxBytes = 1 << 20

// Validator decodes and validates messages: against the message schema
// with its data schema per type, and against the data schemas declared
// for some types. Its declared schemas are compiled when it is built; the
// message schema is compiled once for all Validators, when the first
// message is checked (messageSchema), so that loading agents that accept
// hand-offs compiles nothing until one comes. It is safe
// for concurrent use and never changes (the With methods return copies).
type Validator struct {
	declared map[Type]*jsonschema.Schema
	maxBytes int
}

// NewValidator compiles the data schemas declared in extra (the embedded
// ones are compiled on first use). The error joins a *SchemaError per
// declared schema refused.
func NewValidator(extra map[Type]json.RawMessage) (*Validator, error) {
	v := &Validator{declared: map[Type]*jsonschema.Schema{}, maxBytes: DefaultMaxBytes}
	var errs []error
	for _, t := range slices.Sorted(maps.Keys(extra)) {
		d, err := compileDataSchema(t, extra[t])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		v.declared[t] = d
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return v, nil
}

// WithDataSchema returns a copy of v that also checks the payload.data of
// messages of type t against schema (replacing a schema declared for t
// before). The schema may $ref the embedded ones by their $id.
func (v *Validator) WithDataSchema(t Type, schema json.RawMessage) (*Validator, error) {
	d, err := compileDataSchema(t, schema)
	if err != nil {
		return nil, err
	}
	c := *v
	c.declared = maps.Clone(v.declared)
	c.declared[t] = d
	return &c, nil
}

// Declares reports whether v checks the payload.data of messages of type
// t against a data schema declared for t (NewValidator's extra,
// WithDataSchema), beyond the embedded schemas every Validator checks.
func (v *Validator) Declares(t Type) bool { return v.declared[t] != nil }

// WithMaxBytes returns a copy of v whose size limit is n bytes (none when
// n <= 0).
func (v *Validator) WithMaxBytes(n int) *Validator {
	c := *v
	c.maxBytes = n
	return &c
}

// check validates a decoded document against the message schema and the
// data schema declared for its type, if any.
func (v *Validator) check(doc any) error {
	sch, err := messageSchema()
	if err != nil {
		return err
	}
	var list []Violation
	if err := validateAt(sch, doc, "", &list); err != nil {
		return err
	}
	if t, data, ok := payloadOf(doc); ok && v.declared[t] != nil {
		if err := validateAt(v.declared[t], data, "/payload/data", &list); err != nil {
			return err
		}
	}
	if len(list) == 0 {
		return nil
	}
	return &ValidationError{Violations: sortViolations(list)}
}

// validateAt validates doc against sch, appending violations (their
// pointers prefixed) to list. Other errors are returned.
func validateAt(sch *jsonschema.Schema, doc any, prefix string, list *[]Violation) error {
	err := sch.Validate(doc)
	var ve *jsonschema.ValidationError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ve):
		*list = append(*list, violations(ve, prefix)...)
		return nil
	}
	return fmt.Errorf("handoff: validating: %w", err)
}

// payloadOf finds payload.handoff_type and payload.data in a document.
func payloadOf(doc any) (Type, any, bool) {
	msg, _ := doc.(map[string]any)
	payload, _ := msg["payload"].(map[string]any)
	t, _ := payload["handoff_type"].(string)
	data, ok := payload["data"]
	return Type(t), data, ok && t != ""
}
