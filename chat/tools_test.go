package chat

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentgw/agentgw/agent/toolspec"
)

func TestReadFileTool(t *testing.T) {
	fx := newToolFixture(t)
	abs := filepath.Join(fx.dir, "calc", "add.go")
	addJSON, _ := json.Marshal(calcGo)
	tests := []toolCase{
		{name: "a whole file", params: `{"path":"calc/add.go"}`,
			want: `{"path":"calc/add.go","content":` + string(addJSON) + `,"startLine":1,"endLine":3,"truncated":false}`},
		{name: "a cleaned path", params: `{"path":"./calc//add.go"}`,
			want: `{"path":"calc/add.go","content":` + string(addJSON) + `,"startLine":1,"endLine":3,"truncated":false}`},
		{name: "an absolute path inside", params: `{"path":` + jsonOf(abs) + `}`,
			want: `{"path":"calc/add.go","content":` + string(addJSON) + `,"startLine":1,"endLine":3,"truncated":false}`},
		{name: "a symlink inside", params: `{"path":"link-in","endLine":1}`,
			want: `{"path":"link-in","content":"package calc\n","startLine":1,"endLine":1,"truncated":false}`},
		{name: "a line range", params: `{"path":"notes.txt","startLine":2,"endLine":2}`,
			want: `{"path":"notes.txt","content":"two\n","startLine":2,"endLine":2,"truncated":false}`},
		{name: "from a line to the end", params: `{"path":"notes.txt","startLine":2}`,
			want: `{"path":"notes.txt","content":"two\nthree","startLine":2,"endLine":3,"truncated":false}`},
		{name: "an end past the file", params: `{"path":"notes.txt","startLine":3,"endLine":99}`,
			want: `{"path":"notes.txt","content":"three","startLine":3,"endLine":3,"truncated":false}`},
		{name: "the end of a big file", params: `{"path":"big.txt","startLine":3000}`,
			want: `{"path":"big.txt","content":"line 3000 ` + strings.Repeat("x", 89) + `\n","startLine":3000,"endLine":3000,"truncated":false}`},
		{name: "an empty file", params: `{"path":"empty.txt"}`,
			want: `{"path":"empty.txt","content":"","startLine":1,"endLine":0,"truncated":false}`},
		{name: "a start past the end", params: `{"path":"notes.txt","startLine":4}`, code: "ERROR INVALID_PARAMETERS"},
		{name: "line 0", params: `{"path":"notes.txt","startLine":0}`, code: "ERROR INVALID_PARAMETERS"},
		{name: "an end before the start", params: `{"path":"notes.txt","startLine":3,"endLine":2}`, code: "ERROR INVALID_PARAMETERS"},
		{name: "a fractional line", params: `{"path":"notes.txt","startLine":1.5}`, code: "ERROR INVALID_PARAMETERS"},
		{name: "no path", params: `{}`, code: "ERROR INVALID_PARAMETERS"},
		{name: "no parameters", params: ``, code: "ERROR INVALID_PARAMETERS"},
		{name: "a path that is a number", params: `{"path":5}`, code: "ERROR INVALID_PARAMETERS"},
		{name: "parameters that are a list", params: `["calc/add.go"]`, code: "ERROR INVALID_PARAMETERS"},
		{name: "a binary file", params: `{"path":"bin/logo.png"}`, code: "ERROR BINARY_FILE"},
		{name: "a directory", params: `{"path":"calc"}`, code: "ERROR NOT_A_FILE"},
		{name: "a missing file", params: `{"path":"calc/sub.go"}`, code: "ERROR NOT_FOUND"},
		{name: "dot dot", params: `{"path":"../secret.txt"}`, code: "ERROR OUTSIDE_WORKSPACE"},
		{name: "dot dot that stays inside", params: `{"path":"calc/../notes.txt"}`, code: "ERROR OUTSIDE_WORKSPACE"},
		{name: "an absolute path outside", params: `{"path":` + jsonOf(filepath.Join(fx.outside, "secret.txt")) + `}`, code: "ERROR OUTSIDE_WORKSPACE"},
		{name: "a symlink out", params: `{"path":"link-out"}`, code: "ERROR OUTSIDE_WORKSPACE"},
		{name: "through a directory symlink out", params: `{"path":"dir-link-out/secret.txt"}`, code: "ERROR OUTSIDE_WORKSPACE"},
		{name: "a NUL in the path", params: `{"path":"notes.txt\u0000"}`, code: "ERROR INVALID_PARAMETERS"},
	}
	runToolCases(t, fx.dir, "read_file", tests)
}

// TestReadFileRootMessage: reading the workspace root names it ".", as
// the other tools do, not with an empty name.
func TestReadFileRootMessage(t *testing.T) {
	fx := newToolFixture(t)
	for _, p := range []string{".", "./", fx.dir} {
		res := newToolbox(fx.dir).run(context.Background(), wireToolCall{CallID: "c", Name: "read_file", Parameters: json.RawMessage(`{"path":` + jsonOf(p) + `}`)})
		if res.Error == nil || res.Error.Code != codeNotFile || res.Error.Message != ". is a directory (list_files lists it)" {
			t.Errorf("read_file %q: %+v", p, res.Error)
		}
	}
}

// TestReadFileCap: content stops within readCap, after the last whole line
// that fits, or inside a single long line at a character boundary.
func TestReadFileCap(t *testing.T) {
	fx := newToolFixture(t)
	tests := []struct {
		path    string
		endLine int
		length  int
	}{
		{"big.txt", readCap / 100, readCap / 100 * 100},
		{"long.txt", 1, readCap - 1}, // "a" then 2-byte runes: the last one does not fit
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got, code := runTool(t, fx.dir, "read_file", `{"path":"`+tt.path+`"}`)
			var res readResult
			if err := json.Unmarshal([]byte(got), &res); err != nil {
				t.Fatalf("%s %v", code, err)
			}
			if !res.Truncated || res.StartLine != 1 || res.EndLine != tt.endLine || len(res.Content) != tt.length || !utf8.ValidString(res.Content) {
				t.Errorf("truncated %v lines %d-%d, %d bytes (valid UTF-8: %v); want lines 1-%d, %d bytes",
					res.Truncated, res.StartLine, res.EndLine, len(res.Content), utf8.ValidString(res.Content), tt.endLine, tt.length)
			}
		})
	}
}

func TestListFilesTool(t *testing.T) {
	fx := newToolFixture(t)
	all := `".env","README.md","a.txt","a/b.txt","big.txt","bin/logo.png","calc/add.go","crlf.txt","deep/er/still/deepest.txt","empty.txt","link-in","long.txt","notes.txt"`
	tests := []toolCase{
		{name: "everything, sorted, skipping what walks skip", params: `{}`, want: `{"files":[` + all + `],"truncated":false}`},
		{name: "null parameters", params: `null`, want: `{"files":[` + all + `],"truncated":false}`},
		{name: "the root by name", params: `{"path":"."}`, want: `{"files":[` + all + `],"truncated":false}`},
		{name: "a glob on base names", params: `{"pattern":"*.go"}`, want: `{"files":["calc/add.go"],"truncated":false}`},
		{name: "a glob with a class", params: `{"pattern":"[ab]*.txt"}`, want: `{"files":["a.txt","a/b.txt","big.txt"],"truncated":false}`},
		{name: "a glob matching nothing", params: `{"pattern":"*.rs"}`, want: `{"files":[],"truncated":false}`},
		{name: "a subdirectory", params: `{"path":"deep/er"}`, want: `{"files":["deep/er/still/deepest.txt"],"truncated":false}`},
		{name: "a hidden directory asked for", params: `{"path":".hidden"}`, want: `{"files":[".hidden/secret.txt"],"truncated":false}`},
		{name: "capped", params: `{"maxResults":3}`, want: `{"files":[".env","README.md","a.txt"],"truncated":true}`},
		{name: "exactly at the cap", params: `{"path":"a","maxResults":1}`, want: `{"files":["a/b.txt"],"truncated":false}`},
		{name: "a bad glob", params: `{"pattern":"["}`, code: "ERROR INVALID_PARAMETERS"},
		{name: "maxResults 0", params: `{"maxResults":0}`, code: "ERROR INVALID_PARAMETERS"},
		{name: "a file", params: `{"path":"notes.txt"}`, code: "ERROR NOT_A_DIRECTORY"},
		{name: "dot dot", params: `{"path":".."}`, code: "ERROR OUTSIDE_WORKSPACE"},
		{name: "a directory symlink out", params: `{"path":"dir-link-out"}`, code: "ERROR OUTSIDE_WORKSPACE"},
		{name: "an absolute path outside", params: `{"path":` + jsonOf(fx.outside) + `}`, code: "ERROR OUTSIDE_WORKSPACE"},
	}
	runToolCases(t, fx.dir, "list_files", tests)
}

func TestSearchTextTool(t *testing.T) {
	fx := newToolFixture(t)
	funcAdd := `"text":"func Add(a, b int) int { return a - b }"`
	tests := []toolCase{
		{name: "literal, in path and line order, skipping what walks skip", params: `{"query":"Add"}`,
			want: `{"matches":[{"path":"README.md","line":2,"text":"Adds numbers."},{"path":"calc/add.go","line":3,` + funcAdd + `},{"path":"link-in","line":3,` + funcAdd + `}],"truncated":false}`},
		{name: "literal is not a regular expression", params: `{"query":"^func"}`, want: `{"matches":[],"truncated":false}`},
		{name: "a regular expression", params: `{"query":"^func \\w+\\(","regex":true,"path":"calc"}`,
			want: `{"matches":[{"path":"calc/add.go","line":3,` + funcAdd + `}],"truncated":false}`},
		{name: "a literal parenthesis", params: `{"query":"Add(","path":"calc/add.go"}`,
			want: `{"matches":[{"path":"calc/add.go","line":3,` + funcAdd + `}],"truncated":false}`},
		{name: "CRLF line endings", params: `{"query":"needle"}`,
			want: `{"matches":[{"path":"crlf.txt","line":2,"text":"needle here"}],"truncated":false}`},
		{name: "no line without its end", params: `{"query":"three","path":"notes.txt"}`,
			want: `{"matches":[{"path":"notes.txt","line":3,"text":"three"}],"truncated":false}`},
		{name: "neither hidden directories nor symlinks out", params: `{"query":"TOPSECRET"}`, want: `{"matches":[],"truncated":false}`},
		{name: "a hidden directory asked for", params: `{"query":"TOPSECRET","path":".hidden"}`,
			want: `{"matches":[{"path":".hidden/secret.txt","line":1,"text":"hidden TOPSECRET"}],"truncated":false}`},
		{name: "binary files are skipped", params: `{"query":"PNG"}`, want: `{"matches":[],"truncated":false}`},
		{name: "capped", params: `{"query":"line 0","path":"big.txt","maxResults":2}`,
			want: `{"matches":[{"path":"big.txt","line":1,"text":"line 0001 ` + strings.Repeat("x", 89) + `"},{"path":"big.txt","line":2,"text":"line 0002 ` + strings.Repeat("x", 89) + `"}],"truncated":true}`},
		{name: "a binary file asked for", params: `{"query":"PNG","path":"bin/logo.png"}`, code: "ERROR BINARY_FILE"},
		{name: "a bad regular expression", params: `{"query":"(","regex":true}`, code: "ERROR INVALID_PARAMETERS"},
		{name: "no query", params: `{"path":"calc"}`, code: "ERROR INVALID_PARAMETERS"},
		{name: "regex that is not a bool", params: `{"query":"x","regex":"yes"}`, code: "ERROR INVALID_PARAMETERS"},
		{name: "maxResults -1", params: `{"query":"x","maxResults":-1}`, code: "ERROR INVALID_PARAMETERS"},
		{name: "dot dot", params: `{"query":"x","path":"a/../.."}`, code: "ERROR OUTSIDE_WORKSPACE"},
		{name: "a symlink out", params: `{"query":"TOPSECRET","path":"link-out"}`, code: "ERROR OUTSIDE_WORKSPACE"},
		{name: "a missing directory", params: `{"query":"x","path":"nope"}`, code: "ERROR NOT_FOUND"},
	}
	runToolCases(t, fx.dir, "search_text", tests)
}

// TestSearchTextLongLine: a long line is sent as a window around the match.
func TestSearchTextLongLine(t *testing.T) {
	fx := newToolFixture(t)
	got, code := runTool(t, fx.dir, "search_text", `{"query":"NEEDLE"}`)
	var res searchResult
	if err := json.Unmarshal([]byte(got), &res); err != nil || len(res.Matches) != 1 {
		t.Fatalf("%s %s", got, code)
	}
	text := res.Matches[0].Text
	want := "…" + strings.Repeat("é", matchTextMax/4) + "NEEDLE" + strings.Repeat("é", matchTextMax-matchTextMax/4-len("NEEDLE")) + "…"
	if res.Matches[0].Path != "long.txt" || text != want {
		t.Errorf("match %s:%d %q\nwant long.txt:1 %q", res.Matches[0].Path, res.Matches[0].Line, text, want)
	}
}

func TestSnippet(t *testing.T) {
	long := strings.Repeat("ab", 150) // 300 characters
	tests := []struct {
		line string
		at   int
		want string
	}{
		{"short", 0, "short"},
		{long, 0, long[:matchTextMax] + "…"},
		{long, 10, long[:matchTextMax] + "…"},
		{long, 290, "…" + long[100:]},
		{long, 150, "…" + long[100:]},
		{long, 120, "…" + long[70:270] + "…"},
	}
	for _, tt := range tests {
		if got := snippet(tt.line, tt.at); got != tt.want {
			t.Errorf("snippet(%d chars, %d) = %q, want %q", len(tt.line), tt.at, got, tt.want)
		}
	}
}

func TestToolboxRun(t *testing.T) {
	fx := newToolFixture(t)
	tests := []struct {
		name    string
		tb      *toolbox
		call    wireToolCall
		status  string
		code    string
		elapsed int64
	}{
		{name: "an unknown tool", tb: newToolbox(fx.dir), call: wireToolCall{CallID: "c1", Name: "rm_rf"},
			status: toolspec.StatusError, code: codeUnknownTool, elapsed: 7},
		{name: "a missing workspace", tb: newToolbox(filepath.Join(fx.dir, "nope")), call: wireToolCall{CallID: "c2", Name: "list_files"},
			status: toolspec.StatusError, code: codeNoWorkspace, elapsed: 7},
		{name: "a file as the workspace", tb: newToolbox(filepath.Join(fx.dir, "notes.txt")), call: wireToolCall{CallID: "c3", Name: "list_files"},
			status: toolspec.StatusError, code: codeNoWorkspace, elapsed: 7},
		{name: "a timeout", tb: withTimeout(newToolbox(fx.dir), -1), call: wireToolCall{CallID: "c4", Name: "list_files"},
			status: toolspec.StatusTimeout, code: toolspec.CodeTimeout, elapsed: 7},
		{name: "a relative workspace", tb: newToolbox("testdata"), call: wireToolCall{CallID: "c5", Name: "list_files", Parameters: json.RawMessage(`{"pattern":"choices.golden"}`)},
			status: toolspec.StatusSuccess, elapsed: 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.tb.now = fixedClock(7 * time.Millisecond)
			res := tt.tb.run(context.Background(), tt.call)
			code := ""
			if res.Error != nil {
				code = res.Error.Code
			}
			if res.CallID != tt.call.CallID || res.Status != tt.status || code != tt.code || res.ExecutionTime != tt.elapsed {
				t.Errorf("result %s, want %s %s %s after %dms", jsonOf(res), tt.call.CallID, tt.status, tt.code, tt.elapsed)
			}
		})
	}
}

// withTimeout sets tb's timeout.
func withTimeout(tb *toolbox, d time.Duration) *toolbox {
	tb.timeout = d
	return tb
}

// toolCase is one call of a tool: its parameters and the result it must
// give, or the error code.
type toolCase struct {
	name, params, want, code string
}

// runToolCases runs each case against tool in dir.
func runToolCases(t *testing.T, dir, tool string, tests []toolCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, code := runTool(t, dir, tool, tt.params)
			if got != tt.want || code != tt.code {
				t.Errorf("got %s %s\nwant %s %s", got, code, tt.want, tt.code)
			}
		})
	}
}
