package redact_test

import (
	"strings"
	"testing"

	"github.com/agentgw/agentgw/guard/redact"
)

// FuzzRedact: whatever the text, findings lie inside it in order without
// overlapping, each replaced by its placeholder and the text between them
// kept; a text without findings comes back as it is.
func FuzzRedact(f *testing.F) {
	for _, c := range secretCorpus() {
		f.Add(c.text)
	}
	f.Add("key = \"\"\n")
	f.Add("api_key:\n\n\n  abcdefghijklmnop1234567890\n")
	f.Add("-----BEGIN PRIVATE KEY-----")
	r := newRedactor(f)
	f.Fuzz(func(t *testing.T, text string) {
		got, found := r.Redact(text)
		if len(found) == 0 {
			if got != text {
				t.Fatalf("changed without a finding: %q -> %q", text, got)
			}
			return
		}
		var want strings.Builder
		last := 0
		for _, fd := range found {
			if fd.Start < last || fd.End <= fd.Start || fd.End > len(text) {
				t.Fatalf("finding %+v out of order or bounds (text %d bytes, last end %d)", fd, len(text), last)
			}
			want.WriteString(text[last:fd.Start])
			want.WriteString(redact.Placeholder(fd.Rule))
			last = fd.End
		}
		want.WriteString(text[last:])
		if got != want.String() {
			t.Fatalf("redacted %q, want %q", got, want.String())
		}
	})
}
