package main

import (
	"bytes"
	"testing"
)

// TestKBWithoutKnowledgeBases: kb index and kb search with a config that
// defines no knowledge base say so and how to add one (not "<nil>"), on
// stderr alone, with exit code 2, as for a config that does not load.
func TestKBWithoutKnowledgeBases(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"kb", "index"},
		{"kb", "index", "docs"},
		{"kb", "search", "docs", "retry backoff"},
	} {
		t.Run(args[1]+"/"+args[len(args)-1], func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"AGENTGW_DATA": t.TempDir()}
			var stdout, stderr bytes.Buffer
			code := run(args, func(k string) string { return env[k] }, nil, &stdout, &stderr)
			if code != 2 {
				t.Errorf("exit code %d, want 2", code)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout %q, want nothing", stdout.String())
			}
			if stderr.String() != noKnowledgeBases {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr.String(), noKnowledgeBases)
			}
		})
	}
}
