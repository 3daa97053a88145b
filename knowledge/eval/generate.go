package eval

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/agentgw/agentgw/knowledge/chunk"
)

// PerPackage bounds the generated questions of one package, so that the
// big packages (net/http) do not make the whole set.
const PerPackage = 8

// minContentWords is the fewest words of a generated question that are
// not stop words: fewer, and the doc said little besides the name ("Close
// closes the file" leaves "closes the file").
const minContentWords = 3

// goDecl is a declaration of the go corpus.
type goDecl struct {
	pkg, file, name string // file: the path in the corpus; name: Name, Recv.Name or "package"
	line            int    // the line of its name
	doc             string // its doc comment's text
	exported        bool
}

// goIndex finds the declarations of the go corpus by package and name.
type goIndex map[string]map[string][]goDecl

// declarations parses the go corpus's files and lists their top-level
// declarations. A file whose package clause does not name its directory
// (a generator under //go:build ignore) declares nothing.
func declarations(files []File) (goIndex, error) {
	idx := goIndex{}
	for _, f := range files {
		if !strings.HasSuffix(f.Name, ".go") {
			continue
		}
		ds, err := parseDecls(f)
		if err != nil {
			return nil, err
		}
		for _, d := range ds {
			if idx[d.pkg] == nil {
				idx[d.pkg] = map[string][]goDecl{}
			}
			idx[d.pkg][d.name] = append(idx[d.pkg][d.name], d)
		}
	}
	return idx, nil
}

// parseDecls lists the top-level declarations of a Go file, in order.
func parseDecls(f File) ([]goDecl, error) {
	fset := token.NewFileSet()
	af, err := parser.ParseFile(fset, f.Name, f.src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("eval: parsing %s: %w", f.Name, err)
	}
	pkg := path.Dir(f.Name)
	if af.Name.Name != path.Base(pkg) {
		return nil, nil
	}
	line := func(p token.Pos) int { return fset.Position(p).Line }
	out := []goDecl{{pkg: pkg, file: f.Name, name: "package", line: line(af.Package)}}
	add := func(name string, pos token.Pos, exported bool, docs ...*ast.CommentGroup) {
		d := goDecl{pkg: pkg, file: f.Name, name: name, line: line(pos), exported: exported}
		for _, g := range docs {
			if g != nil {
				d.doc = g.Text()
				break
			}
		}
		out = append(out, d)
	}
	for _, d := range af.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			name, exported := d.Name.Name, d.Name.IsExported()
			if d.Recv != nil && len(d.Recv.List) > 0 {
				r := chunk.ReceiverName(d.Recv.List[0].Type)
				name, exported = r+"."+name, exported && ast.IsExported(r)
			}
			add(name, d.Name.Pos(), exported, d.Doc)
		case *ast.GenDecl:
			// A spec's own doc; a lone spec's doc is the declaration's.
			var declDoc *ast.CommentGroup
			if !d.Lparen.IsValid() {
				declDoc = d.Doc
			}
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					add(sp.Name.Name, sp.Name.Pos(), sp.Name.IsExported(), sp.Doc, declDoc)
				case *ast.ValueSpec:
					for _, n := range sp.Names {
						// A doc shared by several names describes none
						// of them alone.
						if len(sp.Names) > 1 {
							add(n.Name, n.Pos(), n.IsExported())
							continue
						}
						add(n.Name, n.Pos(), n.IsExported(), sp.Doc, declDoc)
					}
				}
			}
		}
	}
	return out, nil
}

// resolve returns the sites declaring a Go answer.
func (idx goIndex) resolve(a Answer) []site {
	var out []site
	for _, d := range idx[a.Pkg][a.Name] {
		if a.File == "" || path.Base(d.file) == a.File {
			out = append(out, site{d.file, d.line})
		}
	}
	return out
}

// Generate makes the generated question set from the go corpus's files:
// for each exported declaration with a doc comment (functions, methods of
// exported types, types, and consts and vars declared alone or with a doc
// of their own), the question is the doc's first sentence (go/doc's
// Synopsis) with the declared name taken out (see Question), and the
// answer is the declaration (all of its declarations in the package, when
// build tags give it several). It drops questions that say too little
// (fewer than minContentWords words that are not stop words, or a
// sentence saying "Deprecated" or "should not be used", or one that only
// names the interface a method implements), and questions whose text is that of
// another declaration's (ambiguous). Of what is left it keeps, per
// package, the PerPackage questions whose ids hash lowest (SHA-256), so
// the choice is deterministic and spread. The output is in id order and
// depends only on the files.
func Generate(files []File) ([]Question, error) {
	idx, err := declarations(files)
	if err != nil {
		return nil, err
	}
	var p doc.Package
	type cand struct {
		Question
		hash string
	}
	byText := map[string][]cand{}
	for _, pkg := range sortedKeys(idx) {
		for _, name := range sortedKeys(idx[pkg]) {
			ds := idx[pkg][name]
			i := slices.IndexFunc(ds, func(d goDecl) bool { return d.doc != "" })
			if name == "package" || !ds[0].exported || i < 0 {
				continue
			}
			syn := p.Synopsis(ds[i].doc)
			if strings.Contains(syn, "Deprecated") || strings.Contains(syn, "should not be used") {
				continue
			}
			q := question1(syn, name)
			if contentWords(q) < minContentWords || onlyImplements.MatchString(q) {
				continue
			}
			id := "gen/" + pkg + "." + name
			sum := sha256.Sum256([]byte(id))
			key := strings.ToLower(q)
			byText[key] = append(byText[key], cand{Question{ID: id, Q: q, Answers: []Answer{{Pkg: pkg, Name: name}}}, fmt.Sprintf("%x", sum)})
		}
	}
	perPkg := map[string][]cand{}
	for _, cs := range byText {
		if len(cs) != 1 {
			continue // the same question for two declarations
		}
		pkg := cs[0].Answers[0].Pkg
		perPkg[pkg] = append(perPkg[pkg], cs[0])
	}
	var out []Question
	for _, cs := range perPkg {
		slices.SortFunc(cs, func(a, b cand) int { return cmp.Compare(a.hash, b.hash) })
		for _, c := range cs[:min(len(cs), PerPackage)] {
			out = append(out, c.Question)
		}
	}
	slices.SortFunc(out, func(a, b Question) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// question1 makes a question of a doc's first sentence: the declared
// name taken out wherever it stands as a word, with what qualifies it
// (json.Marshal, Server.Shutdown, io.Reader when the name is Reader) and
// its plural or possessive (Readers, Reader's), case-sensitively (the
// verb "closes" stays when Close goes); doc links lose their brackets
// ([Reader] is Reader), a leading article and the final period or colon
// go, and spaces are collapsed.
func question1(sentence, name string) string {
	simple := name[strings.LastIndexByte(name, '.')+1:]
	re := regexp.MustCompile(`(?:\b[A-Za-z_][A-Za-z0-9_]*\.)*\b` + regexp.QuoteMeta(simple) + `(?:'s|s)?\b`)
	q := re.ReplaceAllString(docLink.ReplaceAllString(sentence, "$1"), " ")
	q = strings.Join(strings.Fields(q), " ")
	for _, a := range []string{"A ", "An ", "The "} {
		q = strings.TrimPrefix(q, a)
	}
	q = strings.TrimRight(q, " .:")
	q = strings.TrimLeft(q, " ,.;:")
	return q
}

// onlyImplements is a question that only names the interface its method
// implements ("implements encoding.TextUnmarshaler"): every method of
// that interface answers it as well.
var onlyImplements = regexp.MustCompile(`^implements (the )?[A-Za-z0-9_.]+( interface)?$`)

// docLink is a doc comment's link to a declaration, [Name] or
// [pkg.Name]: the question keeps the name without the brackets.
var docLink = regexp.MustCompile(`\[(\*?[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\]`)

// contentWords counts the words of s (runs of letters) that are not stop
// words.
func contentWords(s string) int {
	n := 0
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len(w) > 1 && !stopwords[w] {
			n++
		}
	}
	return n
}

// stopwords are English words that carry no topic.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about after all also an and any are as at be because been before
		being but by can could did do does doing done each else for from had has have how if in into is it
		its may might more most must no not of on once one only or other our out over own same should so
		some such than that the their them then there these they this those through to too under until up
		very was we were what when where which while who whom why will with would you your returns return
		reports report calls call`) {
		m[w] = true
	}
	return m
}()

// MarshalQuestions formats questions as the set files hold them: a JSON
// array, a question a line.
func MarshalQuestions(qs []Question) ([]byte, error) {
	var b strings.Builder
	b.WriteString("[\n")
	for i, q := range qs {
		var line bytes.Buffer
		enc := json.NewEncoder(&line)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(q); err != nil {
			return nil, fmt.Errorf("eval: encoding %s: %w", q.ID, err)
		}
		b.Write(bytes.TrimSuffix(line.Bytes(), []byte("\n")))
		if i < len(qs)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]\n")
	return []byte(b.String()), nil
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
