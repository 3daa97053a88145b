package agent

import (
	"bytes"
	"errors"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// The YAML library reports a syntax error's line, and no column, as
// follows: a scanner error at its line, or at the line of its context (the
// plain scalar a stray tab follows, the quote an unterminated string
// opens); a parser error at the line, counted from 0, of its context (the
// start of the collection being parsed) or, when that is the first line,
// of the problem itself. Read as a line counted from 1, a parser error
// lands one line before, and an error in a collection at the collection's
// start rather than at the token that broke it: a misindented line, a key
// at the wrong indentation or a stray "- item" is reported where the
// mapping or list around it begins.
//
// yamlSyntaxPos undoes that and finds the offending token's line and
// column:
//
//   - An error in a flow collection (`{title: Proceed?, …}`, JSON) is found
//     by scanning the collection again with a small flow scanner
//     (flowProblem): cutting a flow collection short makes the library fail
//     the same way, so the prefixes below cannot place it.
//   - Every other error is found by asking the library itself which prefix
//     of the file first fails the same way (firstFailure): the parser reads
//     a stream from the start and stops at the first token it cannot take,
//     so a prefix that holds that token fails with the same message and
//     context, and one that ends before it does not. A binary search over
//     line ends finds the line, a second one over the bytes of that line
//     the token. Each prefix is parsed with a line break appended, so that
//     a failure caused only by the cut (an error at the end of the stream)
//     is reported on another line and does not count as the same failure.
//     This costs O(n log n) for a file of n bytes (a few dozen parses of at
//     most the file), only when the file does not parse, and is skipped
//     above maxPositionScan bytes, where the library's line is kept.
//
// The result never lies past the file's last byte.
//
// Why from the message and not from yaml.Node: every problem in a file that
// parses is placed from its nodes' Line and Column (NodeDecoder,
// yamldecode.go; yaml.v3's own TypeError, text only, is not used). A
// syntax error is another matter: yaml.v3 (v3.0.6) raises it as a plain
// error built by fmt.Errorf("yaml: "+format, ...), with no position field,
// and Decode leaves no partial node tree behind
// (TestYAMLSyntaxErrorsAreStrings fails the day that changes). So the
// line is read from the text (YAMLErrorPos), the message's prefix tells a
// parser error from a scanner one (yamlParserProblems) and picks the
// search, and prefixProbe compares whole messages only for equality. An
// unknown message degrades to the prefix search and, failing that, to the
// library's line. Re-measured on 2026-11-29 at afea7d6: this costs nothing
// on a file that parses, and BenchmarkYAMLSyntaxPos (a block error at the
// end of a 240 KiB file, -count 3) places the error in 0.41-0.52 s on 2
// shared, loaded cores, proportionally less for an agent file of a few
// KiB; it is paid once, by lint or load, only by a file that does not
// parse, never by the relay.

// maxPositionScan is the largest file whose syntax errors are placed by
// re-parsing its prefixes. Agent files are a few KiB; at the limit the
// search costs about 20 parses of the file (BenchmarkYAMLSyntaxPos:
// about 0.5 s of CPU at 240 KiB, proportionally less for smaller files),
// paid only by a file that does not parse.
const maxPositionScan = 256 << 10

// yamlParserProblems are the messages of the library's parser errors (the
// rest are scanner errors).
var yamlParserProblems = []string{
	"did not find expected <", "did not find expected key", "did not find expected '-' indicator",
	"did not find expected node content", "did not find expected ',' or ", "found undefined tag handle",
	"found duplicate %", "found incompatible YAML document",
}

// yamlSyntaxPos is the position in data of the syntax error whose message
// (without its "yaml: " prefix) is msg and whose reported line is line (0
// when none was reported).
func yamlSyntaxPos(file string, data []byte, line int, msg string) Position {
	pos := Position{File: file, Line: max(line, 1), Column: 1}
	parser := false
	for _, p := range yamlParserProblems {
		if strings.HasPrefix(msg, p) {
			pos.Line = line + 1 // counted from 0; none reported means the first line
			parser = true
			break
		}
	}
	off, ok := -1, false
	switch {
	case strings.HasPrefix(msg, "did not find expected ',' or "):
		// The context (the innermost flow collection) starts on that
		// line, or it starts on the first line and the problem is on
		// that line.
		for _, start := range []int{pos.Line, 1} {
			if off, ok = flowProblem(data, start); ok {
				break
			}
		}
	case strings.HasPrefix(msg, "did not find expected node content"):
		// At the problem's own line, in a flow collection (a doubled
		// comma) or in a block one: the flow scanner's answer is taken
		// when the library confirms it.
		p := newPrefixProbe(data)
		for _, start := range []int{pos.Line, 1} {
			if o, found := flowProblem(data, start); found && p.confirms(o) {
				off, ok = o, true
				break
			}
		}
		if !ok {
			off, ok = p.firstFailure(parser)
		}
	case msg == "found unexpected end of stream":
		// A quoted scalar never closed, reported at the line where it
		// opens. Cutting an earlier, closed quoted scalar on that line
		// short fails the same way, so the prefixes cannot tell them
		// apart: the quote is found by reading the line's scalars.
		p := newPrefixProbe(data)
		if o, found := unclosedQuote(data, pos.Line); found && p.confirms(o) {
			off, ok = o, true
		} else {
			off, ok = p.firstFailure(parser)
		}
	default:
		off, ok = newPrefixProbe(data).firstFailure(parser)
	}
	if ok {
		pos.Line, pos.Column = lineCol(data, min(off, len(data)-1))
		return pos
	}
	// Not placed: the library's line, kept inside the file.
	pos.Line = min(pos.Line, lineCount(data))
	return pos
}

// lineCount is the number of lines in data (a last line without a line
// break counts; an empty file has one), line breaks counted as lineCol
// does.
func lineCount(data []byte) int {
	if len(data) == 0 {
		return 1
	}
	n, _ := lineCol(data, len(data)-1)
	return n
}

// isLineBreak reports whether data[i] ends a line: '\n', or a '\r' not
// followed by '\n' (the YAML library breaks lines at a lone '\r' too).
func isLineBreak(data []byte, i int) bool {
	return data[i] == '\n' || data[i] == '\r' && (i+1 == len(data) || data[i+1] != '\n')
}

// lineCol is the line and column (in characters), both from 1, of offset
// off in data.
func lineCol(data []byte, off int) (int, int) {
	off = max(min(off, len(data)), 0)
	line, ls := 1, 0
	for i := 0; i < off; i++ {
		if isLineBreak(data, i) {
			line, ls = line+1, i+1
		}
	}
	return line, 1 + utf8.RuneCount(data[ls:off])
}

// prefixProbe parses prefixes of a file the way parseFile does and tells
// which fail with the same error as the whole file.
type prefixProbe struct {
	data   []byte
	buf    []byte
	target string // the whole file's error; "" when it parses or is too big
}

func newPrefixProbe(data []byte) *prefixProbe {
	p := &prefixProbe{data: data}
	if len(data) > 0 && len(data) <= maxPositionScan {
		p.target = p.errorAt(len(data))
	}
	return p
}

// errorAt is the first error of data[:end] followed by a line break, as
// parseFile meets it; "" when there is none.
func (p *prefixProbe) errorAt(end int) string {
	p.buf = append(append(p.buf[:0], p.data[:end]...), '\n')
	dec := yaml.NewDecoder(bytes.NewReader(p.buf))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			if errors.Is(err, io.EOF) {
				return ""
			}
			return err.Error()
		}
	}
}

// fails reports whether data[:end] fails as the whole file does.
func (p *prefixProbe) fails(end int) bool {
	return p.target != "" && p.errorAt(end) == p.target
}

// confirms reports whether the token at off is where the file fails: the
// prefix up to it parses (or fails otherwise), the prefix through its first
// character fails as the whole file does.
func (p *prefixProbe) confirms(off int) bool {
	if p.target == "" || off < 0 || off >= len(p.data) {
		return false
	}
	_, size := utf8.DecodeRune(p.data[off:])
	return !p.fails(off) && p.fails(off+size)
}

// firstFailure returns the offset of the token at which the file first
// fails: the shortest failing prefix is found by line, then by byte; the
// token is the one holding that prefix's last character. For a parser
// error (parser) that character may be the ':' that made a key of the
// scalar before it; the token is then that key.
func (p *prefixProbe) firstFailure(parser bool) (int, bool) {
	if p.target == "" {
		return 0, false
	}
	data := p.data
	var ends []int // the offsets just past each line
	for i := range data {
		if isLineBreak(data, i) {
			ends = append(ends, i+1)
		}
	}
	if len(ends) == 0 || ends[len(ends)-1] != len(data) {
		ends = append(ends, len(data))
	}
	// The whole file fails; the empty prefix does not. sort.Search finds
	// a line whose end fails while the previous line's does not.
	n := sort.Search(len(ends), func(i int) bool { return p.fails(ends[i]) })
	if n == len(ends) {
		return 0, false
	}
	ls := 0
	if n > 0 {
		ls = ends[n-1]
	}
	b := ls + 1 + sort.Search(ends[n]-ls-1, func(j int) bool { return p.fails(ls + 1 + j) })
	off := b - 1
	for off > ls && !utf8.RuneStart(data[off]) {
		off--
	}
	if parser && data[off] == ':' {
		return keyStart(data, ls, off), true
	}
	// Names (an alias, anchor or tag, a document marker) fail only once
	// whole: go back to where the word starts.
	if !strings.ContainsRune(yamlStops, rune(data[off])) {
		for off > ls && !strings.ContainsRune(yamlStops, rune(data[off-1])) {
			off--
		}
	}
	return off, true
}

// keyStart returns the start of the key that the ':' at colon ends, on
// the line starting at ls: a quoted scalar, or a plain one that reaches
// back to the line's indentation, a "- ", "? " or ": " indicator or a flow
// indicator. The ':' itself when there is no key before it.
func keyStart(data []byte, ls, colon int) int {
	i := colon
	for i > ls && (data[i-1] == ' ' || data[i-1] == '\t') {
		i--
	}
	if i == ls {
		return colon
	}
	if q := data[i-1]; q == '"' || q == '\'' {
		if j := bytes.LastIndexByte(data[ls:i-1], q); j >= 0 {
			return ls + j
		}
		return colon
	}
	for i > ls && strings.IndexByte(",[]{}", data[i-1]) < 0 &&
		!(data[i-1] == ' ' && i-2 >= ls && strings.IndexByte("-?:", data[i-2]) >= 0 && (i-2 == ls || data[i-3] == ' ' || data[i-3] == '\t')) {
		i--
	}
	for i < colon && (data[i] == ' ' || data[i] == '\t') {
		i++
	}
	return i
}

// yamlStops are the characters that end a word for firstFailure: blanks,
// line breaks, indicators and quotes.
const yamlStops = " \t\r\n,[]{}:#'\"-"

// lineStart returns the offset where line (from 1) of data starts.
func lineStart(data []byte, line int) (int, bool) {
	ls := 0
	for i := 0; i < len(data) && line > 1; i++ {
		if isLineBreak(data, i) {
			line, ls = line-1, i+1
		}
	}
	return ls, line <= 1
}

// unclosedQuote returns the offset of the first quote on line (from 1) of
// data that opens a scalar (at the line's start, after a blank or a flow
// indicator) and is not closed before the end of data.
func unclosedQuote(data []byte, line int) (int, bool) {
	p, ok := lineStart(data, line)
	if !ok {
		return 0, false
	}
	prev := byte(' ')
	for ; p < len(data) && !isLineBreak(data, p); p++ {
		c := data[p]
		switch {
		case c == '#' && (prev == ' ' || prev == '\t'):
			return 0, false
		case (c == '"' || c == '\'') && strings.IndexByte(" \t,[{:", prev) >= 0:
			s := &flowScanner{data: data, p: p}
			if !s.quoted() {
				return p, true
			}
			p, c = s.p-1, data[s.p-1]
		}
		prev = c
	}
	return 0, false
}

// flowProblem scans the flow collections that start on line (from 1) of
// data and returns the offset of the first token that breaks one.
func flowProblem(data []byte, line int) (int, bool) {
	ls := 0
	for i := 1; i < line; i++ {
		n := bytes.IndexByte(data[ls:], '\n')
		if n < 0 {
			return 0, false
		}
		ls += n + 1
	}
	le := len(data)
	if n := bytes.IndexByte(data[ls:], '\n'); n >= 0 {
		le = ls + n
	}
	for p := ls; p < le; {
		start := flowStart(data, p, le)
		if start < 0 {
			return 0, false
		}
		s := &flowScanner{data: data, p: start}
		if !s.node() {
			if s.skip(); s.p >= len(data) && len(s.open) > 0 {
				// The file ended inside: the collection left open is
				// the place to look, not the end.
				return s.open[len(s.open)-1], true
			}
			return s.p, true
		}
		p = s.p
	}
	return 0, false
}

// flowStart returns the offset of the first '{' or '[' in data[p:end] that
// starts a node (at the line's start or after "- ", ": ", "? ", ',' or
// another flow indicator), skipping quoted text and comments; -1 if none.
func flowStart(data []byte, p, end int) int {
	prev := byte(0) // the last non-blank byte before p on the line
	spaced := true
	for ; p < end; p++ {
		c := data[p]
		switch {
		case c == ' ' || c == '\t':
			spaced = true
			continue
		case c == '#' && spaced:
			return -1
		case c == '{' || c == '[':
			if prev == 0 || strings.IndexByte(",[{", prev) >= 0 || spaced && strings.IndexByte("-:?", prev) >= 0 {
				return p
			}
		case c == '"' || c == '\'':
			s := &flowScanner{data: data[:end], p: p}
			if !s.quoted() {
				return -1
			}
			p = s.p - 1
		}
		prev, spaced = c, false
	}
	return -1
}

// flowScanner reads one flow node the way the YAML parser does, enough to
// find the token where it fails: p is where it stopped.
type flowScanner struct {
	data []byte
	p    int
	open []int // the starts of the collections not yet closed
}

func (s *flowScanner) at(c byte) bool { return s.p < len(s.data) && s.data[s.p] == c }

// blank reports whether the byte at i is a space, tab or line break, or
// the end of data.
func (s *flowScanner) blank(i int) bool {
	return i >= len(s.data) || strings.IndexByte(" \t\r\n", s.data[i]) >= 0
}

// skip passes blanks, line breaks and comments.
func (s *flowScanner) skip() {
	for s.p < len(s.data) {
		switch c := s.data[s.p]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			s.p++
		case c == '#' && (s.p == 0 || s.blank(s.p-1)):
			for s.p < len(s.data) && s.data[s.p] != '\n' {
				s.p++
			}
		default:
			return
		}
	}
}

// node reads a flow collection or scalar; false when it breaks.
func (s *flowScanner) node() bool {
	s.skip()
	switch {
	case s.at('{'):
		return s.collection('}')
	case s.at('['):
		return s.collection(']')
	case s.at('"'), s.at('\''):
		return s.quoted()
	}
	return s.plain()
}

// valueIndicator reports whether a ':' at p marks a value: followed by a
// blank or a flow indicator, or right after a quoted or flow key (adjacent).
func (s *flowScanner) valueIndicator(adjacent bool) bool {
	return s.at(':') && (adjacent || s.blank(s.p+1) || strings.IndexByte(",[]{}", s.data[s.p+1]) >= 0)
}

// collection reads a flow mapping or sequence up to its closer; false at
// the first token that is neither an entry, ',' nor the closer.
func (s *flowScanner) collection(closer byte) bool {
	s.open = append(s.open, s.p)
	s.p++
	for {
		s.skip()
		if s.at(closer) {
			s.p++
			s.open = s.open[:len(s.open)-1]
			return true
		}
		if s.at('?') && s.blank(s.p+1) {
			s.p++
			s.skip()
		}
		if !s.at(':') {
			keyEnd := s.p
			if !s.node() {
				return false
			}
			adjacent := keyEnd < s.p && strings.IndexByte("\"']}", s.data[s.p-1]) >= 0
			if !adjacent {
				s.skip()
			}
			if !s.valueIndicator(adjacent) {
				s.skip()
				if s.at(',') {
					s.p++
					continue
				}
				if s.at(closer) {
					continue
				}
				return false
			}
		}
		s.p++ // the ':'
		s.skip()
		if !s.at(',') && !s.at(closer) {
			if !s.node() {
				return false
			}
			s.skip()
		}
		if s.at(',') {
			s.p++
			continue
		}
		if !s.at(closer) {
			return false
		}
	}
}

// quoted reads a single- or double-quoted scalar; false when unterminated.
func (s *flowScanner) quoted() bool {
	q := s.data[s.p]
	for s.p++; s.p < len(s.data); s.p++ {
		switch c := s.data[s.p]; {
		case c == '\\' && q == '"':
			s.p++
		case c == '\'' && q == '\'' && s.p+1 < len(s.data) && s.data[s.p+1] == '\'':
			s.p++
		case c == q:
			s.p++
			return true
		}
	}
	return false
}

// plain reads a plain scalar, which in a flow collection ends at a flow
// indicator, at ": " or at " #"; it may span lines. False when empty (a
// token that cannot start a node).
func (s *flowScanner) plain() bool {
	start := s.p
	for s.p < len(s.data) {
		c := s.data[s.p]
		if strings.IndexByte(",[]{}", c) >= 0 || c == ':' && s.valueIndicator(false) || c == '#' && s.p > start && s.blank(s.p-1) {
			break
		}
		s.p++
	}
	for s.p > start && s.blank(s.p-1) {
		s.p-- // trailing blanks are not the scalar's
	}
	return s.p > start
}
