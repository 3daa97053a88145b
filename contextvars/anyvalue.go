package contextvars

import (
	"math"
	"strconv"
)

// anyDecoder decodes the values of unknown variables into what
// encoding/json gives an any (map[string]any, []any, string, float64,
// bool, nil), allocating each container once at its exact size: the
// members and elements wait on two chunked stacks shared by the whole
// value until their container ends. (encoding/json grew every slice by
// appending and made a map per object as it went: "[1,1,…]" cost 49 bytes
// per byte of input.)
type anyDecoder struct {
	vals chunkStack[any]
	keys chunkStack[string]
}

// value decodes the value at the parser's position.
func (d *anyDecoder) value(p *parser) (any, error) {
	switch p.Peek() {
	case '{':
		return d.object(p)
	case '[':
		return d.array(p)
	case '"':
		return p.ReadString()
	case 't':
		return true, p.Literal("true")
	case 'f':
		return false, p.Literal("false")
	case 'n':
		return nil, p.Literal("null")
	}
	num, err := p.Number()
	if err != nil {
		return nil, err
	}
	f, err := strconv.ParseFloat(string(num), 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, &fieldError{reason: "number " + string(num) + " is out of range"}
	}
	return f, nil
}

func (d *anyDecoder) object(p *parser) (any, error) {
	kb, vb := d.keys.n, d.vals.n
	defer d.keys.truncate(kb)
	defer d.vals.truncate(vb)
	err := p.object(func(key []byte) error {
		v, err := d.value(p)
		if err != nil {
			return err
		}
		d.keys.push(string(key))
		d.vals.push(v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	m := make(map[string]any, d.keys.n-kb)
	for i := range d.keys.n - kb {
		m[d.keys.at(kb+i)] = d.vals.at(vb + i)
	}
	return m, nil
}

func (d *anyDecoder) array(p *parser) (any, error) {
	vb := d.vals.n
	defer d.vals.truncate(vb)
	err := p.Array(func() error {
		v, err := d.value(p)
		if err != nil {
			return err
		}
		d.vals.push(v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]any, d.vals.n-vb)
	for i := range out {
		out[i] = d.vals.at(vb + i)
	}
	return out, nil
}

// stackChunk is the number of values in one chunk of a chunkStack.
const stackChunk = 256

// chunkStack is a stack in fixed-size chunks, which are reused and never
// copied: it allocates no more than the most it held at once (plus a chunk).
type chunkStack[T any] struct {
	chunks [][]T
	n      int
}

func (s *chunkStack[T]) push(v T) {
	c := s.n / stackChunk
	if c == len(s.chunks) {
		s.chunks = append(s.chunks, make([]T, stackChunk))
	}
	s.chunks[c][s.n%stackChunk] = v
	s.n++
}

func (s *chunkStack[T]) at(i int) T { return s.chunks[i/stackChunk][i%stackChunk] }

// truncate pops the values from n on, clearing them for the collector.
func (s *chunkStack[T]) truncate(n int) {
	var zero T
	for i := n; i < s.n; i++ {
		s.chunks[i/stackChunk][i%stackChunk] = zero
	}
	s.n = n
}
