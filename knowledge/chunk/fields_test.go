package chunk

import (
	"strings"
	"testing"
)

// TestParts checks how the first chunk declaring something is cut into
// doc comment, signature and body, per language.
func TestParts(t *testing.T) {
	for _, tt := range []struct {
		name, file, content string
		want                Parts
	}{
		{"go func with doc", "a.go", "package a\n\n// Do sends a request.\n// It waits.\nfunc (c *Client) Do(req *Request) error {\n\treturn nil\n}\n",
			Parts{Kind: "func", Doc: "// Do sends a request.\n// It waits.", Synopsis: "Do sends a request.", Signature: "func (c *Client) Do(req *Request) error {", Body: "\treturn nil\n}"}},
		{"go multi-line signature", "a.go", "package a\n\nfunc F(\n\ta int,\n) error {\n\treturn nil\n}\n",
			Parts{Kind: "func", Signature: "func F(\n\ta int,\n) error {", Body: "\treturn nil\n}"}},
		{"go block comment", "a.go", "package a\n\n/*\nT is a thing.\n*/\ntype T struct {\n\tA int // the a\n}\n",
			Parts{Kind: "type", Doc: "/*\nT is a thing.\n*/", Synopsis: "T is a thing.", Signature: "type T struct {", Comments: "// the a", Body: "\tA int\n}"}},
		{"go group", "a.go", "package a\n\n// Errors.\nvar (\n\t// ErrA is a.\n\tErrA = 1\n\tErrB = 2\n)\n",
			Parts{Kind: "var", Doc: "// Errors.", Synopsis: "Errors.", Signature: "var (", Comments: "\t// ErrA is a.", Body: "\tErrA = 1\n\tErrB = 2\n)"}},
		{"python docstring", "a.py", "@cache\ndef f(a,\n      b):\n    \"\"\"F adds.\n\n    Really.\n    \"\"\"\n    return a + b\n",
			Parts{Kind: "def", Doc: "    \"\"\"F adds.\n\n    Really.\n    \"\"\"", Synopsis: "F adds.", Signature: "@cache\ndef f(a,\n      b):", Body: "    return a + b"}},
		{"python comment and one-line docstring", "a.py", "# about C\nclass C:\n    '''C is c.'''\n    x = 1\n",
			Parts{Kind: "class", Doc: "# about C\n    '''C is c.'''", Synopsis: "about C C is c.", Signature: "class C:", Body: "    x = 1"}},
		{"java javadoc and annotation", "A.java", "/**\n * Runs it.\n */\n@Deprecated\npublic class A {\n  void go() {}\n}\n",
			Parts{Kind: "class", Doc: "/**\n * Runs it.\n */", Synopsis: "Runs it.", Signature: "@Deprecated\npublic class A {", Deprecated: true}}, // members are chunks of their own
		{"go deprecated", "a.go", "package a\n\n// Old does it.\n//\n// Deprecated: use New.\nfunc Old() {}\n",
			Parts{Kind: "func", Doc: "// Old does it.\n//\n// Deprecated: use New.", Synopsis: "Old does it.", Signature: "func Old() {}", Deprecated: true}},
		{"go mentioning deprecated is not", "a.go", "package a\n\n// Use drops the Deprecated: fields.\nfunc Use() {}\n",
			Parts{Kind: "func", Doc: "// Use drops the Deprecated: fields.", Synopsis: "Use drops the Deprecated: fields.", Signature: "func Use() {}"}},
		{"jsdoc deprecated", "a.js", "/**\n * Old does it.\n * @deprecated use neu\n */\nfunction old() {\n}\n",
			Parts{Kind: "function", Doc: "/**\n * Old does it.\n * @deprecated use neu\n */", Synopsis: "Old does it.", Signature: "function old() {", Body: "}", Deprecated: true}},
		{"python class comments", "a.py", "class C:\n    # the size\n    size = 1  # not a # in a string\n",
			Parts{Kind: "class", Signature: "class C:", Comments: "    # the size\n# not a # in a string", Body: "    size = 1 "}},
		{"go interface block comments", "a.go", "package a\n\ntype I interface {\n\t/* one\n\t   two */\n\tG() // call g\n}\n",
			Parts{Kind: "type", Signature: "type I interface {", Comments: "\t/* one\n\t   two */\n// call g", Body: "\tG()\n}"}},
		{"a function's comments are notes on its code", "a.go", "package a\n\nfunc F() {\n\t// call g\n\tg() // now\n}\n",
			Parts{Kind: "func", Signature: "func F() {", Body: "\t// call g\n\tg() // now\n}"}},
		{"ts class", "a.ts", "// A widget.\nexport class Widget extends Base {\n  x = 1;\n}\n",
			Parts{Kind: "class", Doc: "// A widget.", Synopsis: "A widget.", Signature: "export class Widget extends Base {", Body: "  x = 1;\n}"}},
		{"go method of an unexported type", "a.go", "package a\n\nfunc (c *conn) Close() error { return nil }\n",
			Parts{Kind: "func", Signature: "func (c *conn) Close() error { return nil }", Private: true}},
		{"go unexported group", "a.go", "package a\n\nconst (\n\ta = 1\n\tb = 2\n)\n",
			Parts{Kind: "const", Signature: "const (", Body: "\ta = 1\n\tb = 2\n)", Private: true}},
		{"python helper", "a.py", "def _helper():\n    pass\n",
			Parts{Kind: "def", Signature: "def _helper():", Body: "    pass", Private: true}},
		{"markdown heading", "a.md", "# Setup\n\nRun it.\n",
			Parts{Kind: "heading", Signature: "# Setup", Body: "\nRun it."}},
		{"plain text is all body", "a.txt", "hello\nworld\n", Parts{Body: "hello\nworld"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cs, err := Split(tt.file, "src", []byte(tt.content), Options{})
			if err != nil {
				t.Fatal(err)
			}
			var c Chunk
			for _, c = range cs {
				if c.Symbol != "" && !strings.HasPrefix(c.Symbol, "package ") || tt.file == "a.txt" {
					break
				}
			}
			if got := c.Parts(); got != tt.want {
				t.Errorf("Parts of %q (symbol %q):\n got %#v\nwant %#v", c.Text, c.Symbol, got, tt.want)
			}
		})
	}
}

// TestSynopsis: the first sentence of the comment next to the
// declaration, without markers, directives or tags.
func TestSynopsis(t *testing.T) {
	long := strings.Repeat("word ", 100)
	for _, tt := range []struct{ name, doc, want string }{
		{"go", "// Get issues a GET to the specified URL. If the response is one of\n// the following redirect codes, Get follows the redirect.", "Get issues a GET to the specified URL."},
		{"across lines", "// Shutdown gracefully shuts down the server\n// without interrupting any active connections. Shutdown works", "Shutdown gracefully shuts down the server without interrupting any active connections."},
		{"a lone capital does not end it", "// Made in the U.S. by us. Then", "Made in the U.S. by us."},
		{"an acronym does", "// Speaks HTTP. Then", "Speaks HTTP."},
		{"no period", "// Handler responds", "Handler responds"},
		{"a paragraph ends it", "// Handler responds\n//\n// More.", "Handler responds"},
		{"the licence is not the doc", "// Copyright 2009 The Go Authors. All rights reserved.\n\n// Package http provides HTTP. More.", "Package http provides HTTP."},
		{"a directive is not", "//go:noinline\n// F does f. More", "F does f."},
		{"jsdoc", "/**\n * Register callback `fn` for the command.\n *\n * @example\n */", "Register callback `fn` for the command."},
		{"jsdoc tags end it", "/**\n * Define option.\n * @param {string} flags\n */", "Define option."},
		{"python docstring", "    \"\"\"Return the sum.\n\n    More.\n    \"\"\"", "Return the sum."},
		{"bounded, between words", "// " + long, strings.TrimSpace(long[:maxSynopsisBytes])},
		{"none", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := synopsis(tt.doc); got != tt.want {
				t.Errorf("synopsis(%q) = %q, want %q", tt.doc, got, tt.want)
			}
		})
	}
}

// TestPartsOfAPieceInTheMiddle: the second piece of a declaration cut in
// two does not start with it, so it is all body.
func TestPartsOfAPieceInTheMiddle(t *testing.T) {
	c := Chunk{FileName: "a.go", Symbol: "Long", Text: "\tx := 1\n\treturn x\n}"}
	if got := c.Parts(); got != (Parts{Body: c.Text}) {
		t.Errorf("Parts %#v, want all body", got)
	}
}
