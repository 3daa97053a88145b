package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestNextMember(t *testing.T) {
	in := []byte(" {\"a\" : [1,{\"b\":2}] ,\n\"\\u0069d\":\"x\xff\",\"c\":{}}")
	s := &Scanner{Data: in, AcceptInvalidUTF8: true}
	if err := s.OpenObject(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for first := true; ; first = false {
		m, ok, err := s.NextMember(first)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		got = append(got, string(in[m.KeyStart:m.KeyEnd])+"="+string(in[m.ValueStart:m.ValueEnd]))
	}
	want := []string{`"a"=[1,{"b":2}]`, `"\u0069d"="x` + "\xff" + `"`, `"c"={}`}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("members %q, want %q", got, want)
	}
	if err := s.End(); err != nil || !s.Newline || s.Depth != 0 {
		t.Errorf("End %v, Newline %v, Depth %d", err, s.Newline, s.Depth)
	}
}

func TestNextMemberMalformed(t *testing.T) {
	for _, in := range []string{`[]`, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{,}`, `{"a":1 "b":2}`, `{"a":[}`, `{"a":"\x"}`} {
		s := &Scanner{Data: []byte(in)}
		err := s.OpenObject()
		for first := true; err == nil; first = false {
			var ok bool
			if _, ok, err = s.NextMember(first); !ok {
				break
			}
		}
		if err == nil {
			t.Errorf("%s: no error", in)
		} else if _, ok := err.(*SyntaxError); !ok {
			t.Errorf("%s: error %T, want *SyntaxError", in, err)
		}
	}
}

func TestAcceptInvalidUTF8(t *testing.T) {
	in := []byte("\"a\xffb\xe2\x82\"")
	strict := &Scanner{Data: in}
	if err := strict.Skip(); err == nil {
		t.Error("strict scanner accepted invalid UTF-8")
	}
	lenient := &Scanner{Data: in, AcceptInvalidUTF8: true}
	if err := lenient.Skip(); err != nil || lenient.Pos != len(in) {
		t.Errorf("lenient Skip: %v at %d", err, lenient.Pos)
	}
	lenient = &Scanner{Data: in, AcceptInvalidUTF8: true}
	var want string
	if err := json.Unmarshal(in, &want); err != nil {
		t.Fatal(err)
	}
	if got, err := lenient.ReadString(); err != nil || got != want {
		t.Errorf("lenient ReadString = %q, %v; want %q as encoding/json", got, err, want)
	}
}

// TestSkipAllocs: walking a chunk's members and skipping values nested up
// to 64 levels allocates nothing (the relay does it for every chunk).
func TestSkipAllocs(t *testing.T) {
	in := []byte(`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"c","function":{"arguments":"{}"}}]}}],` +
		`"deep":` + strings.Repeat("[", 60) + strings.Repeat("]", 60) + `}`)
	allocs := testing.AllocsPerRun(100, func() {
		s := Scanner{Data: in}
		if err := s.OpenObject(); err != nil {
			t.Fatal(err)
		}
		for first := true; ; first = false {
			_, ok, err := s.NextMember(first)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per walk, want 0", allocs)
	}
}

// FuzzMembers walks any input as an object with AcceptInvalidUTF8, as the
// SSE relay does: it is accepted exactly when encoding/json's validator
// accepts it as an object, every value found is valid JSON, and Newline
// tells whether the input had a line break (valid JSON only has them in
// whitespace).
func FuzzMembers(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte("{\n\"a\":\r[1,\n2],\"b\":{}}"))
	f.Add([]byte("{\"\xff\":\"\xed\xa0\x80\"}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &Scanner{Data: data, AcceptInvalidUTF8: true}
		err := s.OpenObject()
		for first := true; err == nil; first = false {
			var m Member
			var ok bool
			if m, ok, err = s.NextMember(first); !ok {
				break
			}
			if k := data[m.KeyStart:m.KeyEnd]; !json.Valid(k) || k[0] != '"' {
				t.Fatalf("%q: key %q", data, k)
			}
			if v := data[m.ValueStart:m.ValueEnd]; !json.Valid(v) || len(bytes.TrimSpace(v)) != len(v) {
				t.Fatalf("%q: value %q", data, v)
			}
		}
		if err == nil {
			err = s.End()
		}
		trimmed := bytes.TrimLeft(data, " \t\r\n")
		want := json.Valid(data) && len(trimmed) > 0 && trimmed[0] == '{'
		if (err == nil) != want {
			t.Fatalf("%q: error %v, want valid %v", data, err, want)
		}
		if err == nil && s.Newline != bytes.ContainsAny(data, "\r\n") {
			t.Fatalf("%q: Newline %v", data, s.Newline)
		}
	})
}

// FuzzAppendUnquoted checks AppendUnquoted against encoding/json and
// against ReadString (which accepts invalid UTF-8 only when told to).
func FuzzAppendUnquoted(f *testing.F) {
	for _, s := range []string{`""`, `"a"`, `"\n\t\"\\\/\b\f\r"`, `"\u00e9\ud83d\ude00"`, `"\ud83d"`, `"\ud83dx"`,
		`"\ud83d\u0041"`, `"\udc00\ud800"`, "\"\xff\xfe\"", `"\u12"`, `"\x"`, `"a\"`, `"`, "\"\x01\"", `"a"b"`,
		`"é"`, "\"abcdefgh\xe2\x82ijklmnop\"", `"abcdefghijklmnopqrstuvwxyz\\"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, q []byte) {
		got, ok := AppendUnquoted([]byte("pre"), q)
		var want string
		err := json.Unmarshal(q, &want)
		isString := len(q) > 1 && q[0] == '"' && q[len(q)-1] == '"'
		if ok != (err == nil && isString) {
			t.Fatalf("AppendUnquoted(%q) ok = %v, encoding/json: %v", q, ok, err)
		}
		if !ok {
			if string(got) != "pre" {
				t.Fatalf("AppendUnquoted(%q) failed but changed dst to %q", q, got)
			}
			return
		}
		if string(got) != "pre"+want {
			t.Fatalf("AppendUnquoted(%q) = %q, encoding/json: %q", q, got[3:], want)
		}
		s := &Scanner{Data: q, AcceptInvalidUTF8: true, block: 1}
		if str, err := s.ReadString(); err != nil || str != want {
			t.Fatalf("ReadString(%q) = %q, %v; want %q", q, str, err, want)
		}
	})
}

// FuzzPlainASCII holds PlainASCII to a byte loop.
func FuzzPlainASCII(f *testing.F) {
	for _, s := range []string{"", "plain", "0123456789abcdef\"", "abcdefg\x1f", "abcdefgh\x7f\x80", "é", "abcdefgh\\ijk", "a~}|{ !#"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := 0
		for want < len(s) && s[want] >= 0x20 && s[want] < 0x80 && s[want] != '"' && s[want] != '\\' {
			want++
		}
		if got := PlainASCII(s); got != want {
			t.Fatalf("PlainASCII(%q) = %d, want %d", s, got, want)
		}
	})
}
