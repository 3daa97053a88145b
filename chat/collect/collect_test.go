package collect

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/contextvars"
)

func TestCollectEditor(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "main.go")
	content := "package main\n\n// héllo wörld\nfunc main() {}\n"
	writeFiles(t, dir, map[string]string{"main.go": content})
	tests := []struct {
		name string
		sel  *contextvars.Selection
		o    contextvars.Options
		want *contextvars.Editor
	}{
		{"no selection", nil, contextvars.Options{}, &contextvars.Editor{CursorOffset: 0, StartLine: 1, StartColumn: 1, EndLine: 1, EndColumn: 1,
			SelectedRanges: []contextvars.Range{{StartLine: 1, StartColumn: 1, EndLine: 1, EndColumn: 1}}}},
		{"multibyte columns", &contextvars.Selection{StartLine: 3, StartColumn: 4, EndLine: 3, EndColumn: 14}, contextvars.Options{ContentBeforeSelectionLines: ptr(1), ContentAfterSelectionLines: ptr(0)},
			&contextvars.Editor{CursorOffset: 27, StartLine: 3, StartColumn: 4, EndLine: 3, EndColumn: 14,
				SelectedRanges: []contextvars.Range{{Content: "héllo wörl", StartLine: 3, StartColumn: 4, EndLine: 3, EndColumn: 14,
					ContentBeforeSelection: ptr("\n// "), ContentAfterSelection: ptr("d")}}}},
		{"whole lines", &contextvars.Selection{StartLine: 3, StartColumn: 1, EndLine: 4, EndColumn: 0}, contextvars.Options{ContentAfterSelectionLines: ptr(5)},
			&contextvars.Editor{CursorOffset: 43, StartLine: 3, StartColumn: 1, EndLine: 4, EndColumn: 15,
				SelectedRanges: []contextvars.Range{{Content: "// héllo wörld\nfunc main() {}", StartLine: 3, StartColumn: 1, EndLine: 4,
					EndColumn: 15, ContentAfterSelection: ptr("\n")}}}},
		{"columns beyond the line clamp", &contextvars.Selection{StartLine: 1, StartColumn: 50, EndLine: 1, EndColumn: 60}, contextvars.Options{ContentBeforeSelectionLines: ptr(0)},
			&contextvars.Editor{CursorOffset: 12, StartLine: 1, StartColumn: 13, EndLine: 1, EndColumn: 13,
				SelectedRanges: []contextvars.Range{{StartLine: 1, StartColumn: 13, EndLine: 1, EndColumn: 13,
					ContentBeforeSelection: ptr("package main")}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Editor(path, tt.sel, tt.o)
			if err != nil {
				t.Fatal(err)
			}
			tt.want.FilePath, tt.want.Language, tt.want.Content = path, "go", content
			// the whole file is visible; its fifth line is the empty one after the last newline
			tt.want.VisibleRange = &contextvars.Span{Content: content, StartLine: 1, StartColumn: 1, EndLine: 5, EndColumn: 1}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestCollectEditorVisibleRange(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	writeFiles(t, dir, map[string]string{"a.txt": b.String()})
	for _, tt := range []struct{ line, first, last int }{{50, 30, 69}, {1, 1, 40}, {100, 62, 101}, {101, 62, 101}} {
		e, err := Editor(filepath.Join(dir, "a.txt"), &contextvars.Selection{StartLine: tt.line, StartColumn: 1, EndLine: tt.line, EndColumn: 1}, contextvars.Options{})
		if err != nil {
			t.Fatal(err)
		}
		v := e.VisibleRange
		if v.StartLine != tt.first || v.EndLine != tt.last || !strings.HasPrefix(v.Content, fmt.Sprintf("line %d\n", tt.first)) ||
			strings.Count(v.Content, "\n") != tt.last-tt.first {
			t.Errorf("selection on line %d: visible %d-%d %q", tt.line, v.StartLine, v.EndLine, v.Content[:20])
		}
	}
}

func TestCollectEditorErrors(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.py": "x = 1\n"})
	if _, err := Editor(filepath.Join(dir, "missing.py"), nil, contextvars.Options{}); err == nil || !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("missing file: %v", err)
	}
	_, err := Editor(filepath.Join(dir, "a.py"), &contextvars.Selection{StartLine: 3, StartColumn: 1, EndLine: 3, EndColumn: 1}, contextvars.Options{})
	if err == nil || !strings.Contains(err.Error(), "selection 3:1 is outside") {
		t.Errorf("selection beyond the file: %v", err)
	}
	// relative paths are made absolute
	t.Chdir(dir)
	e, err := Editor("a.py", nil, contextvars.Options{})
	if err != nil || e.FilePath != filepath.Join(dir, "a.py") || e.Language != "python" {
		t.Errorf("relative path: %+v, %v", e, err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

func TestLanguageOf(t *testing.T) {
	for path, want := range map[string]string{
		"a.go": "go", "b.PY": "python", "c.js": "javascript", "d.ts": "typescript", "e.tsx": "typescriptreact",
		"f.java": "java", "g.kt": "kotlin", "h.rs": "rust", "i.c": "c", "j.hpp": "cpp", "k.cs": "csharp", "l.rb": "ruby",
		"m.php": "php", "n.sh": "shell", "o.yml": "yaml", "p.json": "json", "q.md": "markdown", "r.sql": "sql",
		"s.html": "html", "t.css": "css", "Dockerfile": "dockerfile", "Makefile": "makefile", "x.unknown": "plaintext",
		"noext": "plaintext", "/x/y/CMakeLists.txt": "cmake", "z.vue": "vue", "w.toml": "toml",
	} {
		if got := languageOf(path); got != want {
			t.Errorf("languageOf(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestCollectPackageFiles(t *testing.T) {
	files := map[string]string{
		"go.mod": "module x\n", "package.json": "{}", "README.md": "not a manifest",
		"a/pom.xml": "<project/>", "a/b/Cargo.toml": "[package]", "svc/App.csproj": "<Project/>",
		"z/CMakeLists.txt": "project(x)", "z/deep/er/pyproject.toml": "[tool]",
		"node_modules/x/package.json": "{}", ".hidden/go.mod": "module h", "vendor/go.mod": "module v",
		"build/package.json": "{}", "dist/package.json": "{}", "target/pom.xml": "", ".venv/setup.py": "",
		"big/requirements.txt": strings.Repeat("x", maxPackageFileSize+1),
	}
	root, _ := newRepo(t, files)
	all := []string{"go.mod", "package.json", "a/pom.xml", "svc/App.csproj", "z/CMakeLists.txt", "a/b/Cargo.toml", "z/deep/er/pyproject.toml"}
	tests := []struct {
		dir   string
		limit int
		want  []string
	}{
		{root, 0, all},
		{filepath.Join(root, "a", "b"), 3, all[:3]}, // from a subdirectory: the repository root
		{root, 4, all[:4]},
		{filepath.Join(root, "z"), 1, all[:1]},
	}
	for _, tt := range tests {
		got, err := PackageFiles(tt.dir, tt.limit)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, f := range got {
			paths = append(paths, f.Filepath)
			if f.Content != files[f.Filepath] {
				t.Errorf("%s: content %q", f.Filepath, f.Content)
			}
		}
		if !reflect.DeepEqual(paths, tt.want) {
			t.Errorf("PackageFiles(%s, %d) = %q\nwant %q", tt.dir, tt.limit, paths, tt.want)
		}
	}
}

func TestCollectPackageFilesOutsideARepository(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"sub/go.mod": "module s", "Gemfile": "gem"})
	got, err := PackageFiles(filepath.Join(dir, "sub"), 5)
	if want := []contextvars.PackageFile{{Filepath: "go.mod", Content: "module s"}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, %v; want %+v", got, err, want)
	}
	got, err = PackageFiles(filepath.Join(dir, "empty-does-not-exist"), 5)
	if err == nil {
		t.Errorf("a missing directory: %+v", got)
	}
	empty := t.TempDir()
	got, err = PackageFiles(empty, 5)
	if err != nil || got == nil || len(got) != 0 {
		t.Errorf("an empty directory: %#v, %v", got, err)
	}
}

func ptr[T any](v T) *T { return &v }
