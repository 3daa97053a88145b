package llm

import (
	"net/http"
	"testing"
)

func TestRedactor(t *testing.T) {
	h := http.Header{"Authorization": {"Bearer " + pluginToken}, "X-Api-Key": {pluginAPI}, "User-Agent": {"ide-plugin"}}
	r := NewRedactor([]string{extraSecret, "abc"}, h)
	tests := []struct{ in, want string }{
		{"token " + pluginToken + " refused", "token [REDACTED] refused"},
		{"Bearer " + pluginToken, "[REDACTED]"},
		{"key=" + pluginAPI, "key=[REDACTED]"},
		{"s=" + extraSecret, "s=[REDACTED]"},
		{"abc and ide-plugin stay", "abc and ide-plugin stay"},
	}
	for _, tt := range tests {
		if got := r.Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := (*Redactor)(nil).Redact("x " + pluginToken); got != "x "+pluginToken {
		t.Errorf("nil Redactor changed the text: %q", got)
	}
	if got := NewRedactor(nil).Redact(pluginToken); got != pluginToken {
		t.Errorf("empty Redactor changed the text: %q", got)
	}
}
