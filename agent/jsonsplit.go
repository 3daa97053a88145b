package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// errSplit describes malformed JSON found while splitting.
var errSplit = errors.New("malformed JSON")

// splitObject calls fn with each member of the JSON object in data and its
// raw value, a subslice of data. It checks the object's own structure and
// finds where each value ends, jumping over strings with bytes.IndexByte,
// so an 8 MiB editor costs a memchr rather than a decode. It does not
// validate inside values: whoever decodes a value validates it.
//
// A member whose key inPlace gives a decoder (inPlace may be nil) goes to
// that decoder instead of fn: it gets data from the value on, decodes the
// value there and returns its length, so that the value is read once.
func splitObject(data []byte, inPlace func(key string) valueDecoder, fn func(key string, raw []byte) error) error {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return fmt.Errorf("%w: expected an object", errSplit)
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return trailing(data, i+1)
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return fmt.Errorf("%w: expected a member name at byte %d", errSplit, i)
		}
		end, err := skipString(data, i)
		if err != nil {
			return err
		}
		key, err := memberName(data[i:end])
		if err != nil {
			return err
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return fmt.Errorf("%w: expected ':' after %q", errSplit, key)
		}
		start := skipSpace(data, i+1)
		if dec := decoderFor(inPlace, key); dec != nil {
			n, err := dec(data[start:])
			if err != nil {
				return err
			}
			end = start + n
		} else {
			if end, err = skipValue(data, start); err != nil {
				return err
			}
			if err := fn(key, data[start:end]); err != nil {
				return err
			}
		}
		i = skipSpace(data, end)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
			continue
		}
		if i < len(data) && data[i] == '}' {
			return trailing(data, i+1)
		}
		return fmt.Errorf("%w: expected ',' or '}' at byte %d", errSplit, i)
	}
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

func memberName(quoted []byte) (string, error) {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return string(quoted[1 : len(quoted)-1]), nil
	}
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		return "", fmt.Errorf("%w: bad member name: %v", errSplit, err)
	}
	return s, nil
}

func trailing(data []byte, i int) error {
	if i = skipSpace(data, i); i != len(data) {
		return fmt.Errorf("%w: data after the object at byte %d", errSplit, i)
	}
	return nil
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just past the string starting at data[i].
func skipString(data []byte, i int) (int, error) {
	j := i + 1
	for {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return 0, fmt.Errorf("%w: unterminated string at byte %d", errSplit, i)
		}
		q := j + k
		n := 0
		for q-1-n > i && data[q-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return q + 1, nil
		}
		j = q + 1
	}
}

// skipValue returns the index just past the value starting at data[i],
// matching brackets but leaving scalars' syntax to the value's decoder.
func skipValue(data []byte, i int) (int, error) {
	if i >= len(data) {
		return 0, fmt.Errorf("%w: missing value at the end", errSplit)
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		return skipNested(data, i)
	}
	j := i
	for j < len(data) {
		switch data[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			if j == i {
				return 0, fmt.Errorf("%w: missing value at byte %d", errSplit, i)
			}
			return j, nil
		}
		j++
	}
	return j, nil
}

// skipNested skips an object or array, checking that brackets match.
func skipNested(data []byte, i int) (int, error) {
	var stack []byte
	for j := i; j < len(data); j++ {
		switch c := data[j]; c {
		case '"':
			end, err := skipString(data, j)
			if err != nil {
				return 0, err
			}
			j = end - 1
		case '{', '[':
			stack = append(stack, c)
			if len(stack) > maxNesting {
				return 0, fmt.Errorf("%w: nested deeper than %d at byte %d", errSplit, maxNesting, j)
			}
		case '}', ']':
			open := byte('{')
			if c == ']' {
				open = '['
			}
			if len(stack) == 0 || stack[len(stack)-1] != open {
				return 0, fmt.Errorf("%w: unexpected %q at byte %d", errSplit, c, j)
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return j + 1, nil
			}
		}
	}
	return 0, fmt.Errorf("%w: unterminated value at byte %d", errSplit, i)
}

// maxNesting matches encoding/json's limit.
const maxNesting = 10000
