package chunk

import (
	"fmt"
	"slices"
	"testing"
)

// TestSymbols checks where small files are cut and what each chunk is
// named, as "start-end symbol".
func TestSymbols(t *testing.T) {
	for _, tt := range []struct {
		name, file, content string
		want                []string
	}{
		{"go generic receiver", "a.go", "package a\n\nfunc (s *Set[K, V]) Len() int { return 0 }\n", []string{"1-1 package a", "3-3 Set.Len"}},
		{"go floating comment joins the next", "a.go", "package a\n\n// about b\n\n// B is b.\nfunc B() {}\n", []string{"1-1 package a", "3-6 B"}},
		{"js division and regexp", "a.js", "const a = 1 / 2 / 3;\nconst re = /}/;\nfunction f() { return a / re; }\n", []string{"1-1 a", "2-2 re", "3-3 f"}},
		{"js nested template", "a.js", "const t = `${`}${'`'}`}`;\nfunction h() {}\n", []string{"1-1 t", "2-2 h"}},
		{"js anonymous default class", "a.js", "export default class extends B {\n}\n", []string{"1-2 default"}},
		{"js continuation lines", "a.js", "const x = a\n+ b;\nconst y =\nc;\n", []string{"1-2 x", "3-4 y"}},
		{"js decorators on their own lines", "a.ts", "@A()\n@B\nexport class C {}\n", []string{"1-3 C"}},
		{"ts overloads", "a.ts", "export function f(a: string): void;\nexport function f(a: any) {}\n", []string{"1-1 f", "2-2 f"}},
		{"ts declare global", "a.d.ts", "declare global {\n  var x: number;\n}\n", []string{"1-3 global"}},
		{"js statements are gaps", "a.js", "import x from 'x';\nx();\n\nfunction f() {}\n\nf();\n", []string{"1-2 ", "4-4 f", "6-6 "}},
		{"python dataclass", "a.py", "@dataclass\nclass P:\n    x: int\n", []string{"1-3 P"}},
		{"python comments above a def", "a.py", "x = 1\n# about f\ndef f():\n    pass\n", []string{"1-1 ", "2-4 f"}},
		{"python one-line def", "a.py", "def f(): return 1\ndef g(): return 2\n", []string{"1-1 f", "2-2 g"}},
		{"python multi-line signature", "a.py", "def f(\n    a,\n    b,\n):\n    return a\n", []string{"1-5 f"}},
		{"python string with def at column 0", "a.py", "s = \"\"\"\ndef fake():\n\"\"\"\ndef real():\n    pass\n", []string{"1-3 ", "4-5 real"}},
		{"python backslash continuation", "a.py", "x = 1 + \\\n2\ndef f():\n    pass\n", []string{"1-2 ", "3-4 f"}},
		{"python f-string with braces", "a.py", "def f():\n    return f\"{x}}}{{\"\ndef g():\n    pass\n", []string{"1-2 f", "3-4 g"}},
		{"java enum", "E.java", "enum E { A, B; void f() {} }\n", []string{"1-1 E, E.A, B, E.f"}},
		{"java enum on lines", "E.java", "enum E {\n  A,\n  B;\n\n  void f() {}\n}\n", []string{"1-1 E", "2-3 E.A, B", "5-6 E.f"}},
		{"java interface methods", "I.java", "interface I {\n  void a();\n\n  default int b() { return 1; }\n}\n", []string{"1-1 I", "2-2 I.a", "4-5 I.b"}},
		{"java annotated member", "A.java", "class A {\n  @Inject\n  @Named(\"x\")\n  Service s;\n}\n", []string{"1-1 A", "2-5 A.s"}},
		{"markdown setext", "a.md", "Title\n===\n\nBody\n\nSub\n---\ntext\n", []string{"1-4 Title", "6-8 Title > Sub"}},
		{"markdown list then rule", "a.md", "- item\n---\n", []string{"1-2 "}},
		{"markdown hr after blank", "a.md", "# A\n\n---\n\ntext\n", []string{"1-5 A"}},
		{"markdown closing hashes", "a.md", "## Install ##\nx\n", []string{"1-2 Install"}},
		{"markdown seven hashes", "a.md", "####### no\n", []string{"1-1 "}},
		{"markdown unclosed fence", "a.md", "# A\n```\n# B\n", []string{"1-3 A"}},
		{"markdown skipped level", "a.md", "# A\nx\n### C\ny\n## B\nz\n", []string{"1-2 A", "3-4 A > C", "5-6 A > B"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			chunks, err := Split(tt.file, "", []byte(tt.content), Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range chunks {
				got = append(got, fmt.Sprintf("%d-%d %s", c.StartLine, c.EndLine, c.Symbol))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			checkChunks(t, []byte(tt.content), chunks, Options{}.withDefaults(), true)
		})
	}
}
