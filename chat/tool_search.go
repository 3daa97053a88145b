package chat

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"regexp"
	"unicode/utf8"

	"github.com/agentgw/agentgw/agent/toolspec"
)

const (
	// searchDefault and searchMax are search_text's default and largest
	// maxResults.
	searchDefault, searchMax = 100, 2000
	// matchTextMax is how many characters of a matching line are sent.
	matchTextMax = 200
	// searchLineMax is the longest line searched; a file with a longer one
	// is searched up to it.
	searchLineMax = 1 << 20
)

// searchParams are search_text's parameters.
type searchParams struct {
	Query      string `json:"query"`
	Path       string `json:"path"`
	Regex      bool   `json:"regex"`
	MaxResults *int   `json:"maxResults"`
}

// searchMatch is a line that matches.
type searchMatch struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Text string `json:"text"`
}

// searchResult is search_text's result.
type searchResult struct {
	Matches   []searchMatch `json:"matches"`
	Truncated bool          `json:"truncated"`
}

// matcher finds the query in a line: the byte offset of the first match,
// or -1.
type matcher func(line []byte) int

// searchText is search_text: the lines of the text files under path (a
// directory, or one file) that contain query, literally or as a regular
// expression (Go syntax), in path then line order.
func (r *toolRoot) searchText(ctx context.Context, raw []byte) (any, *toolspec.ResultError) {
	var p searchParams
	if fail := decodeParams(raw, &p); fail != nil {
		return nil, fail
	}
	match, fail := p.matcher()
	if fail != nil {
		return nil, fail
	}
	limit, fail := maxParam("maxResults", p.MaxResults, searchDefault, searchMax)
	if fail != nil {
		return nil, fail
	}
	name, rel, fail := r.resolve(p.Path)
	if fail != nil {
		return nil, fail
	}
	info, fail := r.stat(name, rel)
	if fail != nil {
		return nil, fail
	}
	s := &search{root: r, match: match, limit: limit, res: searchResult{Matches: []searchMatch{}}}
	if !info.IsDir() {
		f, fail := r.openText(name, rel, info, nil)
		if fail != nil {
			return nil, fail
		}
		s.file(ctx, f, rel)
		return s.res, nil
	}
	err := r.walkFiles(ctx, name, rel, func(rel, name string) bool { return s.path(ctx, rel, name) })
	if err != nil && !errors.Is(err, errStopWalk) {
		return nil, ioFailure(displayPath(rel), err)
	}
	return s.res, nil
}

// matcher compiles the query.
func (p searchParams) matcher() (matcher, *toolspec.ResultError) {
	if p.Query == "" {
		return nil, invalidParams("query is required")
	}
	if !p.Regex {
		q := []byte(p.Query)
		return func(line []byte) int { return bytes.Index(line, q) }, nil
	}
	re, err := regexp.Compile(p.Query)
	if err != nil {
		return nil, invalidParams("query is not a regular expression: %v", err)
	}
	return func(line []byte) int {
		if loc := re.FindIndex(line); loc != nil {
			return loc[0]
		}
		return -1
	}, nil
}

// search collects matches up to limit.
type search struct {
	root  *toolRoot
	match matcher
	limit int
	res   searchResult
	// br and buf are reused from file to file.
	br  *bufio.Reader
	buf []byte
}

// path searches one file of a walk, leaving out binary and unreadable
// files; it reports whether the search is over.
func (s *search) path(ctx context.Context, rel, name string) bool {
	if s.br == nil {
		s.br = bufio.NewReaderSize(nil, 64<<10)
	}
	info, err := s.root.root.Stat(name)
	if err != nil {
		return false
	}
	f, fail := s.root.openText(name, rel, info, s.br)
	if fail != nil {
		return false
	}
	return s.file(ctx, f, rel)
}

// file searches f, closing it; it reports whether the search is over
// (the limit was passed, or ctx ended).
func (s *search) file(ctx context.Context, f *textFile, rel string) bool {
	defer f.Close()
	if s.buf == nil {
		s.buf = make([]byte, 0, 64<<10)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(s.buf, searchLineMax)
	for n := 1; sc.Scan(); n++ {
		if n%1024 == 0 && ctx.Err() != nil {
			return true
		}
		line := bytes.TrimSuffix(sc.Bytes(), []byte("\r"))
		at := s.match(line)
		if at < 0 {
			continue
		}
		if len(s.res.Matches) == s.limit {
			s.res.Truncated = true
			return true
		}
		s.res.Matches = append(s.res.Matches, searchMatch{Path: rel, Line: n, Text: snippet(string(line), at)})
	}
	return ctx.Err() != nil
}

// snippet is line cut to matchTextMax characters around the match at
// byte offset at (starting a little before it), with "…" where it was cut.
func snippet(line string, at int) string {
	n := utf8.RuneCountInString(line)
	if n <= matchTextMax {
		return line
	}
	first := max(0, utf8.RuneCountInString(line[:at])-matchTextMax/4)
	first = min(first, n-matchTextMax)
	begin := runeOffset(line, 0, first)
	end := runeOffset(line, begin, matchTextMax)
	out := line[begin:end]
	if begin > 0 {
		out = "…" + out
	}
	if end < len(line) {
		out += "…"
	}
	return out
}

// runeOffset is the byte offset k characters after byte offset from.
func runeOffset(s string, from, k int) int {
	for ; k > 0 && from < len(s); k-- {
		_, size := utf8.DecodeRuneInString(s[from:])
		from += size
	}
	return from
}
