package contextvars

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// typeErr reports that the value at the current position is not a want,
// unless the value is not even valid JSON: that is the error then.
func (p *parser) typeErr(want string) error {
	got := p.Kind()
	if q := *p; got != "" {
		if err := q.Skip(); err != nil {
			return err
		}
	}
	if got == "" {
		return p.Unexpected("looking for the beginning of a value")
	}
	return &fieldError{reason: "expected " + want + ", got " + got}
}

// str decodes a string into dst; null leaves dst unchanged (as encoding/json does).
func (p *parser) str(dst *string) error {
	if p.Peek() != '"' {
		if null, err := p.IsNull(); null || err != nil {
			return err
		}
		return p.typeErr("string")
	}
	s, err := p.ReadString()
	if err == nil {
		*dst = s
	}
	return err
}

// strPtr decodes an optional string; null makes it nil.
func (p *parser) strPtr(dst **string) error {
	if null, err := p.IsNull(); null || err != nil {
		*dst = nil
		return err
	}
	s := new(string)
	if err := p.str(s); err != nil {
		return err
	}
	*dst = s
	return nil
}

// numberToken reads a number's text. null reports a null (nothing else
// read); any other kind of value is a type error.
func (p *parser) numberToken() (num []byte, null bool, err error) {
	if c := p.Peek(); c != '-' && (c < '0' || c > '9') {
		if null, err = p.IsNull(); null || err != nil {
			return nil, null, err
		}
		return nil, false, p.typeErr("number")
	}
	num, err = p.Number()
	return num, false, err
}

// parseInt parses a JSON number that must be an integer fitting an int.
func parseInt(num []byte) (int, bool) {
	if len(num) < 19 {
		n, neg := 0, false
		for k, c := range num {
			if k == 0 && c == '-' {
				neg = true
				continue
			}
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		if neg {
			n = -n
		}
		return n, true
	}
	n, err := strconv.ParseInt(string(num), 10, strconv.IntSize)
	return int(n), err == nil
}

// MaxPosition is the largest line, column, cursor offset or knowledge-base
// position a request may give (the 32-bit positions of IDEs); positions are
// never negative.
const MaxPosition = math.MaxInt32

// posVal decodes a column or offset into dst: an integer from 0 to
// MaxPosition (a negative or huge one is an *Error naming the field, a 422).
// null leaves dst unchanged.
func (p *parser) posVal(dst *int) error { return p.posMin(dst, 0) }

// lineVal decodes a line into dst: lines count from 1 (docs/protocol.md
// §6), so 0 is refused like any other out-of-range position.
func (p *parser) lineVal(dst *int) error { return p.posMin(dst, 1) }

// posMin decodes an integer from lo to MaxPosition into dst; null leaves dst
// unchanged.
func (p *parser) posMin(dst *int, lo int) error {
	num, null, err := p.numberToken()
	if null || err != nil {
		return err
	}
	n, ok := parseInt(num)
	if !ok {
		if !isInteger(num) {
			return &fieldError{reason: "expected integer, got number " + string(num)}
		}
		return &fieldError{reason: fmt.Sprintf("position %.40s is out of range (%d to %d)", num, lo, MaxPosition)}
	}
	if n < lo || n > MaxPosition {
		return &fieldError{reason: fmt.Sprintf("position %d is out of range (%d to %d)", n, lo, MaxPosition)}
	}
	*dst = n
	return nil
}

// isInteger reports whether the JSON number num is written as an integer.
func isInteger(num []byte) bool {
	for _, c := range num {
		if c == '.' || c == 'e' || c == 'E' {
			return false
		}
	}
	return true
}

// posPtr decodes an optional position; null makes it nil.
func (p *parser) posPtr(dst **int) error {
	if null, err := p.IsNull(); null || err != nil {
		*dst = nil
		return err
	}
	n := new(int)
	if err := p.posVal(n); err != nil {
		return err
	}
	*dst = n
	return nil
}

// float decodes a number into dst; null leaves dst unchanged.
func (p *parser) float(dst *float64) error {
	num, null, err := p.numberToken()
	if null || err != nil {
		return err
	}
	f, err := strconv.ParseFloat(string(num), 64)
	if err != nil || math.IsInf(f, 0) {
		return &fieldError{reason: "number " + string(num) + " is out of range"}
	}
	*dst = f
	return nil
}

// fields decodes an object member by member; null leaves the target zero.
func (p *parser) fields(fn func(key []byte) error) error {
	if p.Peek() != '{' {
		if null, err := p.IsNull(); null || err != nil {
			return err
		}
		return p.typeErr("object")
	}
	return p.object(fn)
}

// decodeSlice decodes an array into dst with elem for each element; null
// makes dst nil and [] a non-nil empty slice. The elements are counted
// first (a validating skip; the known variables nest arrays at most two
// deep, so the input is read at most three times) and decoded in place
// into a slice of exactly that length: growing it by appending allocated
// up to five times the slice for arrays of tiny elements ("[{},{},…]").
func decodeSlice[T any](p *parser, dst *[]T, elem func(*T) error) error {
	if p.Peek() != '[' {
		if null, err := p.IsNull(); null || err != nil {
			*dst = nil
			return err
		}
		return p.typeErr("array")
	}
	// A malformed array is decoded anyway, for the error to name the
	// element's field.
	n, _ := p.countElements()
	out := make([]T, n)
	k := 0
	err := p.Array(func() error {
		if k == len(out) {
			out = append(out, *new(T))
		}
		err := elem(&out[k])
		k++
		return err
	})
	if err != nil {
		return err
	}
	*dst = out
	return nil
}

// countElements counts the elements of the array at the current position
// without moving, validating it on the way.
func (p *parser) countElements() (int, error) {
	q := *p
	n := 0
	err := q.Array(func() error {
		n++
		return q.Skip()
	})
	return n, err
}

// matchKey returns the name in names that key matches, exactly or else
// ignoring case (as encoding/json matches field names), or "".
func matchKey(key []byte, names ...string) string {
	for _, n := range names {
		if string(key) == n {
			return n
		}
	}
	for _, n := range names {
		if strings.EqualFold(string(key), n) {
			return n
		}
	}
	return ""
}
