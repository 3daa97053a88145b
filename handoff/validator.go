package handoff

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"

	"github.com/agentgw/agentgw/internal/jsonscan"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// DefaultMaxBytes is a new Validator's size limit for one message.
const DefaultMaxBytes = 1 << 20

// Validator decodes and validates messages: against the message schema
// with its data schema per type, and against the data schemas declared
// for some types. Its schemas are compiled when it is built; it is safe
// for concurrent use and never changes (the With methods return copies).
type Validator struct {
	message  *jsonschema.Schema
	declared map[Type]*jsonschema.Schema
	maxBytes int
}

// NewValidator compiles the embedded schemas and the data schemas declared
// in extra. The error joins a *SchemaError per declared schema refused.
func NewValidator(extra map[Type]json.RawMessage) (*Validator, error) {
	sch, err := compileMessageSchema()
	if err != nil {
		return nil, err
	}
	v := &Validator{message: sch, declared: map[Type]*jsonschema.Schema{}, maxBytes: DefaultMaxBytes}
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

// WithMaxBytes returns a copy of v whose size limit is n bytes (none when
// n <= 0).
func (v *Validator) WithMaxBytes(n int) *Validator {
	c := *v
	c.maxBytes = n
	return &c
}

// Decode decodes untrusted bytes into a message and validates it. Input
// over the size limit is refused with ErrTooLarge, input that is not one
// JSON value in UTF-8 with ErrMalformed, and a message that breaks the
// schemas with a *ValidationError listing every violation. A member
// repeated counts once, with its last value, as the schemas see it.
func (v *Validator) Decode(raw []byte) (*Message, error) {
	if v.maxBytes > 0 && len(raw) > v.maxBytes {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, v.maxBytes)
	}
	s := jsonscan.Scanner{Data: raw}
	s.WS()
	if err := s.Skip(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if err := s.End(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if err := v.check(doc); err != nil {
		return nil, err
	}
	// The Go view is decoded from the document the schemas checked, not
	// from raw: with a member repeated, encoding/json would merge the
	// copies into one struct, letting members the schemas never saw in.
	norm, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("handoff: re-encoding a valid message: %w", err)
	}
	var m Message
	if err := json.Unmarshal(norm, &m); err != nil {
		return nil, fmt.Errorf("handoff: decoding a valid message: %w", err)
	}
	return &m, nil
}

// Validate reports whether raw is a valid message, with Decode's errors.
func (v *Validator) Validate(raw []byte) error {
	_, err := v.Decode(raw)
	return err
}

// DecodeReader reads one message from r, reading no more than the size
// limit allows, and decodes it.
func (v *Validator) DecodeReader(r io.Reader) (*Message, error) {
	if v.maxBytes > 0 {
		r = io.LimitReader(r, int64(v.maxBytes)+1)
	}
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("handoff: reading a message: %w", err)
	}
	return v.Decode(raw)
}

// Encode encodes m and validates the result, for sending.
func (v *Validator) Encode(m *Message) ([]byte, error) {
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("handoff: encoding a message: %w", err)
	}
	if err := v.Validate(raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// check validates a decoded document against the message schema and the
// data schema declared for its type, if any.
func (v *Validator) check(doc any) error {
	var list []Violation
	if err := validateAt(v.message, doc, "", &list); err != nil {
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

// defaultValidator is the validator with no declared schemas, compiled
// once on first use.
var defaultValidator = sync.OnceValues(func() (*Validator, error) { return NewValidator(nil) })

// Decode decodes and validates raw with the embedded schemas only and the
// default size limit (see Validator.Decode).
func Decode(raw []byte) (*Message, error) {
	v, err := defaultValidator()
	if err != nil {
		return nil, err
	}
	return v.Decode(raw)
}

// Validate reports whether raw is a valid message (see Decode).
func Validate(raw []byte) error {
	_, err := Decode(raw)
	return err
}
