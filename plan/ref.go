package plan

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// dagger is the seed's reference prefix, "†state.userInput".
const dagger = "†"

// Ref is a reference expression used as an input value (seed 002, "Expressions"):
//
//	$state.user.name                      one path
//	$state.userInput || $state.default    fallback: the value of the first path that is present
//	$state.profile && $state.permissions  gate: present only when every path is; its value is the last one's
//
// Each path carries the prefix "$" or "†" ("†state.userInput"), or is written "${path}" (the seed's
// data-dependency form "${dependencies.inst_1.result.data}"). Whitespace around the operators is free;
// mixing || and && in one expression is an error. A value is present when it exists and is not nil.
type Ref struct {
	src   string
	paths []Path
	gate  bool
}

// IsRef reports whether the whole (trimmed) string is meant as a reference: it starts with "${", with
// "†", or with "$" followed by a root name and a dot ("$state.x"). "$5.00" is not a reference.
func IsRef(s string) bool {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "${") || strings.HasPrefix(s, dagger) {
		return true
	}
	rest, ok := strings.CutPrefix(s, "$")
	if !ok {
		return false
	}
	root, _, found := strings.Cut(rest, ".")
	return found && isRoot(root)
}

// ParseRef parses a reference expression (see Ref).
func ParseRef(s string) (*Ref, error) {
	src := strings.TrimSpace(s)
	if src == "" {
		return nil, errors.New("empty reference")
	}
	hasOr, hasAnd := strings.Contains(src, "||"), strings.Contains(src, "&&")
	if hasOr && hasAnd {
		return nil, fmt.Errorf("reference %q mixes || and &&; use one of them", src)
	}
	r := &Ref{src: src, gate: hasAnd}
	sep := "||"
	if hasAnd {
		sep = "&&"
	}
	for i, operand := range strings.Split(src, sep) {
		p, err := parseOperand(strings.TrimSpace(operand))
		if err != nil {
			return nil, fmt.Errorf("reference %q, operand %d: %w", src, i+1, err)
		}
		r.paths = append(r.paths, p)
	}
	return r, nil
}

// parseOperand parses one "$path", "†path" or "${path}".
func parseOperand(s string) (Path, error) {
	var body string
	switch {
	case s == "":
		return nil, errors.New("empty operand")
	case strings.HasPrefix(s, "${"):
		inner, ok := strings.CutSuffix(s[2:], "}")
		if !ok {
			return nil, fmt.Errorf("%q: ${ without its closing }", s)
		}
		body = strings.TrimSpace(inner)
	case strings.HasPrefix(s, "$"):
		body = s[1:]
	case strings.HasPrefix(s, dagger):
		body = s[len(dagger):]
	default:
		return nil, fmt.Errorf("%q: a path in a reference starts with $ or †", s)
	}
	return ParsePath(body)
}

// Gate reports whether the reference is a && gate.
func (r *Ref) Gate() bool { return r.gate }

// Paths returns the reference's paths in order.
func (r *Ref) Paths() []Path { return append([]Path(nil), r.paths...) }

// String returns the reference as written (trimmed).
func (r *Ref) String() string { return r.src }

// StepIDs returns the step ids named under steps. or dependencies., in order, without repeats.
func (r *Ref) StepIDs() []string {
	var ids []string
	for _, p := range r.paths {
		if id, ok := p.stepID(); ok && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// Resolve returns the reference's value and whether it is present. A single path or a fallback yields the
// first present path's value; a gate yields the last path's value when all of them are present. The value
// keeps its type (a map stays a map) and is a deep copy the caller may modify.
func (r *Ref) Resolve(sc *Scope) (any, bool) {
	v, ok := r.resolveShared(sc)
	if !ok {
		return nil, false
	}
	return deepCopy(v), true
}

// resolveShared is Resolve without the copy.
func (r *Ref) resolveShared(sc *Scope) (any, bool) {
	var last any
	for _, p := range r.paths {
		v, found := sc.lookupShared(p)
		switch ok := present(v, found); {
		case ok && !r.gate:
			return v, true
		case !ok && r.gate:
			return nil, false
		}
		last = v
	}
	if r.gate {
		return last, true
	}
	return nil, false
}

// missing returns the paths of the reference that are not present, for messages.
func (r *Ref) missing(sc *Scope) []string {
	var out []string
	for _, p := range r.paths {
		if v, found := sc.lookupShared(p); !present(v, found) {
			out = append(out, p.String())
		}
	}
	return out
}
