package exclude_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/agentgw/agentgw/contextvars"
	"github.com/agentgw/agentgw/guard/exclude"
	"github.com/agentgw/agentgw/internal/golden"
)

// request is a request's context with an excluded editor, an excluded
// package file beside a kept one, and references from an excluded file
// and a kept one.
const request = `[
 {"name": "userInputPrompt", "value": "why does the connection fail?"},
 {"name": "activeEditor", "value": {"filePath": "/home/dev/shop/.env", "language": "dotenv",
  "content": "DB_PASSWORD=hunter2hunter2\nSTRIPE_KEY=abc\n", "cursorOffset": 12,
  "startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 27,
  "selectedRanges": [{"content": "DB_PASSWORD=hunter2hunter2", "startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 27,
   "contentBeforeSelection": "", "contentAfterSelection": "\nSTRIPE_KEY=abc\n"}],
  "visibleRange": {"content": "DB_PASSWORD=hunter2hunter2\n", "startLine": 1, "startColumn": 1, "endLine": 2, "endColumn": 1}}},
 {"name": "packageFiles", "value": [{"filepath": "go.mod", "content": "module shop\n"}, {"filepath": "deploy/secrets/prod.yaml", "content": "token: x\n"}]},
 {"name": "knowledgeBase", "value": [{"knowledgeBaseId": "docs", "references": [
  {"score": 0.9, "chunk": "ssh key body", "metadata": {"fileName": "keys/deploy.pem", "sourceType": "code", "source": "/srv/repo"}},
  {"score": 0.8, "chunk": "Run make.", "metadata": {"fileName": "README.md", "sourceType": "doc", "source": "/srv/repo"}}]}]}
]`

// TestWithhold: the excluded files' content is replaced by its note
// everywhere the context shows it, the rest is kept (golden).
func TestWithhold(t *testing.T) {
	set, err := contextvars.Decode([]byte(request))
	if err != nil {
		t.Fatal(err)
	}
	w := exclude.Withhold(exclude.MustCompile(".env", "secrets/**", "*.pem"), set)
	want := []exclude.Withheld{
		{Where: exclude.WhereEditor, Path: "/home/dev/shop/.env"},
		{Where: exclude.WherePackages, Path: "deploy/secrets/prod.yaml"},
		{Where: exclude.WhereKnowledge, Path: "keys/deploy.pem"},
	}
	if !slices.Equal(w, want) {
		t.Errorf("withheld %+v, want %+v", w, want)
	}
	data, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, data, "", " "); err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"hunter2", "STRIPE_KEY", "token: x", "ssh key body"} {
		if bytes.Contains(out.Bytes(), []byte(secret)) {
			t.Errorf("%q is still in the context", secret)
		}
	}
	golden.Check(t, "testdata/withheld.json", append(out.Bytes(), '\n'))
	if w := exclude.Withhold(nil, set); w != nil {
		t.Errorf("an empty policy withheld %v", w)
	}
}
