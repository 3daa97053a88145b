package main

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// configStages are the config as each source left it, for telling where a
// value of the effective config came from: the defaults (the embedded
// gateway config), then the file over them, then the environment over
// that. (check takes no serve flags, so no value of its comes from one.)
type configStages struct {
	defaults, file, env *Config
}

// loadStages loads the stages of the config file path (its schedules
// replace the embedded example's, as serve does).
func loadStages(path string, getenv func(string) string) (*configStages, error) {
	var st configStages
	for _, dst := range []**Config{&st.defaults, &st.file, &st.env} {
		c, err := defaultConfig()
		if err != nil {
			return nil, err
		}
		*dst = c
	}
	for _, c := range []*Config{st.file, st.env} {
		c.Schedules = nil
		if err := overlayFile(c, path); err != nil {
			return nil, err
		}
	}
	if err := envOverlay(st.env, getenv); err != nil {
		return nil, err
	}
	return &st, nil
}

// annotate marks each value of doc (the effective config as YAML) that the
// file or the environment set with a line comment saying which, comparing
// it with the same key's value in each stage; a value without one is the
// default (or, when a stage has no such key, filled in when the config was
// checked).
func (st *configStages) annotate(doc *yaml.Node) error {
	var trees [3]*yaml.Node
	for i, c := range []*Config{st.defaults, st.file, st.env} {
		var n yaml.Node
		if err := n.Encode(c); err != nil {
			return fmt.Errorf("encoding a stage of the config: %w", err)
		}
		trees[i] = &n
	}
	mark(doc, trees[0], trees[1], trees[2])
	return nil
}

// mark walks n (a value of the effective config) beside the same value in
// the default, file and env stages (nil where a stage lacks it).
func mark(n, def, file, env *yaml.Node) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 1 {
			mark(n.Content[0], child0(def), child0(file), child0(env))
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			mark(n.Content[i+1], field(def, k), field(file, k), field(env, k))
		}
	default: // a scalar or a list: marked as a whole
		switch {
		case !same(env, file):
			n.LineComment = "env"
		case !same(file, def):
			n.LineComment = "file"
		}
	}
}

// child0 is a document's root, nil for anything else.
func child0(n *yaml.Node) *yaml.Node {
	if n == nil || n.Kind != yaml.DocumentNode || len(n.Content) != 1 {
		return n
	}
	return n.Content[0]
}

// field is the value of key k of mapping n, nil when n has none.
func field(n *yaml.Node, k string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == k {
			return n.Content[i+1]
		}
	}
	return nil
}

// same reports whether two values are equal as YAML (both absent counts).
func same(a, b *yaml.Node) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, err1 := yaml.Marshal(a)
	y, err2 := yaml.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}
