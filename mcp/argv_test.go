package mcp

import (
	"slices"
	"strings"
	"testing"
)

func TestSplitArgs(t *testing.T) {
	tests := []struct {
		line string
		want []string
		err  string
	}{
		{line: "a b  c", want: []string{"a", "b", "c"}},
		{line: " \t\n ", want: nil},
		{line: "", want: nil},
		{line: "a\tb\nc\r\nd", want: []string{"a", "b", "c", "d"}},
		{line: `'a b' c`, want: []string{"a b", "c"}},
		{line: `"a \"b\" \\ \n \$x"`, want: []string{`a "b" \ \n \$x`}},
		{line: `a\ b \'c\"`, want: []string{"a b", `'c"`}},
		{line: `'' ""`, want: []string{"", ""}},
		{line: `a''b"c"'d'`, want: []string{"abcd"}},
		{line: `'a\'`, want: []string{`a\`}},
		{line: `"it's" 'say "hi"'`, want: []string{"it's", `say "hi"`}},
		{line: `a; rm -rf /`, want: []string{"a;", "rm", "-rf", "/"}},
		{line: `a|b&&c>d <e`, want: []string{"a|b&&c>d", "<e"}},
		{line: `"$HOME" *.go ~ $(id) ` + "`id`", want: []string{"$HOME", "*.go", "~", "$(id)", "`id`"}},
		{line: `npx -y @modelcontextprotocol/server-filesystem "/my docs"`,
			want: []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "/my docs"}},
		{line: "héllo wörld", want: []string{"héllo", "wörld"}},
		{line: `it's`, err: "unterminated single quote at byte 2"},
		{line: `"abc`, err: "unterminated double quote at byte 0"},
		{line: `"abc\"`, err: "unterminated double quote"},
		{line: `abc\`, err: "trailing backslash"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			got, err := SplitArgs(tt.line)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("SplitArgs(%q) = %q, %v; want error %q", tt.line, got, err, tt.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("SplitArgs(%q) = %q, %v; want %q", tt.line, got, err, tt.want)
			}
		})
	}
}

// shellQuote quotes words so that SplitArgs gives them back.
func shellQuote(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(quoted, " ")
}

func FuzzSplitArgs(f *testing.F) {
	for _, s := range []string{"a b", `'a b' "c \" d" e\ f`, `it's`, `"x`, `\`, "a; rm -rf /", "\t\n", `''""`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		words, err := SplitArgs(line)
		if err != nil {
			return
		}
		again, err := SplitArgs(shellQuote(words))
		if err != nil || !slices.Equal(again, words) {
			t.Fatalf("SplitArgs(%q) = %q; re-quoted gives %q, %v", line, words, again, err)
		}
		if strings.Trim(line, " \t\n\r") == "" && len(words) != 0 {
			t.Fatalf("blank line gave words %q", words)
		}
	})
}

func BenchmarkSplitArgs(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := SplitArgs(`npx -y "@scope/server" --root '/my docs' --flag=a\ b`); err != nil {
			b.Fatal(err)
		}
	}
}
