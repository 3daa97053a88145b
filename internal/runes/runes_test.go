package runes

import "testing"

func TestTrimPartial(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"abc", "abc"},
		{"hé", "hé"},
		{"h\xc3", "h"},                             // é cut after its first byte
		{"a\xe2\x82", "a"},                         // € cut after two of its three bytes
		{"a\xf0\x9f\x98", "a"},                     // 😀 cut after three of its four bytes
		{"a\xf0\x9f\x98\x80", "a😀"},                // whole
		{"ab\xe2\x82\xac", "ab€"},                  // whole
		{"a\x80\x80\x80\x80", "a\x80\x80\x80\x80"}, // invalid, not a cut: kept
		{"a\xff", "a\xff"},                         // invalid start byte: kept
	} {
		if got := TrimPartial(tt.in); got != tt.want {
			t.Errorf("TrimPartial(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := string(TrimPartial([]byte(tt.in))); got != tt.want {
			t.Errorf("TrimPartial([]byte(%q)) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestIsDecimal(t *testing.T) {
	for s, want := range map[string]bool{"": false, "0": true, "0123": true, "-1": false, "1a": false, "١": false, " 1": false} {
		if got := IsDecimal(s); got != want {
			t.Errorf("IsDecimal(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestClip(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"", 4, ""},
		{"abcd", 4, "abcd"},
		{"abcde", 4, "abcd…(5 bytes)"},
		{"abcé", 4, "abc…(5 bytes)"}, // é is not cut in half
		{"ab\xffde", 3, "ab\xff…(5 bytes)"},
	} {
		if got := Clip(tt.in, tt.n); got != tt.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}
