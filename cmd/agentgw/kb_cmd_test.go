package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/contextvars"
	"github.com/agentgw/agentgw/knowledge/kb"
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

// kbTree writes a config with one knowledge base "docs" over a directory of
// n Markdown files (file 0 alone says "zebra"), and returns the
// environment that points kb at it.
func kbTree(t *testing.T, n int) map[string]string {
	t.Helper()
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	if err := os.Mkdir(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		text := fmt.Sprintf("# Note %d\n\nretry with backoff, note %d\n", i, i)
		if i == 0 {
			text = "# Zebra\n\nThe zebra retries.\nWith backoff.\n"
		}
		if err := os.WriteFile(filepath.Join(docs, fmt.Sprintf("n%02d.md", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(dir, "gw.yaml")
	yaml := "knowledgeBases:\n  - id: docs\n    sources:\n      - dir: " + docs + "\n        paths: [\"**/*.md\"]\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"AGENTGW_DATA": filepath.Join(dir, "data"), "AGENTGW_CONFIG": cfg}
}

// TestKBIndexProgressAndSearchOutput: kb index into a buffer (no terminal)
// prints a plain progress line at every 10% of the files; kb search
// --json prints the hits as the references of POST
// /knowledge-bases/{id}/search, and --show prints each hit's text under
// its line.
func TestKBIndexProgressAndSearchOutput(t *testing.T) {
	t.Parallel()
	env := kbTree(t, 20)
	getenv := func(k string) string { return env[k] }
	var stdout, stderr bytes.Buffer
	if code := run([]string{"kb", "index"}, getenv, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("kb index: exit %d\n%s", code, stderr.String())
	}
	var progress []string
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.HasPrefix(l, "indexing ") {
			progress = append(progress, l)
		}
	}
	var want []string
	for i := 2; i <= 20; i += 2 {
		want = append(want, fmt.Sprintf("indexing docs (%s): %d of 20 files (%d%%)", "dir:"+filepath.Dir(env["AGENTGW_CONFIG"])+"/docs", i, i*5))
	}
	if !slices.Equal(progress, want) {
		t.Errorf("progress lines:\n%s\nwant:\n%s\nstderr:\n%s", strings.Join(progress, "\n"), strings.Join(want, "\n"), stderr.String())
	}

	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"kb", "search", "--json", "docs", "zebra"}, getenv, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("kb search --json: exit %d\n%s", code, stderr.String())
	}
	var refs []contextvars.Reference
	if err := json.Unmarshal(stdout.Bytes(), &refs); err != nil || len(refs) != 1 {
		t.Fatalf("kb search --json: %v, %d refs\n%s", err, len(refs), stdout.String())
	}
	r := refs[0]
	src := filepath.Join(filepath.Dir(env["AGENTGW_CONFIG"]), "docs", "n00.md")
	wantJSON := fmt.Sprintf(`[
  {
    "score": %s,
    "chunk": "# Zebra\n\nThe zebra retries.\nWith backoff.",
    "metadata": {
      "fileName": "n00.md",
      "sourceType": "doc",
      "source": %q,
      "startPos": 1,
      "endPos": 4
    }
  }
]
`, strconv.FormatFloat(r.Score, 'g', -1, 64), src)
	if stdout.String() != wantJSON {
		t.Errorf("kb search --json:\n%s\nwant:\n%s", stdout.String(), wantJSON)
	}

	stdout.Reset()
	if code := run([]string{"kb", "search", "--show", "docs", "zebra"}, getenv, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("kb search --show: exit %d\n%s", code, stderr.String())
	}
	wantShow := fmt.Sprintf("%.3f  n00.md:1-4  Zebra\n    # Zebra\n\n    The zebra retries.\n    With backoff.\n\n", r.Score)
	if stdout.String() != wantShow {
		t.Errorf("kb search --show:\n%q\nwant:\n%q", stdout.String(), wantShow)
	}
}

// TestKBProgressPrinter: the progress of kb index, as a plain line at every
// further 10% off a terminal, and as a progressbar bar on one.
func TestKBProgressPrinter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		terminal bool
		total    int
		want     string
	}{
		{name: "plain", total: 4, want: "indexing k (s): 1 of 4 files (25%)\nindexing k (s): 2 of 4 files (50%)\nindexing k (s): 3 of 4 files (75%)\nindexing k (s): 4 of 4 files (100%)\n"},
		{name: "plain, no files", total: 0, want: ""},
		// The bar's elapsed and left times vary: only its last frame is
		// compared, from the count on.
		{name: "bar", terminal: true, total: 2, want: "| (2/2)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			f := newProgressPrinter(&b, tc.terminal)
			for i := 0; i < tc.total; i++ {
				f(kb.Progress{KB: "k", Source: "s", Done: i, Total: tc.total})
			}
			f(kb.Progress{KB: "k", Source: "s", Done: tc.total, Total: tc.total})
			got := b.String()
			if tc.terminal {
				if !strings.Contains(got, "\rk s  50% |███████████████               | (1/2)") {
					t.Errorf("got %q, want a bar half full", got)
				}
				got = got[max(0, len(got)-len(tc.want)):]
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
