package tools

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// paramNames is what a tool's schema declares of its top-level parameter
// names. Schemas are closed: a name the schema does not declare is refused
// before any runtime sees the call, unless the tool's author opened the
// schema explicitly (additionalProperties other than false,
// patternProperties, or unevaluatedProperties other than false). Native
// tools may never be open: their parameters become command-line flags.
type paramNames struct {
	declared map[string]bool
	// open is the keyword that opens the schema, "" when closed.
	open string
}

// maxRefDepth bounds how deep declaredNames walks subschemas and local $refs.
const maxRefDepth = 16

// declaredNames collects the top-level parameter names of the normalized
// schema root: its properties and those of the subschemas that apply to the
// same object (allOf, anyOf, oneOf, if, then, else, dependentSchemas, local
// $ref into $defs or definitions).
func declaredNames(root map[string]any) paramNames {
	p := paramNames{declared: map[string]bool{}}
	var walk func(s map[string]any, depth int)
	walk = func(s map[string]any, depth int) {
		if s == nil || depth > maxRefDepth {
			return
		}
		for name := range mapOf(s["properties"]) {
			p.declared[name] = true
		}
		if p.open == "" {
			p.open = openingKeyword(s)
		}
		for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
			if arr, ok := s[kw].([]any); ok {
				for _, sub := range arr {
					walk(mapOf(sub), depth+1)
				}
			}
		}
		for _, kw := range []string{"if", "then", "else"} {
			walk(mapOf(s[kw]), depth+1)
		}
		for _, sub := range mapOf(s["dependentSchemas"]) {
			walk(mapOf(sub), depth+1)
		}
		if ref, ok := s["$ref"].(string); ok {
			walk(localRef(root, ref), depth+1)
		}
	}
	walk(root, 0)
	return p
}

// openingKeyword is the keyword of s that admits undeclared names, "" if none.
func openingKeyword(s map[string]any) string {
	for _, kw := range []string{"additionalProperties", "unevaluatedProperties"} {
		if v, ok := s[kw]; ok && v != false {
			return kw
		}
	}
	if len(mapOf(s["patternProperties"])) > 0 {
		return "patternProperties"
	}
	return ""
}

// localRef resolves "#/$defs/name" or "#/definitions/name" in root; nil
// for anything else (the compiler refuses external refs).
func localRef(root map[string]any, ref string) map[string]any {
	for _, prefix := range []string{"#/$defs/", "#/definitions/"} {
		if name, ok := strings.CutPrefix(ref, prefix); ok && !strings.Contains(name, "/") {
			return mapOf(mapOf(root[strings.TrimSuffix(prefix[2:], "/")])[name])
		}
	}
	return nil
}

// mapOf is v as a JSON object, nil when it is not one.
func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// undeclared checks that every name in params is declared (unless the
// schema is open); the error names the undeclared parameters, sorted.
func (p paramNames) undeclared(tool string, params map[string]any) error {
	if p.open != "" {
		return nil
	}
	var bad []string
	for k := range params {
		if !p.declared[k] {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	slices.Sort(bad)
	quoted := make([]string, 0, min(len(bad), maxReportedLeaves))
	for _, k := range bad[:min(len(bad), maxReportedLeaves)] {
		quoted = append(quoted, fmt.Sprintf("%q", k))
	}
	more := ""
	if len(bad) > maxReportedLeaves {
		more = fmt.Sprintf(" and %d more", len(bad)-maxReportedLeaves)
	}
	what := "parameter"
	if len(bad) > 1 {
		what = "parameters"
	}
	return fmt.Errorf("%s %s%s: not declared by tool %s (declared: %s)", what, strings.Join(quoted, ", "), more, tool, p.list())
}

// list is the declared names, sorted and comma-separated, or "none".
func (p paramNames) list() string {
	if len(p.declared) == 0 {
		return "none"
	}
	return strings.Join(slices.Sorted(maps.Keys(p.declared)), ", ")
}
