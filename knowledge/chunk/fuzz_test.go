package chunk

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzSplit fuzzes Split for files named name, seeded with the testdata
// files of dir: it must not panic, and the chunks must keep the
// invariants checkChunks checks, under small bounds that make it cut
// often. Windows do not overlap here, so every chunk list is checked as
// structured.
func fuzzSplit(f *testing.F, name, dir string, seeds ...string) {
	paths, err := filepath.Glob(filepath.Join("testdata", dir, "*"))
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range paths {
		if filepath.Ext(p) == ".json" {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	opts := []Options{
		{WindowLines: 5, Overlap: -1, MaxLines: 7, MaxBytes: 64},
		{Overlap: -1},
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		for _, o := range opts {
			chunks, err := Split(name, "fuzz", content, o)
			if err != nil {
				if !errors.Is(err, ErrBinary) {
					t.Fatalf("unexpected error %v", err)
				}
				if chunks != nil {
					t.Fatalf("chunks of a binary file: %+v", chunks)
				}
				continue
			}
			checkChunks(t, content, chunks, o.withDefaults(), true)
			for _, c := range chunks {
				checkParts(t, c)
			}
		}
	})
}

// checkParts checks that a chunk's parts hold its text's characters, each
// once: nothing is lost or counted twice by the fields the index weighs.
func checkParts(t *testing.T, c Chunk) {
	t.Helper()
	p := c.Parts()
	visible := func(s string) int {
		return len(strings.Join(strings.Fields(s), ""))
	}
	if got, want := visible(p.Doc)+visible(p.Signature)+visible(p.Comments)+visible(p.Body), visible(c.Text); got != want {
		t.Fatalf("parts of %q hold %d visible bytes, the text %d: %#v", c.Text, got, want, p)
	}
	if p.Kind != "" && p.Signature == "" {
		t.Fatalf("a kind without a signature: %#v", p)
	}
	// The synopsis repeats words of the doc, no others.
	if len(p.Synopsis) > maxSynopsisBytes || !utf8.ValidString(p.Synopsis) {
		t.Fatalf("synopsis %q: over %d bytes or not UTF-8", p.Synopsis, maxSynopsisBytes)
	}
	inDoc := map[string]bool{}
	for _, tk := range Tokens(p.Doc) {
		inDoc[tk] = true
	}
	for _, tk := range Tokens(p.Synopsis) {
		if !inDoc[tk] {
			t.Fatalf("synopsis %q holds %q, which the doc %q does not", p.Synopsis, tk, p.Doc)
		}
	}
}

func FuzzSplitGo(f *testing.F) {
	fuzzSplit(f, "a.go", "go", "package a\nfunc (x *T[K, V]) M() {}\n", "package a\n/* unterminated")
}

func FuzzSplitPython(f *testing.F) {
	fuzzSplit(f, "a.py", "python", "@d\n@e\nclass A:\n  def f(self): '''\n'''\n", "x = (\n", "s = 'abc\\\ndef'\n", "def f(): pass\n\\\n")
}

func FuzzSplitJS(f *testing.F) {
	fuzzSplit(f, "a.tsx", "js", "const a = `${`${'}'}`}`;\nfunction f() {}\n", "x = a / b / c\n/re/g.test(y)\n", "}\n{", "@a @b export class X {}\n")
}

func FuzzSplitJava(f *testing.F) {
	fuzzSplit(f, "A.java", "java", "enum E { ; void f() {} }\n", "class A { int[] a = {1}; @A(x = {1}) void f() {} }\n", "@interface A {}\n")
}

func FuzzSplitMarkdown(f *testing.F) {
	fuzzSplit(f, "a.md", "markdown", "---\na: b\n---\n# T\n", "a\nb\n===\n```\n# x\n", "# a\n## b\n### c\n## d\n")
}

func FuzzSplitText(f *testing.F) {
	fuzzSplit(f, "a.txt", "text", "a\n\n\nb\r\nc")
}
