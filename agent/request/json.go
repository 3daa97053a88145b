package request

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentgw/agentgw/internal/jsonscan"
)

// errSplit describes malformed JSON found while splitting.
var errSplit = errors.New("malformed JSON")

// splitObject calls fn with each member of the JSON object in data and its
// raw value, a subslice of data. It reads data with the request path's
// tokenizer (internal/jsonscan), which validates every value as it skips it
// (strings included: invalid UTF-8 is malformed JSON), so what fn gets is
// valid JSON and the body is read once, in linear time.
//
// A member whose key inPlace gives a decoder (inPlace may be nil) goes to
// that decoder instead of fn: it gets data from the value on, decodes the
// value there and returns its length, so that the value is read once.
func splitObject(data []byte, inPlace func(key string) valueDecoder, fn func(key string, raw []byte) error) error {
	s := &jsonscan.Scanner{Data: data}
	if s.Peek() != '{' {
		return fmt.Errorf("%w: expected an object", errSplit)
	}
	err := s.Object(func(k []byte) error {
		key := string(k)
		start := s.Pos
		if dec := decoderFor(inPlace, key); dec != nil {
			n, err := dec(data[start:])
			s.Pos = start + n
			return err
		}
		if err := s.Skip(); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		return fn(key, data[start:s.Pos])
	})
	if err == nil {
		if s.WS(); s.Pos != len(data) {
			err = s.Unexpected("after the object")
		}
	}
	var se *jsonscan.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%w: %s", errSplit, strings.Replace(err.Error(), "invalid JSON: ", "", 1))
	}
	return err
}

// valueDecoder decodes the JSON value at the start of rest and returns its
// length.
type valueDecoder func(rest []byte) (int, error)

func decoderFor(inPlace func(key string) valueDecoder, key string) valueDecoder {
	if inPlace == nil {
		return nil
	}
	return inPlace(key)
}
