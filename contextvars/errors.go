package contextvars

import (
	"errors"
	"strconv"
	"strings"

	"github.com/agentgw/agentgw/internal/jsonscan"
)

// Error reports a context variable whose value has the wrong shape (an HTTP
// 422 INVALID_CONTEXT_VARIABLE upstream of this package). For problems with
// the list itself, Variable is "contextVariables" or "contextVariables[i]".
type Error struct {
	// Variable is the variable's name, or contextVariables[i] when the element has none.
	Variable string
	// Field is the dotted JSON path of the offending field inside the value ("" for the value itself).
	Field string
	// Reason says what is wrong, such as "expected number, got string".
	Reason string
	// Syntax is set when the JSON itself is malformed (Reason starts with
	// "invalid JSON"), not merely of the wrong shape.
	Syntax bool
}

// Error renders the error as
// `context variable "activeEditor": field "selectedRanges.startLine": expected number, got string`.
func (e *Error) Error() string {
	var b strings.Builder
	if strings.HasPrefix(e.Variable, "contextVariables") {
		b.WriteString(e.Variable)
	} else {
		b.WriteString("context variable ")
		b.WriteString(strconv.Quote(e.Variable))
	}
	if e.Field != "" {
		b.WriteString(": field ")
		b.WriteString(strconv.Quote(e.Field))
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	return b.String()
}

// fieldError is a decoding problem inside a value, before the variable is known.
type fieldError struct {
	field  string
	reason string
	syntax bool // the JSON is malformed
}

func (e *fieldError) Error() string {
	if e.field == "" {
		return e.reason
	}
	return "field " + strconv.Quote(e.field) + ": " + e.reason
}

// syntaxField turns the tokenizer's syntax error into a *fieldError, so that
// it gets the field path too; other errors are returned as they are.
func syntaxField(err error) error {
	var se *jsonscan.SyntaxError
	if errors.As(err, &se) {
		return &fieldError{reason: se.Error(), syntax: true}
	}
	return err
}

// under prefixes err's field path with key when err is a *fieldError (or a
// syntax error, which becomes one).
func under(err error, key string) error {
	err = syntaxField(err)
	if fe, ok := err.(*fieldError); ok {
		if fe.field == "" {
			fe.field = key
		} else {
			fe.field = key + "." + fe.field
		}
	}
	return err
}

// asError turns a decoding error into an *Error for variable.
func asError(err error, variable string) *Error {
	err = syntaxField(err)
	if fe, ok := err.(*fieldError); ok {
		return &Error{Variable: variable, Field: fe.field, Reason: fe.reason, Syntax: fe.syntax}
	}
	if e, ok := err.(*Error); ok {
		return e
	}
	return &Error{Variable: variable, Reason: err.Error()}
}
