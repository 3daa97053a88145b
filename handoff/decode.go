package handoff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentgw/agentgw/internal/jsonscan"
)

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
	return view(doc)
}

// DecodeChecked decodes raw, a message that a Validator's Decode accepted
// before and that is unchanged since (one the gateway queued once it was
// checked): the *Message Decode gave, without checking the schemas
// again. Input that is not JSON is refused with ErrMalformed; no size
// limit applies.
func DecodeChecked(raw []byte) (*Message, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return view(doc)
}

// view is the Go view of a decoded document. It is decoded from the
// document the schemas checked, not from the raw bytes: with a member
// repeated, encoding/json would merge the copies into one struct, letting
// members the schemas never saw in.
func view(doc any) (*Message, error) {
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
