// Package jsonscan is the request path's one JSON tokenizer: a validating,
// allocation-light reader over one input that typed decoders walk directly
// (contextvars' variables, agent's split of the request object). It follows
// RFC 8259 as encoding/json does, with one difference: a string holding
// invalid UTF-8 is a syntax error rather than text to repair (escaped lone
// surrogates are valid JSON and decode to U+FFFD, as in encoding/json),
// unless the scanner is told to accept it (AcceptInvalidUTF8: upstream text
// that is relayed byte for byte). Skip and NextMember validate and skip
// without allocating, so the SSE relay walks its chunks with them too.
// Decoded strings share a few arena blocks, so decoding allocates a small
// constant factor of the input however it is shaped. It imports nothing of
// the project, so every package may use it.
//
// # Measured against encoding/json
//
// It is the request path's decoder: the agent request's split
// (agent/runner), the context variables (contextvars), the context and
// remote bodies and handoffs. Re-measured against encoding/json decoding
// into the same types (contextvars' BenchmarkDecodeWays and
// BenchmarkDecode8MiB/BenchmarkDecode8MiBStdlib, an IDE request with a
// file of code-like text), measured on 2026-11-29 at afea7d6, -count 5,
// medians, on 2 shared and loaded cores (load average 5-10), so the
// figures are rough:
//
//	request   jsonscan               encoding/json
//	2 KiB     15.5 µs, 10 allocs     134 µs, 31 allocs
//	64 KiB    314 µs, 11 allocs      2.57 ms, 31 allocs
//	8 MiB     24 ms, 8.5 MiB         224 ms, 24.9 MiB
//
// It is kept: on a typical 2 KiB request encoding/json would add about
// 120 µs, more than the gateway's whole own cost of a request
// (BenchmarkGatewayOwn, 70-100 µs), or some 5 µs per chunk of the relay
// benchmark's 22-chunk streams, a third of the relay's 10-18 µs of CPU per
// chunk (bench/README.md). The SSE relay validates the chunks off
// Writer.Chunk's fast path with it too, in its relay mode: sse had a
// scanner of its own (sse/scan.go) until an interleaved A/B on 2026-11-29
// found the two the same within the noise (RewriteID of a tool-call chunk
// 1.34 vs 1.47 µs, of a chunk without an id 0.77 vs 0.65 µs, medians of
// 10), and sse's BenchmarkValidateWays has this one at 0.2-0.5 µs for a
// 250-byte chunk where json.Valid takes 0.8-1.8 µs.
//
// Its string loops test eight bytes at a time (specialBytes, str.go).
// Without them (the same loops, byte by byte), measured the same day at
// a310348 and alternated, medians of 6 on the loaded machine: Decode of
// the 2 KiB request 14.6 vs 23 µs, 64 KiB 267 vs 321 µs, 8 MiB 17 vs
// 41 ms; end to end, `go run ./bench -quick -skip idle,latency` three
// times each way, alternated, relative to the bare proxy of the same run:
// CPU per 1,000 relayed chunks 1.14×, 1.23×, 1.06× with them and 1.26×,
// 1.25×, 1.22× without; throughput 1.06×, 0.76×, 1.07× with them and
// 0.78×, 0.82×, 0.80× without. That leans their way, so they stay.
package jsonscan

import (
	"fmt"
	"strconv"
)

// MaxDepth is the deepest nesting accepted, the same limit encoding/json uses.
const MaxDepth = 10000

// SyntaxError reports input that is not valid JSON.
type SyntaxError struct {
	// Offset is the byte offset in the input where the problem was found.
	Offset int
	msg    string
}

// Error renders the error as "invalid JSON: <what> at offset N".
func (e *SyntaxError) Error() string { return "invalid JSON: " + e.msg }

// Scanner reads one JSON input. Its zero value with Data set reads Data
// from the start.
type Scanner struct {
	// Data is the input.
	Data []byte
	// Pos is the offset of the next byte to read.
	Pos int
	// Depth is the number of containers open.
	Depth int
	// AcceptInvalidUTF8 makes strings holding invalid UTF-8 valid, as
	// encoding/json's validator has them: for text relayed as it is.
	// ReadString then decodes each invalid byte as U+FFFD, as
	// encoding/json does.
	AcceptInvalidUTF8 bool
	// Newline records that whitespace skipped so far held a line break
	// (\n or \r).
	Newline bool
	// arena holds the decoded strings (ReadString). It is shared, through
	// the pointer, with the scanners Sub makes over the same input: the
	// bytes under a string already returned are never written again.
	arena *[]byte
	// block overrides arenaBlock when positive (tests: tiny blocks make
	// strings move between blocks all the time).
	block int
}

// SetArenaBlock sets the size of the string arena's blocks (0: the
// default). Tests use tiny blocks to move strings between blocks often.
func (s *Scanner) SetArenaBlock(n int) { s.block = n }

// Sub returns a scanner over Data[:end] positioned at start, one level
// deeper, that shares s's string arena.
func (s *Scanner) Sub(start, end int) Scanner {
	if s.arena == nil {
		s.arena = new([]byte)
	}
	return Scanner{Data: s.Data[:end], Pos: start, Depth: s.Depth + 1, arena: s.arena, block: s.block,
		AcceptInvalidUTF8: s.AcceptInvalidUTF8}
}

// WS skips JSON whitespace.
func (s *Scanner) WS() {
	for s.Pos < len(s.Data) {
		switch s.Data[s.Pos] {
		case ' ', '\t':
			s.Pos++
		case '\n', '\r':
			s.Newline = true
			s.Pos++
		default:
			return
		}
	}
}

// Peek skips whitespace and returns the next byte, 0 at the end of input.
func (s *Scanner) Peek() byte {
	s.WS()
	if s.Pos < len(s.Data) {
		return s.Data[s.Pos]
	}
	return 0
}

// Unexpected is the syntax error for whatever is at the current position;
// context says where, such as "after an object key".
func (s *Scanner) Unexpected(context string) error {
	if s.Pos >= len(s.Data) {
		return &SyntaxError{Offset: s.Pos, msg: "unexpected end of input " + context}
	}
	return &SyntaxError{Offset: s.Pos, msg: fmt.Sprintf("invalid character %s %s at offset %d",
		quoteChar(s.Data[s.Pos]), context, s.Pos)}
}

func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	q := strconv.Quote(string(rune(c)))
	if c >= 0x80 {
		q = fmt.Sprintf(`"\x%02x"`, c)
	}
	return "'" + q[1:len(q)-1] + "'"
}

// enter counts one more level of nesting.
func (s *Scanner) enter() error {
	s.Depth++
	if s.Depth > MaxDepth {
		return &SyntaxError{Offset: s.Pos, msg: fmt.Sprintf("nesting deeper than %d at offset %d", MaxDepth, s.Pos)}
	}
	return nil
}

// Object reads an object at Pos ('{'), calling fn for each member with the
// scanner positioned at the value; fn must consume the value. The key is
// the decoded member name; it may point into Data or the arena and must not
// be kept past fn unless copied.
func (s *Scanner) Object(fn func(key []byte) error) error {
	s.Pos++
	if err := s.enter(); err != nil {
		return err
	}
	if s.Peek() == '}' {
		s.Pos++
		s.Depth--
		return nil
	}
	for {
		if s.Peek() != '"' {
			return s.Unexpected("looking for an object key")
		}
		key, err := s.Key()
		if err != nil {
			return err
		}
		if s.Peek() != ':' {
			return s.Unexpected("after an object key")
		}
		s.Pos++
		s.WS()
		if err := fn(key); err != nil {
			return err
		}
		switch s.Peek() {
		case ',':
			s.Pos++
		case '}':
			s.Pos++
			s.Depth--
			return nil
		default:
			return s.Unexpected("after an object member")
		}
	}
}

// Key reads a string (an object key) at Pos and returns its decoded text;
// plain keys (ASCII without escapes) are returned without copying.
func (s *Scanner) Key() ([]byte, error) {
	start := s.Pos
	end, plain, err := s.ScanString()
	if err != nil {
		return nil, err
	}
	if plain {
		return s.Data[start+1 : end], nil
	}
	s.Pos = start
	str, err := s.ReadString()
	return []byte(str), err
}

// Array reads an array at Pos ('['), calling fn for each element with the
// scanner positioned at it; fn must consume the element.
func (s *Scanner) Array(fn func() error) error {
	s.Pos++
	if err := s.enter(); err != nil {
		return err
	}
	if s.Peek() == ']' {
		s.Pos++
		s.Depth--
		return nil
	}
	for {
		s.WS()
		if err := fn(); err != nil {
			return err
		}
		switch s.Peek() {
		case ',':
			s.Pos++
		case ']':
			s.Pos++
			s.Depth--
			return nil
		default:
			return s.Unexpected("after an array element")
		}
	}
}

// Literal consumes the literal word (true, false or null).
func (s *Scanner) Literal(word string) error {
	if len(s.Data)-s.Pos < len(word) || string(s.Data[s.Pos:s.Pos+len(word)]) != word {
		for k := 0; k < len(word) && s.Pos < len(s.Data) && s.Data[s.Pos] == word[k]; k++ {
			s.Pos++
		}
		return s.Unexpected("in literal " + word)
	}
	s.Pos += len(word)
	return nil
}

// IsNull consumes a null at the current position and reports whether there
// was one.
func (s *Scanner) IsNull() (bool, error) {
	if s.Peek() != 'n' {
		return false, nil
	}
	return true, s.Literal("null")
}

// Kind names the kind of JSON value at the current position ("string",
// "object", "array", "boolean", "null", "number"), "" when no value can
// start there.
func (s *Scanner) Kind() string {
	switch c := s.Peek(); {
	case c == '"':
		return "string"
	case c == '{':
		return "object"
	case c == '[':
		return "array"
	case c == 't' || c == 'f':
		return "boolean"
	case c == 'n':
		return "null"
	case c == '-' || (c >= '0' && c <= '9'):
		return "number"
	}
	return ""
}

// Number consumes a JSON number and returns its text.
func (s *Scanner) Number() ([]byte, error) {
	d, start := s.Data, s.Pos
	i := s.Pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		i = digits(d, i)
	default:
		s.Pos = i
		return nil, s.Unexpected("in number")
	}
	if i < len(d) && d[i] == '.' {
		if i+1 >= len(d) || d[i+1] < '0' || d[i+1] > '9' {
			s.Pos = i + 1
			return nil, s.Unexpected("after decimal point in number")
		}
		i = digits(d, i+1)
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			s.Pos = i
			return nil, s.Unexpected("in exponent of number")
		}
		i = digits(d, i)
	}
	s.Pos = i
	return d[start:i], nil
}

func digits(d []byte, i int) int {
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		i++
	}
	return i
}
