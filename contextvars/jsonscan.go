package contextvars

import "github.com/agentgw/agentgw/internal/jsonscan"

// parser is the request path's JSON tokenizer (internal/jsonscan) with the
// typed decoders of the known variables: they walk it directly, so the big
// strings of a request (an editor's content) are scanned once and copied
// once.
type parser struct {
	jsonscan.Scanner
}

// newParser returns a parser over data; block sets the string arena's
// block size (0: the default; tests use tiny ones).
func newParser(data []byte, block int) *parser {
	p := &parser{Scanner: jsonscan.Scanner{Data: data}}
	p.SetArenaBlock(block)
	return p
}

// object reads an object at the current position ('{'), calling fn for each
// member with the parser positioned at the value; errors from fn get the
// member's key prefixed to their field path.
func (p *parser) object(fn func(key []byte) error) error {
	return p.Object(func(key []byte) error {
		if err := fn(key); err != nil {
			return under(err, string(key))
		}
		return nil
	})
}
