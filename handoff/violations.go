package handoff

import (
	"cmp"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// violations flattens the library's tree of errors into its leaves, each
// with the pointer prefix+location, sorted and without repeats.
func violations(e *jsonschema.ValidationError, prefix string) []Violation {
	var out []Violation
	collect(e, prefix, &out)
	return sortViolations(out)
}

// sortViolations sorts vs by pointer, then message, and drops repeats.
func sortViolations(vs []Violation) []Violation {
	slices.SortFunc(vs, func(a, b Violation) int {
		return cmp.Or(strings.Compare(a.Pointer, b.Pointer), strings.Compare(a.Message, b.Message))
	})
	return slices.Compact(vs)
}

// collect appends the violations under e to out.
func collect(e *jsonschema.ValidationError, prefix string, out *[]Violation) {
	at := prefix + pointer(e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		for _, name := range k.Missing {
			*out = append(*out, Violation{at + "/" + escape(name), "required property is missing"})
		}
		return
	case *kind.AdditionalProperties:
		for _, name := range k.Properties {
			*out = append(*out, Violation{at + "/" + escape(name), "property not allowed"})
		}
		return
	case *kind.OneOf, *kind.AnyOf:
		if collectAlternatives(e, at, prefix, out) {
			return
		}
	}
	if len(e.Causes) == 0 {
		*out = append(*out, Violation{at, kindMessage(e.ErrorKind)})
		return
	}
	for _, c := range e.Causes {
		collect(c, prefix, out)
	}
}

// collectAlternatives reports a oneOf or anyOf none of whose alternatives
// matched. Alternatives that failed only because the value has another
// type are noise when another alternative has the right type: only the
// others are reported. When all failed on the type, one violation says
// which types were wanted. It reports false when e is not such a failure.
func collectAlternatives(e *jsonschema.ValidationError, at, prefix string, out *[]Violation) bool {
	if len(e.Causes) == 0 {
		return false
	}
	var got string
	var want []string
	var rest []*jsonschema.ValidationError
	for _, c := range e.Causes {
		leaf := unwrap(c)
		if tk, ok := leaf.ErrorKind.(*kind.Type); ok && len(leaf.Causes) == 0 &&
			slices.Equal(leaf.InstanceLocation, e.InstanceLocation) {
			got, want = tk.Got, append(want, tk.Want...)
			continue
		}
		rest = append(rest, c)
	}
	if len(rest) == 0 {
		*out = append(*out, Violation{at, "got " + got + ", want " + strings.Join(want, " or ")})
		return true
	}
	for _, c := range rest {
		collect(c, prefix, out)
	}
	return true
}

// unwrap follows an error's single cause through $ref and grouping nodes.
func unwrap(e *jsonschema.ValidationError) *jsonschema.ValidationError {
	for len(e.Causes) == 1 {
		switch e.ErrorKind.(type) {
		case *kind.Reference, *kind.Group, *kind.AllOf, *kind.Schema:
			e = e.Causes[0]
		default:
			return e
		}
	}
	return e
}

// kindMessage is the library's text for one violation, without location.
func kindMessage(k jsonschema.ErrorKind) string {
	text := (&jsonschema.ValidationError{ErrorKind: k}).Error()
	return strings.TrimPrefix(text, "at '': ")
}

// pointer renders location tokens as an RFC 6901 pointer.
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escape(t))
	}
	return b.String()
}

// escape escapes one pointer token.
func escape(token string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(token)
}
