package chunk

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTokens(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"parseHTTPRequest", []string{"pars", "http", "request", "parsehttprequest"}},
		{"ParseHTTPRequest(r)", []string{"pars", "http", "request", "parsehttprequest"}},
		{"HTTPServer", []string{"http", "server", "httpserver"}},
		{"getX", []string{"get", "getx"}},
		{"iOSVersion", []string{"os", "version", "iosversion"}},
		{"parse_http_request", []string{"pars", "http", "request", "parse_http_request"}},
		{"MAX_RETRY_COUNT", []string{"max", "retry", "count", "max_retry_count"}},
		{"__init__", []string{"init"}},
		{"content-type", []string{"content", "typ", "content-type"}},
		{"--dry-run", []string{"dry", "run", "dry-run"}},
		{"a - b", nil},
		{"utf8 base64 sha256", []string{"utf", "utf8", "bas", "64", "base64", "sha", "256", "sha256"}},
		{"HTTP 404 on port 8080", []string{"http", "404", "port", "8080"}},
		{"v2", []string{"v2"}},
		{"0xFF", []string{"ff", "0xff"}},
		{"The handler of requests is in the server.", []string{"handler", "request", "server"}},
		{"func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) error", []string{
			"server", "serv", "http", "servehttp", "http", "respons", "writer", "responsewriter", "http", "request", "error"}},
		{"def get_user(self): return None", []string{"get", "user", "get_user"}},
		{"returnValue", []string{"valu", "returnvalue"}},
		{"queries classes matches caches status analysis boxes files", []string{"query", "class", "match", "cach", "status", "analysis", "box", "fil"}},
		{"Requests REQUESTS", []string{"request", "request"}},
		{"naïve Café ÜberCool", []string{"naïve", "café", "über", "cool", "übercool"}},
		{"开发指南", []string{"开发", "发指", "指南"}},
		{"知识库 kb", []string{"知识", "识库", "kb"}},
		{"读取README文件", []string{"读取", "readm", "文件"}},
		{"字", []string{"字"}},
		{"x\xffy zz\xfe", []string{"zz"}},
		{"a.b.c foo.Bar", []string{"foo", "bar"}},
		{"it's don't", nil},
		{"what happens to my own data while doing it, for myself", []string{"happen", "data"}},
		{"after all, any other until", []string{"after", "all", "any", "other", "until"}},
		{strings.Repeat("a", 65) + " ok", []string{"ok"}},
		{strings.Repeat("ab", 20) + "_x", []string{strings.Repeat("ab", 20), strings.Repeat("ab", 20) + "_x"}},
	} {
		if got := Tokens(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestQueryTokens(t *testing.T) {
	got := QueryTokens("how does parseHTTPRequest parse the HTTP request?")
	want := []string{"pars", "http", "request", "parsehttprequest"}
	if !slices.Equal(got, want) {
		t.Errorf("QueryTokens = %q, want %q", got, want)
	}
}

func TestStem(t *testing.T) {
	for in, want := range map[string]string{
		"requests": "request", "queries": "query", "classes": "class", "matches": "match",
		"caches": "cach", "boxes": "box", "hashes": "hash", "buzzes": "buzz", "status": "status",
		"class": "class", "analysis": "analysis", "files": "fil", "types": "typ", "ties": "ti",
		"bus": "bus", "its": "its", "Files": "Files", "a1s": "a1s", "series": "sery",
		// -ing, -ed and a final e: the forms of a word meet.
		"parse": "pars", "parsed": "pars", "parsing": "pars", "parses": "pars",
		"encode": "encod", "encoding": "encod", "encoded": "encod",
		"logging": "log", "embedded": "embed", "called": "call", "setting": "set", "settings": "set",
		"using": "us", "use": "us", "used": "us", "reading": "read", "timeout": "timeout",
		"string": "string", "thing": "thing", "need": "need", "speed": "speed", "free": "free", "red": "red",
	} {
		if got := stem(in); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}

// checkTokens checks what holds for any text: terms are non-empty,
// lower-case, valid UTF-8, no longer than maxTermBytes, and no more than
// the text's bytes; their total size is within three times the text's.
func checkTokens(t *testing.T, text string, terms []string) {
	t.Helper()
	if len(terms) > len(text) {
		t.Fatalf("%d terms from %d bytes", len(terms), len(text))
	}
	total := 0
	for _, term := range terms {
		total += len(term)
		if term == "" || len(term) > maxTermBytes+maxTermBytes/2 || !utf8.ValidString(term) {
			t.Fatalf("bad term %q", term)
		}
		if strings.ToLower(term) != term {
			t.Fatalf("term %q is not lower-case", term)
		}
	}
	if total > 3*len(text) {
		t.Fatalf("%d bytes of terms from %d bytes", total, len(text))
	}
}

func FuzzTokens(f *testing.F) {
	for _, s := range []string{"parseHTTPRequest", "snake_case-kebab", "开发指南 README", "x\xffy", "İİİ", "ǅǅ", "a1b2c3", strings.Repeat("Aa", 50)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		terms := Tokens(s)
		checkTokens(t, s, terms)
		q := QueryTokens(s)
		checkTokens(t, s, q)
		if len(q) > len(terms) {
			t.Fatalf("%d query terms, %d terms", len(q), len(terms))
		}
	})
}
