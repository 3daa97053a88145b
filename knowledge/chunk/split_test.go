package chunk

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/internal/golden"
)

// TestGolden splits every file under testdata (but the .json ones) with
// the default options and compares the chunks with the file's .json
// beside it (go test -update rewrites them). An input named x.go.in is
// split as x.go.
func TestGolden(t *testing.T) {
	var files []string
	err := filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "fuzz" {
			return filepath.SkipDir // the fuzzers' corpus
		}
		if !d.IsDir() && !strings.HasSuffix(p, ".json") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 {
		t.Fatalf("found %d input files under testdata", len(files))
	}
	for _, p := range files {
		t.Run(filepath.ToSlash(p), func(t *testing.T) {
			content, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			// Go inputs end in .in, which CI's gofmt does not read.
			base := strings.TrimSuffix(p, ".in")
			name := filepath.ToSlash(strings.TrimPrefix(base, "testdata"+string(filepath.Separator)))
			chunks, err := Split(name, "testdata", content, Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkChunks(t, content, chunks, Options{}.withDefaults(), languageOf(name) != langOther)
			golden.Check(t, base+".json", encode(t, chunks))
		})
	}
}

// encode renders chunks as the golden files hold them.
func encode(t *testing.T, chunks []Chunk) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if chunks == nil {
		chunks = []Chunk{}
	}
	if err := enc.Encode(chunks); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// checkChunks checks what holds for any file: chunks within the file and
// the bounds, in order, their text the file's lines; structured chunks
// (not windows) do not overlap but for the pieces of one long line and
// cover every non-blank line.
func checkChunks(t testing.TB, content []byte, chunks []Chunk, o Options, structured bool) {
	t.Helper()
	f := newFile(content, o)
	n := len(f.lines)
	covered := make([]bool, n+1)
	prevStart, prevEnd := 0, 0
	for i, c := range chunks {
		if c.StartLine < 1 || c.EndLine < c.StartLine || c.EndLine > n {
			t.Fatalf("chunk %d: lines %d-%d outside 1-%d", i, c.StartLine, c.EndLine, n)
		}
		if c.StartLine < prevStart {
			t.Fatalf("chunk %d starts at %d, before chunk %d at %d", i, c.StartLine, i-1, prevStart)
		}
		if c.EndLine-c.StartLine+1 > o.MaxLines {
			t.Fatalf("chunk %d: %d lines, over %d", i, c.EndLine-c.StartLine+1, o.MaxLines)
		}
		if len(c.Text) > o.MaxBytes {
			t.Fatalf("chunk %d: %d bytes, over %d", i, len(c.Text), o.MaxBytes)
		}
		want := strings.Join(f.lines[c.StartLine-1:c.EndLine], "\n")
		if c.StartLine == c.EndLine && len(want) > o.MaxBytes {
			if !strings.Contains(want, c.Text) || c.Text == "" {
				t.Fatalf("chunk %d: a piece %q not in line %d", i, c.Text, c.StartLine)
			}
		} else if c.Text != want {
			t.Fatalf("chunk %d: text is not lines %d-%d:\n%q\nwant\n%q", i, c.StartLine, c.EndLine, c.Text, want)
		}
		if strings.TrimSpace(f.lines[c.StartLine-1]) == "" || strings.TrimSpace(f.lines[c.EndLine-1]) == "" {
			t.Fatalf("chunk %d (%d-%d) starts or ends with a blank line", i, c.StartLine, c.EndLine)
		}
		if structured && c.StartLine <= prevEnd && !(c.StartLine == c.EndLine && c.StartLine == prevEnd && prevStart == prevEnd) {
			t.Fatalf("chunk %d (%d-%d) overlaps the one before (%d-%d)", i, c.StartLine, c.EndLine, prevStart, prevEnd)
		}
		for l := c.StartLine; l <= c.EndLine; l++ {
			covered[l] = true
		}
		prevStart, prevEnd = c.StartLine, c.EndLine
	}
	for l := 1; l <= n; l++ {
		if !covered[l] && strings.TrimSpace(f.lines[l-1]) != "" {
			t.Fatalf("line %d (%q) is in no chunk", l, f.lines[l-1])
		}
	}
}

func TestSplitErrors(t *testing.T) {
	for _, tt := range []struct {
		name    string
		content string
		opts    Options
		err     error
		chunks  int
	}{
		{"empty", "", Options{}, nil, 0},
		{"only blank lines", "\n\n  \n", Options{}, nil, 0},
		{"NUL byte", "package x\x00\n", Options{}, ErrBinary, 0},
		{"invalid UTF-8", "package x // \xff\n", Options{}, ErrBinary, 0},
		{"truncated at a line", "line one\nline two\nline three\n", Options{MaxFileBytes: 12}, ErrTruncated, 1},
		{"truncated in a character", "ééééé", Options{MaxFileBytes: 5}, ErrTruncated, 1},
		{"NUL past the cap is not read", "text\n\x00", Options{MaxFileBytes: 5}, ErrTruncated, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			chunks, err := Split("f.txt", "src", []byte(tt.content), tt.opts)
			if !errors.Is(err, tt.err) {
				t.Fatalf("error %v, want %v", err, tt.err)
			}
			if err != nil && !strings.Contains(err.Error(), "f.txt") {
				t.Errorf("error %q does not name the file", err)
			}
			if len(chunks) != tt.chunks {
				t.Fatalf("%d chunks, want %d: %+v", len(chunks), tt.chunks, chunks)
			}
		})
	}
	chunks, _ := Split("f.txt", "src", []byte("line one\nline two\nline three\n"), Options{MaxFileBytes: 12})
	if chunks[0].Text != "line one" {
		t.Errorf("truncated file kept %q, want its first whole line", chunks[0].Text)
	}
	chunks, _ = Split("f.txt", "src", []byte("ééééé"), Options{MaxFileBytes: 5})
	if chunks[0].Text != "éé" {
		t.Errorf("truncated file kept %q, want the whole characters", chunks[0].Text)
	}
}

func TestSplitMetadata(t *testing.T) {
	for _, tt := range []struct {
		name, typ, symbol string
	}{
		{"pkg/a.go", TypeCode, "package a"},
		{"docs/指南/开发指南.md", TypeDoc, "Title"},
		{"README", TypeDoc, ""},
		{"notes.TXT", TypeDoc, ""},
		{"Makefile", TypeCode, ""},
		{"x.rst", TypeDoc, ""},
	} {
		content := "package a\n"
		if strings.HasSuffix(tt.name, ".md") {
			content = "# Title\n"
		}
		chunks, err := Split(tt.name, "github.com/x/y@main", []byte(content), Options{})
		if err != nil || len(chunks) != 1 {
			t.Fatalf("%s: %v, %+v", tt.name, err, chunks)
		}
		want := Chunk{FileName: tt.name, Source: "github.com/x/y@main", SourceType: tt.typ, StartLine: 1, EndLine: 1, Symbol: tt.symbol, Text: strings.TrimSuffix(content, "\n")}
		if chunks[0] != want {
			t.Errorf("%s: %+v, want %+v", tt.name, chunks[0], want)
		}
	}
}

func TestSplitBounds(t *testing.T) {
	long := strings.Repeat("x", 50) + "é" + strings.Repeat("y", 50)
	for _, tt := range []struct {
		name    string
		file    string
		content string
		opts    Options
		want    []Chunk
	}{
		{
			name:    "windows overlap",
			file:    "a.txt",
			content: "1\n2\n3\n4\n5\n6\n7\n",
			opts:    Options{WindowLines: 3, Overlap: 1},
			want: []Chunk{
				{StartLine: 1, EndLine: 3, Text: "1\n2\n3"},
				{StartLine: 3, EndLine: 5, Text: "3\n4\n5"},
				{StartLine: 5, EndLine: 7, Text: "5\n6\n7"},
			},
		},
		{
			name:    "no overlap",
			file:    "a.txt",
			content: "1\n2\n3\n4\n",
			opts:    Options{WindowLines: 2, Overlap: -1},
			want: []Chunk{
				{StartLine: 1, EndLine: 2, Text: "1\n2"},
				{StartLine: 3, EndLine: 4, Text: "3\n4"},
			},
		},
		{
			name:    "a long line cut at characters",
			file:    "a.txt",
			content: "short\n" + long + "\n",
			opts:    Options{MaxBytes: 40},
			want: []Chunk{
				{StartLine: 1, EndLine: 1, Text: "short"},
				{StartLine: 2, EndLine: 2, Text: long[:40]},
				{StartLine: 2, EndLine: 2, Text: long[40:80]},
				{StartLine: 2, EndLine: 2, Text: long[80:]},
			},
		},
		{
			name:    "a declaration over MaxLines keeps its symbol",
			file:    "a.go",
			content: "package a\n\nfunc F() {\n\ta()\n\tb()\n\n\tc()\n\td()\n}\n",
			opts:    Options{MaxLines: 4},
			want: []Chunk{
				{StartLine: 1, EndLine: 1, Symbol: "package a", Text: "package a"},
				{StartLine: 3, EndLine: 5, Symbol: "F", Text: "func F() {\n\ta()\n\tb()"},
				{StartLine: 7, EndLine: 9, Symbol: "F", Text: "\tc()\n\td()\n}"},
			},
		},
		{
			name:    "a declaration over MaxBytes",
			file:    "a.go",
			content: "package a\n\nfunc F() {\n\ta()\n\tb()\n}\n",
			opts:    Options{MaxBytes: 16},
			want: []Chunk{
				{StartLine: 1, EndLine: 1, Symbol: "package a", Text: "package a"},
				{StartLine: 3, EndLine: 4, Symbol: "F", Text: "func F() {\n\ta()"},
				{StartLine: 5, EndLine: 6, Symbol: "F", Text: "\tb()\n}"},
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Split(tt.file, "", []byte(tt.content), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				got[i].FileName, got[i].SourceType = "", ""
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d chunks, want %d:\n%+v", len(got), len(tt.want), got)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("chunk %d: %+v, want %+v", i, got[i], tt.want[i])
				}
			}
			checkChunks(t, []byte(tt.content), got, tt.opts.withDefaults(), tt.file != "a.txt")
		})
	}
}

// TestSplitDeterministic splits the same files twice.
func TestSplitDeterministic(t *testing.T) {
	for _, p := range []string{"testdata/go/basic.go.in", "testdata/python/basic.py", "testdata/js/types.ts", "testdata/java/Basic.java", "testdata/markdown/readme.md"} {
		content, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(p, ".in")
		a, _ := Split(name, "", content, Options{})
		b, _ := Split(name, "", content, Options{})
		if !bytes.Equal(encode(t, a), encode(t, b)) {
			t.Errorf("%s: two splits differ", p)
		}
	}
}

// TestFallback checks that a file its language's splitter cannot follow
// is cut in windows, symbols and all gone.
func TestFallback(t *testing.T) {
	for _, p := range []string{"testdata/go/broken.go.in", "testdata/python/unclosed.py", "testdata/js/unclosed.js", "testdata/java/Broken.java"} {
		content, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		chunks, err := Split(strings.TrimSuffix(p, ".in"), "", content, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(chunks) != 1 || chunks[0].Symbol != "" || chunks[0].StartLine != 1 {
			t.Errorf("%s: %+v, want one window", p, chunks)
		}
	}
}
