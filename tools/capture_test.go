package tools

import (
	"reflect"
	"testing"
)

func TestStderrBuffer(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{"short", []string{"ab", "cd"}, "abcd"},
		{"exactly full", []string{"abcdef", "gh"}, "abcdefgh"},
		{"middle dropped", []string{"abcd", "efgh", "ijkl"}, "abcd\n[...]\nijkl"},
		{"one big write", []string{"0123456789"}, "0123\n[...]\n6789"},
		{"tail slides", []string{"abcd", "e", "f", "g", "h", "i"}, "abcd\n[...]\nfghi"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newStderrBuffer(8)
			for _, w := range tc.writes {
				if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if got := b.String(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestHeadBuffer(t *testing.T) {
	b := &headBuffer{max: 5}
	for _, w := range []string{"ab", "cdef", "gh"} {
		if n, _ := b.Write([]byte(w)); n != len(w) {
			t.Fatalf("short write %d", n)
		}
	}
	got, cut := b.bytes()
	if string(got) != "abcde" || !cut {
		t.Errorf("got %q cut %v", got, cut)
	}
}

func TestCutText(t *testing.T) {
	tests := []struct {
		in   string
		cut  bool
		want string
	}{
		{"  text \n", false, "text"},
		{"abc", true, "abc\n[output cut at 3 bytes]"},
		{"ab\xc3", true, "ab\n[output cut at 3 bytes]"},           // half of "é" dropped
		{"a\xe2\x82", true, "a\n[output cut at 3 bytes]"},         // two thirds of "€" dropped
		{"ab\xff", true, "ab\xff\n[output cut at 3 bytes]"},       // invalid byte kept as is
		{"a\xc3\xa9", true, "a\xc3\xa9\n[output cut at 3 bytes]"}, // whole rune kept
	}
	for _, tc := range tests {
		if got := cutText([]byte(tc.in), tc.cut, len(tc.in)); got != tc.want {
			t.Errorf("cutText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestJSONOrText(t *testing.T) {
	tests := []struct {
		in   string
		want any
	}{
		{`{"a":1}`, map[string]any{"a": 1.0}},
		{" 42\n", 42.0},
		{`"quoted"`, "quoted"},
		{"null", nil},
		{"", ""},
		{"plain words\n", "plain words"},
		{`{"a":1} trailing`, `{"a":1} trailing`},
	}
	for _, tc := range tests {
		if got := jsonOrText([]byte(tc.in)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("jsonOrText(%q) = %#v, want %#v", tc.in, got, tc.want)
		}
	}
}

func TestClosest(t *testing.T) {
	names := []string{"builtin", "frontend", "http", "javascript", "mcp", "native", "python", "wasm"}
	for in, want := range map[string]string{"pyton": "python", "JS": "", "Python": "python", "wsam": "wasm", "htp": "http", "rust": ""} {
		got, _ := closest(in, names)
		if got != want {
			t.Errorf("closest(%q) = %q, want %q", in, got, want)
		}
	}
}
