package contextvars

import (
	"fmt"
	"strconv"
)

// maxDepth is the deepest nesting accepted, the same limit encoding/json uses.
const maxDepth = 10000

// parser is a validating, allocation-light JSON reader over one input. The
// typed decoders walk it directly, so the big strings of a request (an
// editor's content) are scanned once and copied once.
type parser struct {
	data  []byte
	i     int
	depth int
	// arena holds the decoded strings (stringValue). It is shared, through
	// the pointer, with the parsers made for parts of the same input: the
	// bytes under a string already returned must never be written again.
	arena *[]byte
	// block overrides arenaBlock when positive (tests: tiny blocks make
	// strings move between blocks all the time).
	block int
}

// ws skips JSON whitespace.
func (p *parser) ws() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// peek skips whitespace and returns the next byte, 0 at the end of input.
func (p *parser) peek() byte {
	p.ws()
	if p.i < len(p.data) {
		return p.data[p.i]
	}
	return 0
}

// unexpected is the syntax error for whatever is at the current position.
func (p *parser) unexpected(context string) error {
	if p.i >= len(p.data) {
		return &fieldError{reason: "invalid JSON: unexpected end of input " + context, syntax: true}
	}
	return &fieldError{reason: fmt.Sprintf("invalid JSON: invalid character %s %s at offset %d",
		quoteChar(p.data[p.i]), context, p.i), syntax: true}
}

func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	if c >= 0x80 {
		s = fmt.Sprintf(`"\x%02x"`, c)
	}
	return "'" + s[1:len(s)-1] + "'"
}

// enter counts one more level of nesting.
func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return &fieldError{reason: fmt.Sprintf("invalid JSON: nesting deeper than %d at offset %d", maxDepth, p.i), syntax: true}
	}
	return nil
}

// object reads an object at p.i ('{'), calling fn for each member with the
// parser positioned at the value; fn must consume the value. Errors from fn
// get the member's key prefixed to their field path.
func (p *parser) object(fn func(key []byte) error) error {
	p.i++
	if err := p.enter(); err != nil {
		return err
	}
	if p.peek() == '}' {
		p.i++
		p.depth--
		return nil
	}
	for {
		if p.peek() != '"' {
			return p.unexpected("looking for an object key")
		}
		key, err := p.key()
		if err != nil {
			return err
		}
		if p.peek() != ':' {
			return p.unexpected("after an object key")
		}
		p.i++
		p.ws()
		if err := fn(key); err != nil {
			return under(err, string(key))
		}
		switch p.peek() {
		case ',':
			p.i++
		case '}':
			p.i++
			p.depth--
			return nil
		default:
			return p.unexpected("after an object member")
		}
	}
}

// key reads an object key; plain keys are returned without copying.
func (p *parser) key() ([]byte, error) {
	start := p.i
	end, plain, err := p.scanString()
	if err != nil {
		return nil, err
	}
	if plain {
		return p.data[start+1 : end], nil
	}
	p.i = start
	s, err := p.stringValue()
	return []byte(s), err
}

// array reads an array at p.i ('['), calling fn for each element with the
// parser positioned at it; fn must consume the element.
func (p *parser) array(fn func() error) error {
	p.i++
	if err := p.enter(); err != nil {
		return err
	}
	if p.peek() == ']' {
		p.i++
		p.depth--
		return nil
	}
	for {
		p.ws()
		if err := fn(); err != nil {
			return err
		}
		switch p.peek() {
		case ',':
			p.i++
		case ']':
			p.i++
			p.depth--
			return nil
		default:
			return p.unexpected("after an array element")
		}
	}
}

// literal consumes the literal word (true, false or null).
func (p *parser) literal(word string) error {
	if len(p.data)-p.i < len(word) || string(p.data[p.i:p.i+len(word)]) != word {
		for k := 0; k < len(word) && p.i < len(p.data) && p.data[p.i] == word[k]; k++ {
			p.i++
		}
		return p.unexpected("in literal " + word)
	}
	p.i += len(word)
	return nil
}

// number consumes a JSON number and returns its text.
func (p *parser) number() ([]byte, error) {
	d, start := p.data, p.i
	i := p.i
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		i = digits(d, i)
	default:
		p.i = i
		return nil, p.unexpected("in number")
	}
	if i < len(d) && d[i] == '.' {
		if i+1 >= len(d) || d[i+1] < '0' || d[i+1] > '9' {
			p.i = i + 1
			return nil, p.unexpected("after decimal point in number")
		}
		i = digits(d, i+1)
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			p.i = i
			return nil, p.unexpected("in exponent of number")
		}
		i = digits(d, i)
	}
	p.i = i
	return d[start:i], nil
}

func digits(d []byte, i int) int {
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		i++
	}
	return i
}
