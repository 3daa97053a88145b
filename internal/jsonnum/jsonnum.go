package jsonnum

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
)

// Decode decodes data into v, the numbers of its interface values as
// json.Number (Normalize turns them into Go numbers). Data after the
// value is an error.
func Decode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("data after the value")
	}
	return nil
}

// Normalize turns the json.Numbers of decoded data into ints when whole
// and in int64's range, float64s otherwise (integral float64s below 2^53
// into ints too, as stepkind.WholeNumbers does), in place for maps and
// lists. A number out of float64's range keeps its digits as a string.
func Normalize(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil && int64(int(i)) == i {
			return int(i)
		}
		f, err := t.Float64()
		if err != nil {
			return t.String() // out of float64's range: keep the digits
		}
		if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int(f)
		}
		return f
	case map[string]any:
		for k, e := range t {
			t[k] = Normalize(e)
		}
	case []any:
		for i, e := range t {
			t[i] = Normalize(e)
		}
	}
	return v
}
