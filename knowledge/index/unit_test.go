package index

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"parseHTTPRequest", []string{"parse", "http", "request", "parsehttprequest"}},
		{"HTTPServer.ListenAndServe()", []string{"http", "server", "httpserver", "listen", "and", "serve", "listenandserve"}},
		{"parse_http_request", []string{"parse", "http", "request", "parse_http_request"}},
		{"x := y + z2", []string{"z2"}},
		{"utf8 Base64Encode", []string{"utf8", "base64", "encode", "base64encode"}},
		{"Die Straße, naïve café!", []string{"die", "straße", "naïve", "café"}},
		{"ÜberGroß", []string{"über", "groß", "übergroß"}},
		{"", nil},
		{"-- ; ' \" */", nil},
		{strings.Repeat("a", 65) + " ok", []string{"ok"}},
	} {
		if got := Words(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Words(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestGlobs(t *testing.T) {
	for _, tc := range []struct {
		glob, name string
		want       bool
	}{
		{"*.md", "README.md", true},
		{"*.md", "docs/a/b.md", true},
		{"*.md", "docs/a/b.go", false},
		{"docs/*.md", "docs/a.md", true},
		{"docs/*.md", "docs/a/b.md", false},
		{"docs/**/*.md", "docs/a.md", true},
		{"docs/**/*.md", "docs/a/b/c.md", true},
		{"docs/**", "docs/a/b/c.md", true},
		{"docs/**", "src/docs/a.md", false},
		{"**/store/*.go", "store/sqlite.go", true},
		{"**/store/*.go", "x/y/store/sqlite.go", true},
		{"/store/*.go", "store/sqlite.go", true},
		{"store/sqlite.go", "store/sqlite.go", true},
		{"**/**/**/a", "a", true},
	} {
		g, err := compileGlob(tc.glob)
		if err != nil {
			t.Fatalf("compileGlob(%q): %v", tc.glob, err)
		}
		if got := g.match(tc.name); got != tc.want {
			t.Errorf("%q matches %q: %v, want %v", tc.glob, tc.name, got, tc.want)
		}
	}
	for _, bad := range []string{"", "[a", "docs/[/x"} {
		if _, err := compileGlob(bad); err == nil {
			t.Errorf("compileGlob(%q) succeeded", bad)
		}
	}
}

func TestEncodings(t *testing.T) {
	ps := []posting{
		{ord: 0, dl: 10, stype: stypeCode, tf: [numFields]int32{fieldBody: 1}},
		{ord: 3, dl: 100000, stype: stypeDoc, tf: [numFields]int32{fieldSymbol: 1, fieldDoc: 200, fieldPath: 2}},
		{ord: 70000, dl: 1, stype: stypeCode, tf: [numFields]int32{1, 2, 3, 4, 5}},
	}
	var b []byte
	for _, p := range ps {
		b = appendPosting(b, p)
	}
	var got []posting
	if err := decodePostings(b, func(p posting) { got = append(got, p) }); err != nil || !slices.Equal(got, ps) {
		t.Errorf("postings %v, %v; want %v", got, err, ps)
	}
	for i := 1; i < len(b); i++ {
		// A cut blob is an error or fewer postings, never a panic.
		_ = decodePostings(b[:i], func(posting) {})
	}
	for _, bad := range [][]byte{
		{0, 1, stypeCode},               // no field
		{0, 1, 3 | 1<<2, 1},             // no such source type
		{0, 1, stypeCode | 1<<7, 1},     // no such field
		{0, 1, stypeCode | 1<<2, 0},     // a frequency of 0
		{0, 1, stypeCode | 1<<2 | 1<<3}, // frequencies missing
	} {
		if err := decodePostings(bad, func(posting) {}); err == nil {
			t.Errorf("postings % x decode", bad)
		}
	}
	tc := []termCount{{"a", 1}, {"über", 300}, {"", 0}}
	if got, err := decodeTerms(encodeTerms(tc)); err != nil || !slices.Equal(got, tc) {
		t.Errorf("terms %v, %v", got, err)
	}
	if _, err := decodeTerms([]byte{5, 'a'}); err == nil {
		t.Error("a cut terms blob decodes")
	}
	v := []float32{0, 1.5, -2, float32(math.Inf(1))}
	if got := decodeVector(nil, encodeVector(v)); !slices.Equal(got, v) {
		t.Errorf("vector %v, want %v", got, v)
	}
	if encodeVector(nil) != nil {
		t.Error("no vector encodes as something")
	}
}

func TestTruncate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 5, "abc"},
		{"abcdef", 3, "abc"},
		{"aé", 2, "a"},
		{"éé", 3, "é"},
		{"日本", 4, "日"},
	} {
		got := truncate(tc.in, tc.n)
		if got != tc.want || !utf8.ValidString(got) {
			t.Errorf("truncate(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestHashEmbedder(t *testing.T) {
	e := HashEmbedder{Dim: 64}
	vs, err := e.Embed(context.Background(), []string{"open the sqlite database", "open the sqlite database", "schedules run agents", ""})
	if err != nil || len(vs) != 4 {
		t.Fatal(vs, err)
	}
	if !slices.Equal(vs[0], vs[1]) {
		t.Error("HashEmbedder is not deterministic")
	}
	for _, v := range vs {
		normalize(v)
		if len(v) != 64 {
			t.Errorf("dimension %d", len(v))
		}
	}
	if same, other := dot(vs[0], vs[1]), dot(vs[0], vs[2]); !(same > 0.99 && other < same) {
		t.Errorf("cosines: same text %v, other text %v", same, other)
	}
	if dot(vs[3], vs[3]) != 0 {
		t.Error("the empty text has a vector")
	}
}

// fakeEmbeddings is an OpenAI /embeddings endpoint: each input's vector is
// [len(input), batch number], in reverse order, as the API may answer.
func fakeEmbeddings(t *testing.T, requests *[][]string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/embeddings" || r.Header.Get("Authorization") != "Bearer sk-test" {
			http.Error(w, `{"error":{"message":"bad request `+r.URL.Path+`"}}`, http.StatusUnauthorized)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Input []string `json:"input"`
			Model string   `json:"model"`
		}
		if err := json.Unmarshal(body, &req); err != nil || req.Model != "embed-small" {
			http.Error(w, `{"error":{"message":"bad body"}}`, http.StatusBadRequest)
			return
		}
		*requests = append(*requests, req.Input)
		type item struct {
			Object    string    `json:"object"`
			Embedding []float32 `json:"embedding"`
			Index     int       `json:"index"`
		}
		var data []item
		for i := len(req.Input) - 1; i >= 0; i-- {
			data = append(data, item{"embedding", []float32{float32(len(req.Input[i])), float32(len(*requests))}, i})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
	}))
}

func TestOpenAIEmbedder(t *testing.T) {
	var requests [][]string
	srv := fakeEmbeddings(t, &requests)
	defer srv.Close()
	e, err := NewOpenAIEmbedder(OpenAIConfig{BaseURL: srv.URL + "/v1/", Model: "embed-small", APIKey: "sk-test", BatchSize: 2, MaxChars: 4})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := e.Embed(context.Background(), []string{"a", "bb", "", "dddddd", "ee"})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float32{{1, 1}, {2, 1}, {1, 2}, {4, 2}, {2, 3}}
	if !slices.EqualFunc(vs, want, slices.Equal) {
		t.Errorf("vectors %v, want %v", vs, want)
	}
	if len(requests) != 3 || requests[1][0] != " " || requests[1][1] != "dddd" {
		t.Errorf("requests %q", requests)
	}

	bad, _ := NewOpenAIEmbedder(OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "embed-small", APIKey: "wrong"})
	if _, err := bad.Embed(context.Background(), []string{"a"}); err == nil || !strings.Contains(err.Error(), "embed-small") {
		t.Errorf("a refused request: %v", err)
	}
	if _, err := NewOpenAIEmbedder(OpenAIConfig{Model: "m"}); err == nil {
		t.Error("no base URL accepted")
	}
}

func TestOpenAIEmbedderIndexes(t *testing.T) {
	var requests [][]string
	srv := fakeEmbeddings(t, &requests)
	defer srv.Close()
	e, _ := NewOpenAIEmbedder(OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "embed-small", APIKey: "sk-test"})
	ix := openIndex(t, backends[0].newDB(t), Options{Embedder: e})
	mustReplace(t, ix, "kb", testCorpus()...)
	if len(requests) != 5 {
		t.Errorf("%d embedding requests for 5 files", len(requests))
	}
	hits := mustSearch(t, ix, Query{KB: []string{"kb"}, Text: "OpenSQLite"})
	if len(hits) == 0 || len(requests) != 6 {
		t.Errorf("%d hits, %d requests", len(hits), len(requests))
	}
}

// TestEmbedderErrorsKeepTheFile: a failing embedder does not fail the
// Replace: the file is indexed without vectors (TestFailingEmbedderDegrades
// follows them further).
func TestEmbedderErrorsKeepTheFile(t *testing.T) {
	ix := openIndex(t, backends[0].newDB(t), Options{Embedder: failingEmbedder{}})
	f := testCorpus()[0]
	if _, err := ix.Replace(context.Background(), "kb", f.name, f.hash, f.chunks); err != nil {
		t.Errorf("Replace with a failing embedder: %v", err)
	}
	if h, _ := ix.FileHashes(context.Background(), "kb"); h[f.name] != f.hash {
		t.Errorf("the file was not recorded: %v", h)
	}
	if n := countNullVectors(t, ix); n != len(f.chunks) {
		t.Errorf("%d chunks without vectors, want %d", n, len(f.chunks))
	}
}

type failingEmbedder struct{}

func (failingEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, errNoModel
}

var errNoModel = errorString("no model")

type errorString string

func (e errorString) Error() string { return string(e) }

// TestRankingChecked: a ranking that cannot rank (or that would let a
// private chunk outscore the bound MaxScore prunes by) is refused when
// the index is opened.
func TestRankingChecked(t *testing.T) {
	for _, r := range []Ranking{
		{},
		{K1: 1.2, B: 0.5, Body: 1, Private: 1.5},
		{K1: 1.2, B: 1.5, Body: 1, Private: 1},
		{K1: 1.2, B: 0.5, Body: -1, Symbol: 2, Private: 1},
		{K1: math.NaN(), B: 0.5, Body: 1, Private: 1},
		{K1: 1.2, B: 0.5, Private: 1},
	} {
		if _, err := newIndex(Options{Ranking: &r}); err == nil {
			t.Errorf("ranking %+v accepted", r)
		}
	}
	d := DefaultRanking()
	if _, err := newIndex(Options{Ranking: &d}); err != nil {
		t.Errorf("the default ranking: %v", err)
	}
}
