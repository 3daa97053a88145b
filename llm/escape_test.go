package llm

import "testing"

// TestHasEscapedLetter: which chunks the relay reads by their members for a
// key that may be spelled with escapes.
func TestHasEscapedLetter(t *testing.T) {
	tests := []struct {
		data string
		want bool
	}{
		{`{"\u0065rror":{}}`, true},
		{`{"err\u006Fr":{}}`, true},
		{`{"\u0041":1}`, true},
		{`{"a":"line\nline\t\"q\" \u00e9 \u2028 \\"}`, false},
		{`{"a":"\\u0065rror"}`, false}, // an escaped backslash, then text
		{`{"a":"\\\u0065"}`, true},
		{`{"a":"\u00`, false},
		{`\u0065`, true},
		{`\u006`, false},
		{``, false},
	}
	for _, tt := range tests {
		if got := hasEscapedLetter([]byte(tt.data)); got != tt.want {
			t.Errorf("hasEscapedLetter(%s) = %v, want %v", tt.data, got, tt.want)
		}
	}
}
