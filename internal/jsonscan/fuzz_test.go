package jsonscan

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

// validSeeds are inputs valid and not, for the validity fuzzers.
var validSeeds = []string{`1`, `-0.5e+3`, `"a\u00e9"`, `{"a":[1,{},[]]}`, `[1,]`, `01`, `{"a" 1}`,
	`tru`, `"\ud800"`, "\"\x01\"", `[[[[]]]]`, ` {} `, `1.`, `-`, `1e`, "\"\xff\"", `{"\xff":{}}`,
	"[\"\xed\xa0\x80\"]", `{"a":"b","a":1}`, `[1e400]`, "\"\xe2\x82\"", `{"é":"ü"}`}

// FuzzValid checks Skip's validation against encoding/json: the same
// verdict on every input, except that a string holding invalid UTF-8 is
// refused (json.Valid accepts it).
func FuzzValid(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &Scanner{Data: data}
		s.WS()
		err := s.Skip()
		s.WS()
		mine := err == nil && s.Pos == len(data)
		// Outside strings any byte >= 0x80 is a syntax error anyway, so
		// "valid JSON and UTF-8" is the policy exactly.
		if want := json.Valid(data) && utf8.Valid(data); mine != want {
			t.Fatalf("valid(%q) = %v (%v), want %v", data, mine, err, want)
		}
		if err != nil {
			if _, ok := err.(*SyntaxError); !ok {
				t.Fatalf("error %T %v is not a *SyntaxError", err, err)
			}
		}
		// Told to accept invalid UTF-8 (relayed text), the verdict is
		// json.Valid's exactly.
		lenient := &Scanner{Data: data, AcceptInvalidUTF8: true}
		lenient.WS()
		err = lenient.Skip()
		if got := err == nil && lenient.End() == nil; got != json.Valid(data) {
			t.Fatalf("lenient valid(%q) = %v (%v), json.Valid %v", data, got, err, !got)
		}
	})
}

// FuzzString checks string decoding against encoding/json.
func FuzzString(f *testing.F) {
	for _, s := range []string{`a`, `\n\t\"\\\/\b\f\r`, `\u00e9\ud83d\ude00`, `\ud800\u0041`, `\udc00`, "\xff\xfe",
		`\u12`, `abcdefghijklmnop\"qrstuvwxyz`, "}\\n\\n\\t\\t\\t\\t\\t\\t\\t\\t\\t\\treturn\\\\\\\\\\\\\\\\\\\\\\x\\u0041", "日本語のテキスト\\n", `\`, "abcdefgh\xffijklmnop"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		quoted := []byte(`"` + s + `"`)
		p := &Scanner{Data: quoted}
		got, err := p.ReadString()
		// With one-byte arena blocks the string moves to a block of its
		// own as it grows: same result.
		tiny := &Scanner{Data: quoted, block: 1}
		if got2, err2 := tiny.ReadString(); got2 != got || (err2 == nil) != (err == nil) || tiny.Pos != p.Pos {
			t.Fatalf("%q: with tiny blocks %q (%v), else %q (%v)", quoted, got2, err2, got, err)
		}
		// ScanString agrees with ReadString on validity and end.
		sc := &Scanner{Data: quoted}
		end, plain, serr := sc.ScanString()
		if (serr == nil) != (err == nil) || (err == nil && (sc.Pos != p.Pos || end != p.Pos-1)) {
			t.Fatalf("%q: ScanString %d %v, ReadString at %d %v", quoted, end, serr, p.Pos, err)
		}
		if serr == nil && plain && got != string(quoted[1:end]) {
			t.Fatalf("%q: plain but decodes to %q", quoted, got)
		}
		var want string
		werr := json.Unmarshal(quoted, &want)
		if (err == nil && p.Pos == len(quoted)) != (werr == nil && utf8.Valid(quoted)) {
			t.Fatalf("%q: mine %q %v (at %d), encoding/json %v", quoted, got, err, p.Pos, werr)
		}
		if werr == nil && err == nil && got != want {
			t.Fatalf("%q: mine %q, encoding/json %q", quoted, got, want)
		}
	})
}

// FuzzEquivalence decodes any input into Go values with the Scanner
// (decodeAny) and with encoding/json (UseNumber): both accept the same
// inputs (but for invalid UTF-8, refused) and give equal values.
func FuzzEquivalence(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{`{"a":{"b":[1,2,{"c":null}]},"d":"e\nf","g":true,"h":false}`, `{"a":1,"A":2}`,
		`[{"\u0061":"x"}]`, `{"k\"ey":["v\\"]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &Scanner{Data: data}
		got, err := decodeAny(s)
		if err == nil {
			if s.WS(); s.Pos != len(data) {
				err = s.Unexpected("after the top-level value")
			}
		}
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		var want any
		werr := d.Decode(&want)
		if werr == nil && d.More() {
			werr = json.Unmarshal(data, new(any)) // trailing data: let Unmarshal say so
		}
		if werr == nil && !json.Valid(data) {
			werr = json.Unmarshal(data, new(any))
		}
		wantOK := werr == nil && utf8.Valid(data)
		if (err == nil) != wantOK {
			t.Fatalf("%q: mine %v, encoding/json %v (UTF-8 %v)", data, err, werr, utf8.Valid(data))
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: mine %#v, encoding/json %#v", data, got, want)
		}
	})
}

// decodeAny decodes the value at s.Pos as encoding/json does into an any
// with UseNumber (duplicate keys: the last wins).
func decodeAny(s *Scanner) (any, error) {
	switch s.Peek() {
	case '{':
		m := map[string]any{}
		err := s.Object(func(key []byte) error {
			k := string(key)
			v, err := decodeAny(s)
			m[k] = v
			return err
		})
		return m, err
	case '[':
		l := []any{}
		err := s.Array(func() error {
			v, err := decodeAny(s)
			l = append(l, v)
			return err
		})
		return l, err
	case '"':
		return s.ReadString()
	case 't':
		return true, s.Literal("true")
	case 'f':
		return false, s.Literal("false")
	case 'n':
		return nil, s.Literal("null")
	}
	num, err := s.Number()
	return json.Number(num), err
}
