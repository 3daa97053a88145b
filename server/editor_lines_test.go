package server_test

import (
	"strings"
	"testing"

	"github.com/agentgw/agentgw/apierr"
)

// TestEditorLineZero: activeEditor lines count from 1 (docs/protocol.md
// §6), so a line 0 anywhere in the value is a 422 INVALID_CONTEXT_VARIABLE
// naming the field, like any other out-of-range position (it used to be
// accepted). Columns and the cursor offset may still be 0.
func TestEditorLineZero(t *testing.T) {
	t.Parallel()
	const pre = `{"agent":"chat","command":"explain","contextVariables":[{"name":"activeEditor","value":{"filePath":"a.go","content":"x",`
	tests := []struct {
		name, value, msg string
	}{
		{"startLine", `"startLine":0,"endLine":1`, `context variable "activeEditor": field "startLine": position 0 is out of range (1 to 2147483647)`},
		{"endLine", `"startLine":1,"endLine":0`, `context variable "activeEditor": field "endLine": position 0 is out of range (1 to 2147483647)`},
		{"selectedRanges", `"startLine":1,"endLine":1,"selectedRanges":[{"content":"x","startLine":0,"endLine":1}]`, `context variable "activeEditor": field "selectedRanges.startLine": position 0 is out of range (1 to 2147483647)`},
		{"visibleRange", `"startLine":1,"endLine":1,"visibleRange":{"content":"x","startLine":1,"endLine":0}`, `context variable "activeEditor": field "visibleRange.endLine": position 0 is out of range (1 to 2147483647)`},
	}
	gw := newGateway(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := send(t, "POST", gw.URL+"/agent", "application/json", strings.NewReader(pre+tt.value+`}}]}`))
			if c := errorResponse(t, r, 422, apierr.CodeInvalidContext); c.Message != tt.msg {
				t.Errorf("message %q, want %q", c.Message, tt.msg)
			}
		})
	}
	// Lines from 1 with columns and cursor offset 0 are accepted.
	ok := pre + `"cursorOffset":0,"startLine":1,"startColumn":0,"endLine":1,"endColumn":0}}]}`
	readStream(t, send(t, "POST", gw.URL+"/agent", "application/json", strings.NewReader(ok)), "[DONE]")
}
