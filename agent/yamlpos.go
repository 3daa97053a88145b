package agent

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// The YAML library reports a syntax error's line, and no column, as
// follows: a scanner error at its line; a parser error at the line, counted
// from 0, of its context (the start of the collection being parsed) or,
// when that is the first line, of the problem itself. Read as a line
// counted from 1, a parser error lands one line before, and for a flow
// collection at its start rather than at the token that broke it.
// yamlErrorPos undoes that: parser errors move to the right line, and
// errors in flow collections (`{title: Proceed?, …}`) to the line and
// column of the offending token, found by scanning the collection again.

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
	parser := false
	for _, p := range yamlParserProblems {
		if strings.HasPrefix(msg, p) {
			parser = true
			break
		}
	}
	if !parser {
		return Position{File: file, Line: max(line, 1), Column: 1}
	}
	line++ // counted from 0; none reported means the first line
	pos := Position{File: file, Line: line, Column: 1}
	if !strings.HasPrefix(msg, "did not find expected ',' or ") {
		return pos
	}
	// The context (the innermost flow collection) starts on that line, or
	// it starts on the first line and the problem is on that line.
	for _, start := range []int{line, 1} {
		if off, ok := flowProblem(data, start); ok {
			pos.Line, pos.Column = lineCol(data, off)
			return pos
		}
	}
	return pos
}

// lineCol is the line and column (in characters), both from 1, of offset
// off in data.
func lineCol(data []byte, off int) (int, int) {
	ls := bytes.LastIndexByte(data[:off], '\n') + 1
	return 1 + bytes.Count(data[:off], []byte{'\n'}), 1 + utf8.RuneCount(data[ls:off])
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
