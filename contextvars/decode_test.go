package contextvars

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

func ptr[T any](v T) *T { return &v }

func mustDecode(t *testing.T, in string) *Set {
	t.Helper()
	s, err := Decode([]byte(in))
	if err != nil {
		t.Fatalf("Decode(%s): %v", in, err)
	}
	return s
}

func TestDecodeFull(t *testing.T) {
	data, err := os.ReadFile("testdata/full.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	want := &Set{
		UserInputPrompt: `Why does this "loop" never end?`,
		UserInfo:        &UserInfo{ID: "u-42", Name: "alice", Nickname: "Alice 爱丽丝"},
		VCS: &VCS{Type: "git", BranchName: "feature/x", UpstreamBranchName: "origin/feature/x",
			RemoteURL: "git@example.com:team/repo.git", Remotes: []string{"git@example.com:team/repo.git"}},
		KnowledgeBase: []KnowledgeBase{
			{KnowledgeBaseID: "kb1", References: []Reference{
				{Score: 0.91, Chunk: "Loops must terminate.", Metadata: ReferenceMetadata{FileName: "/guide/loops.md",
					SourceType: "doc", Source: "/home/a/guide/loops.md", StartPos: ptr(3), EndPos: ptr(9)}},
				{Score: 0.2, Chunk: "for {}", Metadata: ReferenceMetadata{FileName: "main.go", SourceType: "code",
					Source: "github.com/a/b/main.go"}},
			}},
			{KnowledgeBaseID: "kb2"},
		},
		ActiveEditor: &Editor{
			FilePath: "/src/main.go", Language: "go",
			Content:      "package main\n\nfunc main() {\n\tfor i := 0; i < 3; {\n\t\tprintln(i)\n\t}\n}\n",
			CursorOffset: 48, StartLine: 4, StartColumn: 2, EndLine: 4, EndColumn: 22,
			SelectedRanges: []Range{{Content: "for i := 0; i < 3; {", StartLine: 4, StartColumn: 2, EndLine: 4,
				EndColumn: 22, ContentBeforeSelection: ptr("func main() {\n\t"), ContentAfterSelection: ptr("\n\t\tprintln(i)")}},
			VisibleRange: &Span{Content: "package main\n\nfunc main() {", StartLine: 1, StartColumn: 1, EndLine: 3, EndColumn: 14},
		},
		GlobalPrompts: []Prompt{{Role: "system", Content: "Answer in English."}},
		PackageFiles:  []PackageFile{{Filepath: "go.mod", Content: "module example.com/x\n"}},
		Other: map[string]any{"ticket": map[string]any{"id": "JIRA-7", "points": 3.0,
			"tags": []any{"a", "b"}, "open": true, "owner": nil}},
		order:       []string{"userInputPrompt", "userInfo", "vcs", "knowledgeBase", "activeEditor", "globalPrompts", "packageFiles", "ticket"},
		promptGiven: true,
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("Decode:\n got %#v\nwant %#v", s, want)
	}
	if got := s.Names(); !reflect.DeepEqual(got, want.order) {
		t.Errorf("Names = %q", got)
	}
}

func TestDecodeValues(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want *Set
	}{
		{"nil", ``, &Set{}},
		{"whitespace", " \n\t", &Set{}},
		{"null", ` null `, &Set{}},
		{"empty list", `[]`, &Set{}},
		{"null value is absent", `[{"name":"userInfo","value":null}]`, &Set{}},
		{"missing value is absent", `[{"name":"vcs"}]`, &Set{}},
		{"empty prompt is present", `[{"name":"userInputPrompt","value":""}]`,
			&Set{order: []string{"userInputPrompt"}, promptGiven: true}},
		{"empty slices stay non-nil", `[{"name":"knowledgeBase","value":[{"knowledgeBaseId":"k","references":[]}]},
			{"name":"globalPrompts","value":[]},{"name":"packageFiles","value":[]},
			{"name":"vcs","value":{"remotes":[]}},{"name":"activeEditor","value":{"selectedRanges":[]}}]`,
			&Set{KnowledgeBase: []KnowledgeBase{{KnowledgeBaseID: "k", References: []Reference{}}},
				GlobalPrompts: []Prompt{}, PackageFiles: []PackageFile{}, VCS: &VCS{Remotes: []string{}},
				ActiveEditor: &Editor{SelectedRanges: []Range{}},
				order:        []string{"knowledgeBase", "globalPrompts", "packageFiles", "vcs", "activeEditor"}}},
		{"null fields stay zero", `[{"name":"activeEditor","value":{"content":null,"selectedRanges":null,"visibleRange":null,
			"startLine":null}}]`, &Set{ActiveEditor: &Editor{}, order: []string{"activeEditor"}}},
		{"null optional strings and ints", `[{"name":"activeEditor","value":{"selectedRanges":[{"contentBeforeSelection":null,
			"contentAfterSelection":""}]}},{"name":"knowledgeBase","value":[{"references":[{"metadata":{"startPos":null,"endPos":0}}]}]}]`,
			&Set{ActiveEditor: &Editor{SelectedRanges: []Range{{ContentAfterSelection: ptr("")}}},
				KnowledgeBase: []KnowledgeBase{{References: []Reference{{Metadata: ReferenceMetadata{EndPos: ptr(0)}}}}},
				order:         []string{"activeEditor", "knowledgeBase"}}},
		{"value before name", `[{"value":{"id":"x"},"name":"userInfo"}]`,
			&Set{UserInfo: &UserInfo{ID: "x"}, order: []string{"userInfo"}}},
		{"extra members are ignored", `[{"name":"userInfo","resolverOptions":{"a":[1,2]},"value":{"id":"x","extra":{"b":[null]}}}]`,
			&Set{UserInfo: &UserInfo{ID: "x"}, order: []string{"userInfo"}}},
		{"keys match ignoring case", `[{"Name":"packageFiles","VALUE":[{"filePath":"a","Content":"b"}]}]`,
			&Set{PackageFiles: []PackageFile{{Filepath: "a", Content: "b"}}, order: []string{"packageFiles"}}},
		{"escapes", `[{"name":"userInputPrompt","value":"a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00\ud800x\u0000"}]`,
			&Set{UserInputPrompt: "a\"\\/\b\f\n\r\té😀\uFFFDx\x00", promptGiven: true, order: []string{"userInputPrompt"}}},
		{"an escaped lone surrogate is U+FFFD", `[{"name":"userInputPrompt","value":"a\udc00b"}]`,
			&Set{UserInputPrompt: "a\uFFFDb", promptGiven: true, order: []string{"userInputPrompt"}}},
		{"unknown names kept in order", `[{"name":"b","value":1},{"name":"a","value":"x"}]`,
			&Set{Other: map[string]any{"a": "x", "b": 1.0}, order: []string{"b", "a"}}},
		{"number forms", `[{"name":"knowledgeBase","value":[{"references":[{"score":-1.5e-3,"metadata":{"startPos":-0,"endPos":2147483647}}]}]}]`,
			&Set{KnowledgeBase: []KnowledgeBase{{References: []Reference{{Score: -0.0015,
				Metadata: ReferenceMetadata{StartPos: ptr(0), EndPos: ptr(2147483647)}}}}}, order: []string{"knowledgeBase"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustDecode(t, tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		in                      string
		variable, field, reason string
	}{
		{`{}`, "contextVariables", "", "expected an array of {name, value}, got object"},
		// Invalid UTF-8 is refused wherever it is (README: UTF-8 policy).
		{"[{\"name\":\"userInputPrompt\",\"value\":\"a\xffb\"}]", "userInputPrompt", "", "invalid JSON: invalid UTF-8 in string at offset 35"},
		{"[{\"name\":\"activeEditor\",\"value\":{\"content\":\"abcdefghijkl\xc3\"}}]", "activeEditor", "content", "invalid JSON: invalid UTF-8 in string at offset 43"},
		{"[{\"name\":\"custom\",\"value\":{\"a\":[\"\xed\xa0\x80\"]}}]", "custom", "a", "invalid JSON: invalid UTF-8 in string at offset 32"},
		{"[{\"name\":\"userInfo\",\"value\":{\"\xff\":{}}}]", "userInfo", "", "invalid JSON: invalid UTF-8 in string at offset 29"},
		{"[{\"name\":\"n\xff\",\"value\":1}]", "contextVariables[0]", "name", "invalid JSON: invalid UTF-8 in string at offset 9"},
		{`"x"`, "contextVariables", "", "expected an array of {name, value}, got string"},
		{`[1]`, "contextVariables[0]", "", "expected an object {name, value}, got number"},
		{`[{"name":"a"},[]]`, "contextVariables[1]", "", "expected an object {name, value}, got array"},
		{`[{"value":1}]`, "contextVariables[0]", "name", "missing name"},
		{`[{"name":"","value":1}]`, "contextVariables[0]", "name", "empty name"},
		{`[{"name":3}]`, "contextVariables[0]", "name", "expected string, got number"},
		{`[{"name":"a","name":"b"}]`, "contextVariables[0]", "name", "given twice"},
		{`[{"name":"a","value":1,"value":2}]`, "contextVariables[0]", "value", "given twice"},
		{`[{"name":"vcs","value":{}},{"name":"vcs","value":null}]`, "vcs", "", "given twice (contextVariables[0] and contextVariables[1])"},
		{`[{"name":"x","value":1},{"value":2,"name":"x"}]`, "x", "", "given twice (contextVariables[0] and contextVariables[1])"},
		{`[{"name":"userInputPrompt","value":42}]`, "userInputPrompt", "", "expected string, got number"},
		{`[{"name":"userInfo","value":"bob"}]`, "userInfo", "", "expected object, got string"},
		{`[{"name":"userInfo","value":{"id":1}}]`, "userInfo", "id", "expected string, got number"},
		{`[{"name":"userInfo","value":{"name":true}}]`, "userInfo", "name", "expected string, got boolean"},
		{`[{"name":"userInfo","value":{"nickname":{}}}]`, "userInfo", "nickname", "expected string, got object"},
		{`[{"name":"vcs","value":[]}]`, "vcs", "", "expected object, got array"},
		{`[{"name":"vcs","value":{"type":1}}]`, "vcs", "type", "expected string, got number"},
		{`[{"name":"vcs","value":{"branchName":[]}}]`, "vcs", "branchName", "expected string, got array"},
		{`[{"name":"vcs","value":{"upstreamBranchName":false}}]`, "vcs", "upstreamBranchName", "expected string, got boolean"},
		{`[{"name":"vcs","value":{"remoteUrl":1}}]`, "vcs", "remoteUrl", "expected string, got number"},
		{`[{"name":"vcs","value":{"remotes":"a"}}]`, "vcs", "remotes", "expected array, got string"},
		{`[{"name":"vcs","value":{"remotes":["a",1]}}]`, "vcs", "remotes", "expected string, got number"},
		{`[{"name":"knowledgeBase","value":{}}]`, "knowledgeBase", "", "expected array, got object"},
		{`[{"name":"knowledgeBase","value":["kb"]}]`, "knowledgeBase", "", "expected object, got string"},
		{`[{"name":"knowledgeBase","value":[{"knowledgeBaseId":7}]}]`, "knowledgeBase", "knowledgeBaseId", "expected string, got number"},
		{`[{"name":"knowledgeBase","value":[{"references":{}}]}]`, "knowledgeBase", "references", "expected array, got object"},
		{`[{"name":"knowledgeBase","value":[{"references":[1]}]}]`, "knowledgeBase", "references", "expected object, got number"},
		{`[{"name":"knowledgeBase","value":[{"references":[{"score":"high"}]}]}]`, "knowledgeBase", "references.score", "expected number, got string"},
		{`[{"name":"knowledgeBase","value":[{"references":[{"score":1e999}]}]}]`, "knowledgeBase", "references.score", "number 1e999 is out of range"},
		{`[{"name":"knowledgeBase","value":[{"references":[{"chunk":[]}]}]}]`, "knowledgeBase", "references.chunk", "expected string, got array"},
		{`[{"name":"knowledgeBase","value":[{"references":[{"metadata":"m"}]}]}]`, "knowledgeBase", "references.metadata", "expected object, got string"},
		{`[{"name":"knowledgeBase","value":[{"references":[{"metadata":{"fileName":1}}]}]}]`, "knowledgeBase", "references.metadata.fileName", "expected string, got number"},
		{`[{"name":"knowledgeBase","value":[{"references":[{"metadata":{"sourceType":1}}]}]}]`, "knowledgeBase", "references.metadata.sourceType", "expected string, got number"},
		{`[{"name":"knowledgeBase","value":[{"references":[{"metadata":{"source":1}}]}]}]`, "knowledgeBase", "references.metadata.source", "expected string, got number"},
		{`[{"name":"knowledgeBase","value":[{"references":[{"metadata":{"startPos":"3"}}]}]}]`, "knowledgeBase", "references.metadata.startPos", "expected number, got string"},
		{`[{"name":"knowledgeBase","value":[{"references":[{"metadata":{"endPos":2.5}}]}]}]`, "knowledgeBase", "references.metadata.endPos", "expected integer, got number 2.5"},
		{`[{"name":"activeEditor","value":"x"}]`, "activeEditor", "", "expected object, got string"},
		{`[{"name":"activeEditor","value":{"filePath":1}}]`, "activeEditor", "filePath", "expected string, got number"},
		{`[{"name":"activeEditor","value":{"language":1}}]`, "activeEditor", "language", "expected string, got number"},
		{`[{"name":"activeEditor","value":{"content":["a"]}}]`, "activeEditor", "content", "expected string, got array"},
		{`[{"name":"activeEditor","value":{"cursorOffset":"1"}}]`, "activeEditor", "cursorOffset", "expected number, got string"},
		{`[{"name":"activeEditor","value":{"startLine":true}}]`, "activeEditor", "startLine", "expected number, got boolean"},
		{`[{"name":"activeEditor","value":{"startColumn":1.5}}]`, "activeEditor", "startColumn", "expected integer, got number 1.5"},
		{`[{"name":"activeEditor","value":{"endLine":1e2}}]`, "activeEditor", "endLine", "expected integer, got number 1e2"},
		{`[{"name":"activeEditor","value":{"endColumn":99999999999999999999}}]`, "activeEditor", "endColumn", "position 99999999999999999999 is out of range (0 to 2147483647)"},
		// Positions are integers from 0 to MaxPosition: negative or huge
		// ones are refused naming the field (they used to be accepted).
		{`[{"name":"activeEditor","value":{"startLine":-1}}]`, "activeEditor", "startLine", "position -1 is out of range (1 to 2147483647)"},
		// Lines count from 1 (PROTOCOL.md section 6): a line 0 is out of
		// range wherever it is (it used to be accepted); columns and the
		// cursor offset may be 0.
		{`[{"name":"activeEditor","value":{"startLine":0}}]`, "activeEditor", "startLine", "position 0 is out of range (1 to 2147483647)"},
		{`[{"name":"activeEditor","value":{"startLine":1,"endLine":0}}]`, "activeEditor", "endLine", "position 0 is out of range (1 to 2147483647)"},
		{`[{"name":"activeEditor","value":{"selectedRanges":[{"startLine":0}]}}]`, "activeEditor", "selectedRanges.startLine", "position 0 is out of range (1 to 2147483647)"},
		{`[{"name":"activeEditor","value":{"selectedRanges":[{"startLine":1,"endLine":0}]}}]`, "activeEditor", "selectedRanges.endLine", "position 0 is out of range (1 to 2147483647)"},
		{`[{"name":"activeEditor","value":{"visibleRange":{"endLine":0}}}]`, "activeEditor", "visibleRange.endLine", "position 0 is out of range (1 to 2147483647)"},
		{`[{"name":"activeEditor","value":{"startColumn":-5}}]`, "activeEditor", "startColumn", "position -5 is out of range (0 to 2147483647)"},
		{`[{"name":"activeEditor","value":{"endLine":2147483648}}]`, "activeEditor", "endLine", "position 2147483648 is out of range (1 to 2147483647)"},
		{`[{"name":"activeEditor","value":{"cursorOffset":-1}}]`, "activeEditor", "cursorOffset", "position -1 is out of range (0 to 2147483647)"},
		{`[{"name":"activeEditor","value":{"cursorOffset":9223372036854775807}}]`, "activeEditor", "cursorOffset", "position 9223372036854775807 is out of range (0 to 2147483647)"},
		{`[{"name":"activeEditor","value":{"selectedRanges":[{"startLine":1},{"endColumn":-2}]}}]`, "activeEditor", "selectedRanges.endColumn", "position -2 is out of range (0 to 2147483647)"},
		{`[{"name":"activeEditor","value":{"visibleRange":{"startLine":-9223372036854775808}}}]`, "activeEditor", "visibleRange.startLine", "position -9223372036854775808 is out of range (1 to 2147483647)"},
		{`[{"name":"activeEditor","value":{"visibleRange":{"endLine":1e400}}}]`, "activeEditor", "visibleRange.endLine", "expected integer, got number 1e400"},
		{`[{"name":"knowledgeBase","value":[{"references":[{"metadata":{"startPos":-3}}]}]}]`, "knowledgeBase", "references.metadata.startPos", "position -3 is out of range (0 to 2147483647)"},
		{`[{"name":"knowledgeBase","value":[{"references":[{"metadata":{"endPos":4294967296}}]}]}]`, "knowledgeBase", "references.metadata.endPos", "position 4294967296 is out of range (0 to 2147483647)"},
		{`[{"name":"activeEditor","value":{"selectedRanges":{}}}]`, "activeEditor", "selectedRanges", "expected array, got object"},
		{`[{"name":"activeEditor","value":{"selectedRanges":["x"]}}]`, "activeEditor", "selectedRanges", "expected object, got string"},
		{`[{"name":"activeEditor","value":{"selectedRanges":[{"content":1}]}}]`, "activeEditor", "selectedRanges.content", "expected string, got number"},
		{`[{"name":"activeEditor","value":{"selectedRanges":[{"startLine":"1"}]}}]`, "activeEditor", "selectedRanges.startLine", "expected number, got string"},
		{`[{"name":"activeEditor","value":{"selectedRanges":[{},{"startColumn":"1"}]}}]`, "activeEditor", "selectedRanges.startColumn", "expected number, got string"},
		{`[{"name":"activeEditor","value":{"selectedRanges":[{"endLine":{}}]}}]`, "activeEditor", "selectedRanges.endLine", "expected number, got object"},
		{`[{"name":"activeEditor","value":{"selectedRanges":[{"endColumn":[]}]}}]`, "activeEditor", "selectedRanges.endColumn", "expected number, got array"},
		{`[{"name":"activeEditor","value":{"selectedRanges":[{"contentBeforeSelection":1}]}}]`, "activeEditor", "selectedRanges.contentBeforeSelection", "expected string, got number"},
		{`[{"name":"activeEditor","value":{"selectedRanges":[{"contentAfterSelection":false}]}}]`, "activeEditor", "selectedRanges.contentAfterSelection", "expected string, got boolean"},
		{`[{"name":"activeEditor","value":{"visibleRange":"x"}}]`, "activeEditor", "visibleRange", "expected object, got string"},
		{`[{"name":"activeEditor","value":{"visibleRange":{"content":1}}}]`, "activeEditor", "visibleRange.content", "expected string, got number"},
		{`[{"name":"activeEditor","value":{"visibleRange":{"endColumn":"9"}}}]`, "activeEditor", "visibleRange.endColumn", "expected number, got string"},
		{`[{"name":"globalPrompts","value":"be nice"}]`, "globalPrompts", "", "expected array, got string"},
		{`[{"name":"globalPrompts","value":[{"role":1}]}]`, "globalPrompts", "role", "expected string, got number"},
		{`[{"name":"globalPrompts","value":[{"content":null},{"content":2}]}]`, "globalPrompts", "content", "expected string, got number"},
		{`[{"name":"packageFiles","value":{"filepath":"a"}}]`, "packageFiles", "", "expected array, got object"},
		{`[{"name":"packageFiles","value":[{"filepath":1}]}]`, "packageFiles", "filepath", "expected string, got number"},
		{`[{"name":"packageFiles","value":[{"content":{}}]}]`, "packageFiles", "content", "expected string, got object"},
		{`[{"value":{"id":7},"name":"userInfo"}]`, "userInfo", "id", "expected string, got number"},
		{`[{"name":"ticket","value":1e999}]`, "ticket", "", "number 1e999 is out of range"},
		// syntax errors
		{`[`, "contextVariables[0]", "", "invalid JSON: unexpected end of input looking for the beginning of a value"},
		{`[{"name":"a"}`, "contextVariables", "", "invalid JSON: unexpected end of input after an array element"},
		{`[{"name":"a"}] x`, "contextVariables", "", "invalid JSON: invalid character 'x' after the top-level value at offset 15"},
		{`[{"name":"a",}]`, "contextVariables[0]", "", "invalid JSON: invalid character '}' looking for an object key at offset 13"},
		{`[{"name":"userInfo","value":{"id":"x}}]`, "userInfo", "id", "invalid JSON: unexpected end of input in string literal"},
		{`[{"name":"activeEditor","value":{"selectedRanges":[{"content":"a` + "\x01" + `"}]}}]`, "activeEditor", "selectedRanges.content", "invalid JSON: invalid character '\\x01' in string literal at offset 64"},
		{`[{"name":"activeEditor","value":{"content":"\x"}}]`, "activeEditor", "content", "invalid JSON: invalid character 'x' in string escape code at offset 45"},
		{`[{"name":"activeEditor","value":{"x":[1,2}}}]`, "activeEditor", "x", "invalid JSON: invalid character '}' after a value at offset 41"},
		{`[{"name":"activeEditor","value":{"startColumn":01}}]`, "activeEditor", "", "invalid JSON: invalid character '1' after an object member at offset 48"},
		{`[{"name":"userInfo","value":{"id":tru}}]`, "userInfo", "id", "invalid JSON: invalid character '}' in literal true at offset 37"},
		{`[{"name":"x","value":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}]`, "x", "", "invalid JSON: nesting deeper than 10000 at offset 10020"},
	}
	for _, tt := range tests {
		t.Run(tt.in[:min(len(tt.in), 60)], func(t *testing.T) {
			s, err := Decode([]byte(tt.in))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Decode = %v, %v; want an *Error", s, err)
			}
			if s != nil {
				t.Errorf("Decode returned a set with the error")
			}
			if e.Variable != tt.variable || e.Field != tt.field || e.Reason != tt.reason {
				t.Errorf("Error = {%q, %q, %q}\n want {%q, %q, %q}", e.Variable, e.Field, e.Reason, tt.variable, tt.field, tt.reason)
			}
		})
	}
}

func TestErrorMessage(t *testing.T) {
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{Variable: "activeEditor", Field: "selectedRanges.startLine", Reason: "expected number, got string"},
			`context variable "activeEditor": field "selectedRanges.startLine": expected number, got string`},
		{&Error{Variable: "vcs", Reason: "given twice (contextVariables[0] and contextVariables[1])"},
			`context variable "vcs": given twice (contextVariables[0] and contextVariables[1])`},
		{&Error{Variable: "contextVariables[3]", Field: "name", Reason: "missing name"}, `contextVariables[3]: field "name": missing name`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %s\n     want %s", got, tt.want)
		}
	}
}

// TestErrorSyntax: malformed JSON is marked as such (the gateway answers it
// with BAD_REQUEST), a well-formed value of the wrong shape is not.
func TestErrorSyntax(t *testing.T) {
	for in, syntax := range map[string]bool{
		`[{"name":"activeEditor","value":tru}]`:                  true,
		`[{"name":"userInputPrompt","value":"abc`:                true,
		`[{"name":"userInputPrompt","value":"a\x"}]`:             true,
		`[{"name":"activeEditor","value":{"filePath":"a" "b"}}]`: true,
		`nul`:                                 true,
		`[{"name":"activeEditor","value":5}]`: false,
		`[{"name":"activeEditor","value":{"filePath":1}}]`: false,
		`{}`:            false,
		`[{"value":1}]`: false,
	} {
		_, err := Decode([]byte(in))
		var e *Error
		if !errors.As(err, &e) || e.Syntax != syntax {
			t.Errorf("Decode(%s) = %v (syntax %v), want an *Error with Syntax %v", in, err, e != nil && e.Syntax, syntax)
		}
	}
}

// TestDecodeValueBeforeName: a value that comes before its name is decoded
// by a parser of its own; the strings it decodes share the request's arena
// and must not be overwritten by the strings decoded after it.
func TestDecodeValueBeforeName(t *testing.T) {
	s, err := Decode([]byte(`[{"value":"abc","name":"userInputPrompt"},{"name":"custom","value":"def"},` +
		`{"value":{"filePath":"a.go","content":"x\ty"},"name":"activeEditor"},{"name":"more","value":"ghijkl"}]`))
	if err != nil {
		t.Fatal(err)
	}
	if s.UserInputPrompt != "abc" || s.Other["custom"] != "def" || s.Other["more"] != "ghijkl" ||
		s.ActiveEditor == nil || s.ActiveEditor.FilePath != "a.go" || s.ActiveEditor.Content != "x\ty" {
		t.Errorf("decoded %q, %q, %q, %+v", s.UserInputPrompt, s.Other["custom"], s.Other["more"], s.ActiveEditor)
	}
}

// TestDecodeLongStrings: strings longer than an arena block move to blocks
// of their own; those decoded before and after them keep their text.
func TestDecodeLongStrings(t *testing.T) {
	long := strings.Repeat("line \"quoted\"\tand é\n", 5000) // ~100 KB decoded
	data, err := json.Marshal([]any{
		map[string]any{"name": "userInputPrompt", "value": "short"},
		map[string]any{"value": map[string]any{"content": long, "filePath": "b.go"}, "name": "activeEditor"},
		map[string]any{"name": "first", "value": long + "1"},
		map[string]any{"name": "second", "value": "after"},
		map[string]any{"name": "third", "value": long + "3"},
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if s.UserInputPrompt != "short" || s.ActiveEditor.Content != long || s.ActiveEditor.FilePath != "b.go" ||
		s.Other["first"] != long+"1" || s.Other["second"] != "after" || s.Other["third"] != long+"3" {
		t.Errorf("a string changed: %q, %d, %q, %v", s.UserInputPrompt, len(s.ActiveEditor.Content), s.ActiveEditor.FilePath, s.Other["second"])
	}
}
