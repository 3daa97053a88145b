package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// yamlTypeLine is one line of a yaml.TypeError: where, what was written
// (its tag and text) and the Go type it could not become.
var yamlTypeLine = regexp.MustCompile("^line (\\d+): cannot unmarshal !!(\\w+) `(.*)` into (\\S+)$")

// kindErrors rewrites the value-of-the-wrong-kind errors of decoding the
// config file path in the operator's words, each at its file:line, instead
// of YAML tags and Go type names ("cannot unmarshal !!int into
// main.UpstreamConfig"); other errors are returned as they are.
func kindErrors(path string, err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err
	}
	lines := make([]string, 0, len(te.Errors))
	for _, e := range te.Errors {
		m := yamlTypeLine.FindStringSubmatch(e)
		if m == nil {
			lines = append(lines, path+": "+e)
			continue
		}
		lines = append(lines, fmt.Sprintf("%s:%s: %q is %s, where %s is expected", path, m[1], m[3], tagKind(m[2]), goKind(m[4])))
	}
	return errors.New(strings.Join(lines, "\n"))
}

// tagKind names what a YAML tag holds.
func tagKind(tag string) string {
	switch tag {
	case "int":
		return "a number"
	case "float":
		return "a decimal number"
	case "bool":
		return "true or false"
	case "str":
		return "text"
	case "seq":
		return "a list"
	case "map":
		return "a section (keys and values)"
	case "null":
		return "empty"
	}
	return "a " + tag
}

// goKind names what a Go type of the config wants.
func goKind(typ string) string {
	switch {
	case strings.HasPrefix(typ, "[]"):
		return "a list"
	case strings.HasPrefix(typ, "map["):
		return "a section (keys and values)"
	case strings.HasPrefix(typ, "main.") || strings.Contains(typ, "."):
		return "a section (keys and values)"
	case strings.HasPrefix(typ, "int"), strings.HasPrefix(typ, "uint"):
		return "a whole number"
	case strings.HasPrefix(typ, "float"):
		return "a number"
	case typ == "bool":
		return "true or false"
	case typ == "string":
		return "text"
	}
	return "another kind of value"
}
