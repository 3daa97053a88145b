package handoff

import (
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ErrMalformed is wrapped by the error for input that is not one JSON value
// in UTF-8.
var ErrMalformed = errors.New("handoff: malformed message")

// ErrTooLarge is wrapped by the error for input over the validator's size
// limit.
var ErrTooLarge = errors.New("handoff: message too large")

// maxListed bounds how many violations an error's text lists; its
// Violations always hold them all.
const maxListed = 20

// Violation is one way in which a message, or a declared schema, breaks
// its schema.
type Violation struct {
	// Pointer is the RFC 6901 JSON pointer to the offending value ("" for
	// the whole document). For a missing or unexpected property it points
	// at the property itself.
	Pointer string `json:"pointer"`
	// Message says what is wrong.
	Message string `json:"message"`
}

// String renders v as "pointer: message", the whole document as "(root)".
func (v Violation) String() string {
	p := v.Pointer
	if p == "" {
		p = "(root)"
	}
	return p + ": " + v.Message
}

// ValidationError refuses a message that is JSON but breaks the schemas.
type ValidationError struct {
	// Violations lists every violation, sorted by pointer.
	Violations []Violation
}

// Error lists the violations (the first twenty, and how many more).
func (e *ValidationError) Error() string {
	return "handoff: invalid message: " + listViolations(e.Violations)
}

// SchemaError refuses a data schema declared for a type.
type SchemaError struct {
	// Type is the type the schema was declared for.
	Type Type
	// Violations are where the schema breaks the JSON Schema metaschema,
	// by pointer into the schema.
	Violations []Violation
	// Err is any other reason: not JSON, an unresolvable $ref, a bad regex.
	Err error
}

// Error names the type and lists what is wrong.
func (e *SchemaError) Error() string {
	head := fmt.Sprintf("handoff: the data schema declared for %s", e.Type)
	if len(e.Violations) > 0 {
		return head + " is not a valid JSON Schema: " + listViolations(e.Violations)
	}
	return fmt.Sprintf("%s: %v", head, e.Err)
}

// Unwrap returns the underlying error, if any.
func (e *SchemaError) Unwrap() error { return e.Err }

// newSchemaError explains a compile error of the declared schema at loc.
func newSchemaError(t Type, loc string, err error) *SchemaError {
	var sve *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	if errors.As(err, &sve) && errors.As(sve.Err, &ve) {
		return &SchemaError{Type: t, Violations: violations(ve, ""), Err: err}
	}
	msg := strings.ReplaceAll(err.Error(), loc, "the declared schema")
	return &SchemaError{Type: t, Err: errors.New(msg)}
}

// listViolations joins the first maxListed violations with "; ".
func listViolations(vs []Violation) string {
	var parts []string
	for i, v := range vs {
		if i == maxListed {
			parts = append(parts, fmt.Sprintf("and %d more", len(vs)-maxListed))
			break
		}
		parts = append(parts, v.String())
	}
	return strings.Join(parts, "; ")
}
