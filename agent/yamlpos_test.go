package agent

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestYAMLSyntaxErrorsAreStrings is the reason yamlpos.go exists: the YAML
// library reports a syntax error only as text ("yaml: line N: ..."), with
// no position of its own and no partial node tree to read one from.
// Problems in a document that parses are placed from its yaml.Node
// (NodeDecoder); when this test fails, the library has started to report
// syntax errors with structure, and yamlSyntaxPos should read that instead.
func TestYAMLSyntaxErrorsAreStrings(t *testing.T) {
	for _, src := range []string{
		"name: x\ncommands:\n  - name: default\n   reply: x\n", // block: misindented key
		"name: x\nt: {a: \"x\" \"y\"}\n",                       // flow: a stray scalar
		"name: x\n\tc: 3\n",                                    // scanner: a tab
		"name: \"x\n",                                          // a quote never closed
	} {
		var doc yaml.Node
		err := yaml.NewDecoder(bytes.NewReader([]byte(src))).Decode(&doc)
		if err == nil {
			t.Fatalf("%q parses", src)
		}
		if got, want := reflect.TypeOf(err), reflect.TypeOf(errors.New("x")); got != want {
			t.Errorf("%q: the error is a %v, not a %v: it may carry a position now", src, got, want)
		}
		if errors.Unwrap(err) != nil {
			t.Errorf("%q: the error wraps %v: it may carry a position now", src, errors.Unwrap(err))
		}
		if !reflect.DeepEqual(doc, yaml.Node{}) {
			t.Errorf("%q: a partial node tree is left: %+v", src, doc)
		}
	}
}
