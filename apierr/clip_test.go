package apierr

import (
	"errors"
	"strings"
	"testing"
)

// TestErrorfClipsArguments: every string or error argument of a client
// error's message is clipped to MaxEcho bytes; the format and the other
// arguments are kept.
func TestErrorfClipsArguments(t *testing.T) {
	long := strings.Repeat("x", 1000)
	want := strings.Repeat("x", MaxEcho) + "…(1000 bytes)"
	for _, tt := range []struct {
		name   string
		format string
		args   []any
		want   string
	}{
		{"short names kept", "agent %q has no command %q", []any{"a", "b"}, `agent "a" has no command "b"`},
		{"long string", "no agent named %q", []any{long}, `no agent named "` + want + `"`},
		{"long error", "reading: %v", []any{errors.New(long)}, "reading: " + want},
		{"other kinds kept", "%d of %s", []any{1000, long}, "1000 of " + want},
	} {
		if got := Errorf(CodeBadRequest, tt.format, tt.args...).Message; got != tt.want {
			t.Errorf("%s: %.80q…, want %.80q…", tt.name, got, tt.want)
		}
	}
}
