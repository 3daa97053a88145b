package index

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/knowledge/chunk"
)

// testCorpus is a small knowledge base: code and docs with overlapping
// words.
func testCorpus() []file {
	return []file{
		mkFile("server/handler.go", "h1", chunk.TypeCode,
			[2]string{"parseHTTPRequest", "// parseHTTPRequest decodes the JSON body of an HTTP request.\nfunc parseHTTPRequest(r *http.Request) (Request, error) {\n\tvar req Request\n\terr := json.NewDecoder(r.Body).Decode(&req)\n\treturn req, err\n}"},
			[2]string{"handleChat", "func handleChat(w http.ResponseWriter, r *http.Request) {\n\treq, err := parseHTTPRequest(r)\n\tif err != nil {\n\t\twriteError(w, err)\n\t\treturn\n\t}\n\trun(req)\n}"},
			[2]string{"writeError", "// writeError writes err as a JSON error response.\nfunc writeError(w http.ResponseWriter, err error) {\n\tw.WriteHeader(500)\n}"},
		),
		mkFile("server/routes.go", "r1", chunk.TypeCode,
			[2]string{"routes", "func routes(e *echo.Echo) {\n\te.POST(\"/agents/:name\", handleChat)\n\te.GET(\"/healthz\", health)\n}"},
		),
		mkFile("store/sqlite.go", "s1", chunk.TypeCode,
			[2]string{"OpenSQLite", "// OpenSQLite opens the SQLite database at path.\nfunc OpenSQLite(path string) (*SQLite, error) {\n\treturn open(path)\n}"},
			[2]string{"Sweep", "// Sweep deletes the expired rows.\nfunc (s *SQLite) Sweep(ctx context.Context) (int, error) {\n\treturn s.exec(ctx, deleteExpired)\n}"},
		),
		mkFile("docs/http.md", "d1", chunk.TypeDoc,
			[2]string{"Requests", "## Requests\n\nThe gateway parses each HTTP request body as JSON and answers with a stream."},
			[2]string{"Errors", "## Errors\n\nAn error response carries a code and a message."},
		),
		mkFile("README.md", "m1", chunk.TypeDoc,
			[2]string{"Schedules", "# Schedules\n\nSchedules run agents on a cron spec; the store keeps their runs."},
			[2]string{"Storage", "# Storage\n\nThe store is SQLite by default, PostgreSQL for replicas."},
		),
	}
}

// loc is a hit's file and symbol.
func loc(h Hit) string { return h.Chunk.FileName + "#" + h.Chunk.Symbol }

func TestSearchRanking(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ix := openIndex(t, db, Options{})
		mustReplace(t, ix, "kb", testCorpus()...)
		checkInvariants(t, ix)
		for _, tc := range []struct {
			name  string
			q     Query
			first string   // the first hit, "" for none
			all   []string // when set, exactly these hits, in order
			check func(t *testing.T, hits []Hit)
		}{
			{name: "exact identifier ranks its declaration first",
				q: Query{Text: "parseHTTPRequest"}, first: "server/handler.go#parseHTTPRequest"},
			{name: "identifier words rank its declaration first",
				q: Query{Text: "parse http request"}, first: "server/handler.go#parseHTTPRequest"},
			{name: "another declaration",
				q: Query{Text: "OpenSQLite"}, first: "store/sqlite.go#OpenSQLite"},
			{name: "natural language", q: Query{Text: "how are expired rows deleted?"}, first: "store/sqlite.go#Sweep"},
			{name: "source type doc", q: Query{Text: "http request", SourceType: chunk.TypeDoc},
				first: "docs/http.md#Requests",
				check: func(t *testing.T, hits []Hit) {
					for _, h := range hits {
						if h.Chunk.SourceType != chunk.TypeDoc {
							t.Errorf("hit %s is %s", loc(h), h.Chunk.SourceType)
						}
					}
				}},
			{name: "source type code", q: Query{Text: "sqlite store", SourceType: chunk.TypeCode},
				all: []string{"store/sqlite.go#OpenSQLite", "store/sqlite.go#Sweep"}},
			{name: "path glob with **", q: Query{Text: "error", PathGlobs: []string{"server/**"}},
				check: func(t *testing.T, hits []Hit) {
					if len(hits) == 0 {
						t.Fatal("no hits")
					}
					for _, h := range hits {
						if !strings.HasPrefix(h.Chunk.FileName, "server/") {
							t.Errorf("hit %s is outside server/", loc(h))
						}
					}
				}},
			{name: "base-name glob", q: Query{Text: "sqlite", PathGlobs: []string{"*.md"}},
				all: []string{"README.md#Storage"}},
			{name: "several globs", q: Query{Text: "sqlite", PathGlobs: []string{"README.md", "store/*.go"}},
				all: []string{"store/sqlite.go#OpenSQLite", "store/sqlite.go#Sweep", "README.md#Storage"}},
			{name: "glob matching nothing", q: Query{Text: "sqlite", PathGlobs: []string{"nothing/*"}}},
			{name: "topK", q: Query{Text: "error request http", TopK: 2},
				check: func(t *testing.T, hits []Hit) {
					if len(hits) != 2 {
						t.Errorf("%d hits, want 2", len(hits))
					}
				}},
			{name: "unknown words", q: Query{Text: "zyzzyva quux"}},
			{name: "empty text", q: Query{Text: ""}},
			{name: "punctuation only", q: Query{Text: `"*:() OR NEAR/2 -- ;'`}},
			{name: "unknown knowledge base", q: Query{KB: []string{"other"}, Text: "sqlite"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if tc.q.KB == nil {
					tc.q.KB = []string{"kb"}
				}
				hits := mustSearch(t, ix, tc.q)
				var got []string
				for i, h := range hits {
					got = append(got, loc(h))
					if h.Score < 0 || h.Score > 1 {
						t.Errorf("hit %s scores %v", loc(h), h.Score)
					}
					if i > 0 && h.Score > hits[i-1].Score {
						t.Errorf("hit %d scores %v, more than the one before (%v)", i, h.Score, hits[i-1].Score)
					}
					if h.KB != "kb" {
						t.Errorf("hit %s is of knowledge base %q", loc(h), h.KB)
					}
				}
				if tc.first != "" && (len(got) == 0 || got[0] != tc.first) {
					t.Errorf("hits %v, want %s first", got, tc.first)
				}
				if tc.all != nil && !slices.Equal(got, tc.all) {
					t.Errorf("hits %v, want %v", got, tc.all)
				}
				if tc.first == "" && tc.all == nil && tc.check == nil && len(got) != 0 {
					t.Errorf("hits %v, want none", got)
				}
				if tc.check != nil {
					tc.check(t, hits)
				}
			})
		}
	})
}

func TestSearchHitShape(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ix := openIndex(t, db, Options{})
		corpus := testCorpus()
		mustReplace(t, ix, "kb", corpus...)
		hits := mustSearch(t, ix, Query{KB: []string{"kb"}, Text: "OpenSQLite", TopK: 1})
		if len(hits) != 1 {
			t.Fatalf("%d hits", len(hits))
		}
		if want := corpus[2].chunks[0]; hits[0].Chunk != want {
			t.Errorf("chunk %+v, want %+v", hits[0].Chunk, want)
		}
	})
}

func TestSearchTiesAreOrderedByName(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ix := openIndex(t, db, Options{})
		// Inserted in reverse order: row ids would order them z, m, a.
		// Texts differ (one text is one hit) but score the same.
		var files []file
		for _, n := range []string{"z.go", "m.go", "a.go"} {
			files = append(files, mkFile(n, n, chunk.TypeCode,
				[2]string{"", "alpha beta gamma " + n}, [2]string{"", "alpha gamma beta " + n}))
		}
		mustReplace(t, ix, "kb", files...)
		for topK := 1; topK <= 6; topK++ {
			hits := mustSearch(t, ix, Query{KB: []string{"kb"}, Text: "alpha", TopK: topK})
			var got []string
			for _, h := range hits {
				got = append(got, fmt.Sprintf("%s:%d", h.Chunk.FileName, h.Chunk.StartLine))
			}
			want := []string{"a.go:1", "a.go:11", "m.go:1", "m.go:11", "z.go:1", "z.go:11"}[:topK]
			if !slices.Equal(got, want) {
				t.Errorf("topK %d: %v, want %v", topK, got, want)
			}
		}
	})
}

func TestSearchSeveralKnowledgeBases(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ix := openIndex(t, db, Options{})
		mustReplace(t, ix, "code", mkFile("a.go", "1", chunk.TypeCode, [2]string{"Frobnicate", "func Frobnicate() {}"}))
		mustReplace(t, ix, "docs", mkFile("a.md", "1", chunk.TypeDoc, [2]string{"", "To frobnicate, call Frobnicate."}))
		hits := mustSearch(t, ix, Query{KB: []string{"code", "docs"}, Text: "frobnicate"})
		kbs := map[string]bool{}
		for _, h := range hits {
			kbs[h.KB] = true
		}
		if !kbs["code"] || !kbs["docs"] || len(hits) != 2 {
			t.Errorf("hits %+v, want one of each base", hits)
		}
		hits = mustSearch(t, ix, Query{KB: []string{"docs"}, Text: "frobnicate"})
		if len(hits) != 1 || hits[0].KB != "docs" {
			t.Errorf("hits %+v, want the docs one", hits)
		}
	})
}

func TestSearchBadQueries(t *testing.T) {
	ix := openIndex(t, backends[0].newDB(t), Options{})
	for _, q := range []Query{
		{Text: "x"},
		{KB: []string{"kb"}, Text: "x", PathGlobs: []string{"[a"}},
		{KB: []string{"kb"}, Text: "x", PathGlobs: []string{""}},
		{KB: []string{"kb"}, Text: "x", SourceType: "video"},
	} {
		if _, err := ix.Search(context.Background(), q); !errors.Is(err, ErrBadQuery) {
			t.Errorf("Search(%+v) = %v, want ErrBadQuery", q, err)
		}
	}
}

func TestReplaceRefusesBadChunks(t *testing.T) {
	ix := openIndex(t, backends[0].newDB(t), Options{})
	ctx := context.Background()
	bad := []chunk.Chunk{{FileName: "a", SourceType: "video", Text: "x"}}
	if _, err := ix.Replace(ctx, "kb", "a", "h", bad); err == nil || !strings.Contains(err.Error(), "video") {
		t.Errorf("Replace with a bad source type: %v", err)
	}
	if _, err := ix.Replace(ctx, "", "a", "h", nil); err == nil {
		t.Error("Replace with no knowledge base succeeded")
	}
	if s, err := ix.Stats(ctx, "kb"); err != nil || s.Files != 0 {
		t.Errorf("after refusals: %+v, %v", s, err)
	}
}

// TestSameRankingOnBothDatabases indexes one corpus in each database and
// requires the same hits with the same scores, to the bit.
func TestSameRankingOnBothDatabases(t *testing.T) {
	var results [][]Hit
	queries := []string{"parse http request", "sqlite store replicas", "error response", "schedules cron runs agents", "func return err"}
	for _, b := range backends {
		ix := openIndex(t, b.newDB(t), Options{Embedder: HashEmbedder{Dim: 64}})
		// Insert in another order on each, so that row ids differ.
		corpus := testCorpus()
		if b.name == "postgres" {
			slices.Reverse(corpus)
		}
		mustReplace(t, ix, "kb", corpus...)
		var all []Hit
		for _, q := range queries {
			all = append(all, mustSearch(t, ix, Query{KB: []string{"kb"}, Text: q})...)
		}
		results = append(results, all)
	}
	if !slices.EqualFunc(results[0], results[1], func(a, b Hit) bool { return a == b }) {
		t.Errorf("SQLite and Postgres rank differently:\n%v\n%v", results[0], results[1])
	}
}

func TestQueryTerms(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"read header timeout", []string{"read", "header", "timeout",
			"readheader=2", "read_header=2", "headertimeout=2", "header_timeout=2",
			"readheadertimeout=2", "read_header_timeout=2"}},
		// Stop words and split identifiers break the runs.
		{"the Server's ReadTimeout of a client", []string{"server", "read", "timeout", "readtimeout", "client"}},
		{"", nil},
	} {
		var got []string
		for _, qt := range queryTerms(chunk.Tokens, tc.q, 2) {
			s := qt.term
			if qt.weight != 1 {
				s += fmt.Sprintf("=%g", qt.weight)
			}
			got = append(got, s)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("queryTerms(%q) = %q, want %q", tc.q, got, tc.want)
		}
	}
}

// TestSearchRanksCode: the chunk declaring what the query names comes
// before those calling it, an identifier described in words finds it, and
// chunks of one text are one hit.
func TestSearchRanksCode(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ix := openIndex(t, db, Options{Tokenizer: chunk.Tokens})
		split := func(name, src string) file {
			cs, err := chunk.Split(name, "repo", []byte(src), chunk.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return file{name: name, hash: name, chunks: cs}
		}
		mustReplace(t, ix, "kb",
			split("client.go", "package http\n\n// Send sends the request with the client's retry policy.\nfunc Send(r *Request) error {\n\treturn r.do()\n}\n"),
			split("a/callers.go", "package a\n\n// Retry retries a request.\nfunc Retry(r *Request) error {\n\tfor range 3 {\n\t\tif err := http.Send(r); err == nil {\n\t\t\treturn nil\n\t\t}\n\t}\n\treturn http.Send(r)\n}\n"),
			split("b/callers.go", "package b\n\nfunc Twice(r *Request) {\n\thttp.Send(r)\n\thttp.Send(r)\n}\n"),
			split("server.go", "package http\n\n// Server serves.\ntype Server struct {\n\tReadHeaderTimeout time.Duration\n\tWriteTimeout time.Duration\n}\n"),
			split("vendor/x/server.go", "package http\n\n// Server serves.\ntype Server struct {\n\tReadHeaderTimeout time.Duration\n\tWriteTimeout time.Duration\n}\n"),
			split("wait.go", "package http\n\n// wait waits for the header or a timeout.\nfunc wait() {}\n"),
		)
		for _, tc := range []struct {
			q    string
			want []string
		}{
			{"Send", []string{"client.go:3", "b/callers.go:3", "a/callers.go:3"}},
			{"read header timeout", []string{"server.go:3", "wait.go:3"}},
		} {
			var got []string
			for _, h := range mustSearch(t, ix, Query{KB: []string{"kb"}, Text: tc.q, TopK: len(tc.want)}) {
				got = append(got, fmt.Sprintf("%s:%d", h.Chunk.FileName, h.Chunk.StartLine))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("%q: %v, want %v", tc.q, got, tc.want)
			}
		}
	})
}

// TestSearchFavoursTheSynopsis: of two declarations whose doc comments
// hold the same words, the one whose first sentence says them ranks
// first (it would come second by name).
func TestSearchFavoursTheSynopsis(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ix := openIndex(t, db, Options{Tokenizer: chunk.Tokens})
		for _, src := range []string{
			"package a\n\n// Alpha answers the request.\n//\n// Then it can redirect the client.\nfunc Alpha() {}\n",
			"package b\n\n// Beta can redirect the client.\n//\n// Then it answers the request.\nfunc Beta() {}\n",
		} {
			name := src[8:9] + ".go"
			cs, err := chunk.Split(name, "repo", []byte(src), chunk.Options{})
			if err != nil {
				t.Fatal(err)
			}
			mustReplace(t, ix, "kb", file{name: name, hash: name, chunks: cs})
		}
		var got []string
		for _, h := range mustSearch(t, ix, Query{KB: []string{"kb"}, Text: "redirect the client", TopK: 2}) {
			got = append(got, h.Chunk.Symbol)
		}
		if want := []string{"Beta", "Alpha"}; !slices.Equal(got, want) {
			t.Errorf("redirect the client: %v, want %v", got, want)
		}
	})
}

// TestSearchFavoursTheName: the declaration whose name holds the query's
// word outranks one whose doc comment only repeats it (Ranking.Names:
// BM25F alone saturates both alike).
func TestSearchFavoursTheName(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ix := openIndex(t, db, Options{Tokenizer: chunk.Tokens})
		for _, src := range []string{
			"package a\n\n// Alpha keeps the cookie jar: each cookie, cookie by cookie, in its cookie list.\nfunc Alpha(j Jar) {}\n",
			"package b\n\n// Cookie returns the named value.\nfunc Cookie(name string) string {}\n",
			"package c\n\n// Gamma parses a form.\nfunc Gamma() {}\n",
		} {
			name := src[8:9] + ".go"
			cs, err := chunk.Split(name, "repo", []byte(src), chunk.Options{})
			if err != nil {
				t.Fatal(err)
			}
			mustReplace(t, ix, "kb", file{name: name, hash: name, chunks: cs})
		}
		var got []string
		for _, h := range mustSearch(t, ix, Query{KB: []string{"kb"}, Text: "how do I read a cookie", TopK: 2}) {
			got = append(got, h.Chunk.Symbol)
		}
		if want := []string{"Cookie", "Alpha"}; !slices.Equal(got, want) {
			t.Errorf("read a cookie: %v, want %v", got, want)
		}
	})
}

func TestExpandTerms(t *testing.T) {
	table := map[string][]string{
		"written": {"marshal", "encod", "writ", "json"}, // 4: the first 3 kept, writ already there
		"out":     {"marshal", "print"},
		"static":  {"fil", "serv"},
		"a":       {"b1", "b2", "b3"}, "b": {"c1", "c2", "c3"}, "c": {"d1", "d2", "d3"},
		"d": {"e1", "e2", "e3"}, "e": {"f1"},
	}
	expand := func(t string) []string { return table[t] }
	for _, tc := range []struct {
		in   []qterm
		want []string
	}{
		{[]qterm{{term: "writ", weight: 1}, {term: "written", weight: 1}, {term: "out", weight: 1}, {term: "writtenout", weight: 2}}, []string{
			"writ", "written", "out", "writtenout=2", "marshal=0.5 names", "encod=0.5 names", "json=0.5 names", "print=0.5 names"}},
		// Joined terms are not expanded.
		{[]qterm{{term: "static", weight: 2}}, []string{"static=2"}},
		// At most 12 in all.
		{[]qterm{{term: "a", weight: 1}, {term: "b", weight: 1}, {term: "c", weight: 1}, {term: "d", weight: 1}, {term: "e", weight: 1}}, []string{"a", "b", "c", "d", "e",
			"b1=0.5 names", "b2=0.5 names", "b3=0.5 names", "c1=0.5 names", "c2=0.5 names", "c3=0.5 names", "d1=0.5 names", "d2=0.5 names", "d3=0.5 names",
			"e1=0.5 names", "e2=0.5 names", "e3=0.5 names"}},
	} {
		var got []string
		for _, qt := range expandTerms(tc.in, expand, 0.5) {
			s := qt.term
			if qt.weight != 1 {
				s += fmt.Sprintf("=%g", qt.weight)
			}
			if qt.names {
				s += " names"
			}
			got = append(got, s)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("expandTerms(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
