package server

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/apierr"
)

// docsDir is the repository's docs/ directory, from this package's.
var docsDir = filepath.Join("..", "docs")

// readDoc returns docs/name.
func readDoc(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(docsDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// docSection returns the text of the "## " section of doc whose heading
// starts with heading, up to the next "## " heading.
func docSection(t *testing.T, doc, heading string) string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "\n## "+heading)
	if !ok {
		t.Fatalf("no section %q", "## "+heading)
	}
	section, _, _ := strings.Cut(rest, "\n## ")
	return section
}

// tableRows returns the cells of the rows of the Markdown tables in text
// whose first cell is one code span, without the backticks; header and
// separator rows have none.
func tableRows(text string) [][]string {
	var rows [][]string
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		first := cells[0]
		if strings.Count(first, "`") != 2 || !strings.HasSuffix(first, "`") {
			continue
		}
		cells[0] = strings.Trim(first, "`")
		rows = append(rows, cells)
	}
	return rows
}

// registeredRoutes lists the routes of s as docs/api.md names them:
// "METHOD /path" with parameters as {name}, and "ANY /path" for a path
// every method reaches (echo's Any), sorted.
func registeredRoutes(s *Server) []string {
	byPath := map[string][]string{}
	for _, r := range s.echo.Routes() {
		byPath[r.Path] = append(byPath[r.Path], r.Method)
	}
	var out []string
	for p, ms := range byPath {
		if containsAll(ms, anyMethods) {
			out = append(out, "ANY "+showPath(p))
			continue
		}
		for _, m := range slices.Compact(slices.Sorted(slices.Values(ms))) {
			out = append(out, m+" "+showPath(p))
		}
	}
	slices.Sort(out)
	return out
}

// TestAPIDocListsEveryRoute: the route table of docs/api.md names every
// route the server registers with every feature on, and no route it does
// not register, so a route added without its documentation (or a page
// that documents a route that is gone) fails here.
func TestAPIDocListsEveryRoute(t *testing.T) {
	h := http.NotFoundHandler()
	s := New(Config{Contexts: anyContexts{}, Handoffs: anyHandoffs{}, Schedules: anySchedules{}, Keys: anyKeys{},
		MCP: h, Metrics: h, UI: h, OpenAI: anyOpenAI{h}, Meter: anyMeter{}})
	registered := registeredRoutes(s)
	if len(registered) < 30 {
		t.Fatalf("only %d routes registered: %v", len(registered), registered)
	}
	doc := readDoc(t, "api.md")
	var documented []string
	for _, row := range tableRows(docSection(t, doc, "Routes")) {
		documented = append(documented, row[0])
	}
	for _, r := range registered {
		if !slices.Contains(documented, r) {
			t.Errorf("route %s is registered but not in the route table of docs/api.md", r)
		}
	}
	for _, d := range documented {
		if !slices.Contains(registered, d) {
			t.Errorf("docs/api.md lists %s, which the server does not register", d)
		}
	}
	slices.Sort(documented)
	if dup := len(documented) - len(slices.Compact(slices.Clone(documented))); dup > 0 {
		t.Errorf("docs/api.md lists %d routes twice: %v", dup, documented)
	}
}

// codeConstants returns the error codes the package in dir defines: the
// string constants whose names start with "Code", by value.
func codeConstants(t *testing.T, dir string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]string{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !strings.HasPrefix(name.Name, "Code") || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					v, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					codes[v] = name.Name
				}
			}
		}
	}
	return codes
}

// TestProtocolDocListsEveryErrorCode: the table of docs/protocol.md §4 has
// a row for every error code the apierr package defines, with the status and
// recoverability the table of codes gives it, and no row for a code that
// does not exist.
func TestProtocolDocListsEveryErrorCode(t *testing.T) {
	codes := codeConstants(t, filepath.Join("..", "apierr"))
	if len(codes) < 40 {
		t.Fatalf("only %d codes found in the apierr package: %v", len(codes), codes)
	}
	rows := tableRows(docSection(t, readDoc(t, "protocol.md"), "4. Errors"))
	documented := map[string]bool{}
	for _, row := range rows {
		code := row[0]
		if documented[code] {
			t.Errorf("docs/protocol.md §4 lists %s twice", code)
		}
		documented[code] = true
		if _, ok := codes[code]; !ok {
			t.Errorf("docs/protocol.md §4 lists %s, which the apierr package does not define", code)
			continue
		}
		if len(row) < 4 {
			t.Errorf("docs/protocol.md §4: the row of %s has %d cells, want code, status, recoverable, when", code, len(row))
			continue
		}
		e := apierr.New(code, "")
		wantStatus, wantRecoverable := strconv.Itoa(apierr.StatusOf(code)), map[bool]string{true: "yes", false: "no"}[e.Recoverable]
		if apierr.StatusOf(code) == 0 { // CANCELED: nothing is sent
			wantStatus, wantRecoverable = "—", "—"
		}
		if row[1] != wantStatus || row[2] != wantRecoverable {
			t.Errorf("docs/protocol.md §4: %s is %s, recoverable %s; the code says %s, recoverable %s",
				code, row[1], row[2], wantStatus, wantRecoverable)
		}
	}
	for code, name := range codes {
		if !documented[code] {
			t.Errorf("apierr.%s (%s) is not in the table of docs/protocol.md §4", name, code)
		}
	}
}

// TestProtocolDocListsToolCodes: every code a tool call's result can carry
// (package toolspec's) is named in docs/protocol.md §10.
func TestProtocolDocListsToolCodes(t *testing.T) {
	codes := codeConstants(t, filepath.Join("..", "agent", "toolspec"))
	if len(codes) < 8 {
		t.Fatalf("only %d codes found in the toolspec package: %v", len(codes), codes)
	}
	section := docSection(t, readDoc(t, "protocol.md"), "10. Tool calls")
	for code, name := range codes {
		if !strings.Contains(section, "`"+code+"`") {
			t.Errorf("toolspec.%s (%s) is not named in docs/protocol.md §10", name, code)
		}
	}
}

// docCitation is a citation of docs/protocol.md by section ("§4", "§3
// and §4"), in a comment that may break the line before the section.
var docCitation = regexp.MustCompile(`docs/protocol\.md\s*(?://\s*)?§(\d+)(?: and §(\d+))?`)

// TestProtocolDocSectionsCited: every section of docs/protocol.md the code
// (Go and the playground's JavaScript) cites as "docs/protocol.md §N"
// exists, and nothing cites the top-level protocol file the code once
// named, which the repository does not have.
func TestProtocolDocSectionsCited(t *testing.T) {
	const missingProtocol = "PROTOCOL" + ".md" // spelled apart, so that this file does not cite it
	doc := readDoc(t, "protocol.md")
	var cited int
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != ".." && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !(strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".js")) {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(data), missingProtocol) {
			t.Errorf("%s cites %s, which does not exist: cite docs/protocol.md §N", path, missingProtocol)
		}
		for _, m := range docCitation.FindAllStringSubmatch(string(data), -1) {
			for _, n := range m[1:] {
				if n == "" {
					continue
				}
				cited++
				if !strings.Contains(doc, "\n## "+n+". ") {
					t.Errorf("%s cites docs/protocol.md §%s, which has no such section", path, n)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if cited < 40 {
		t.Fatalf("%d citations of docs/protocol.md §N found, want the code's 40 or more", cited)
	}
}
