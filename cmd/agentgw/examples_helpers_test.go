package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/agentgw/agentgw/gitrepo"
)

// The files of the origin repository's main branch.
var originMain = map[string]string{
	"README.md":                 "# proj\n\nA calculator.\n",
	"go.mod":                    "module example.com/proj\n\ngo 1.22\n",
	"cmd/app/main.go":           "package main\n\nimport \"example.com/proj/internal/calc\"\n\nfunc main() { println(calc.Add(1, 2)) }\n",
	"internal/calc/add.go":      "package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n",
	"internal/calc/add_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"1+2\")\n\t}\n}\n",
	"docs/guide.md":             "# Guide\n\nRun it.\n",
}

// The feature branch changes add.go (one line changed, five added), adds
// sub.go and deletes docs/guide.md.
const (
	featureAdd = "package calc\n\n// Add returns a + b.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n" +
		"\n// Double returns twice a.\nfunc Double(a int) int {\n\treturn Add(a, a)\n}\n"
	featureSub = "package calc\n\nfunc Sub(a, b int) int { return a - b }\n"
	// mainLater is README.md on main after feature branched off: a review
	// of feature (from the merge base) must not show it.
	mainLater = "# proj\n\nA calculator, moved on.\n"
)

// newOrigin makes the "origin" repository, a working copy on main: main
// with originMain, a feature branch off it with its changes, then one more
// commit on main. HEAD is main.
func newOrigin(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	repo, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: plumbing.Main}})
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range originMain {
		writeFile(t, dir, name, content)
	}
	commitOrigin(t, wt, "main: the calculator", 0)
	checkout(t, wt, "feature", true)
	writeFile(t, dir, "internal/calc/add.go", featureAdd)
	writeFile(t, dir, "internal/calc/sub.go", featureSub)
	if _, err := wt.Remove("docs/guide.md"); err != nil {
		t.Fatal(err)
	}
	commitOrigin(t, wt, "feature: Double and Sub", 1)
	checkout(t, wt, "main", false)
	writeFile(t, dir, "README.md", mainLater)
	commitOrigin(t, wt, "main: moves on", 2)
	return dir
}

func checkout(t *testing.T, wt *git.Worktree, branch string, create bool) {
	t.Helper()
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName(branch), Create: create}); err != nil {
		t.Fatalf("checkout %s: %v", branch, err)
	}
}

func commitOrigin(t *testing.T, wt *git.Worktree, msg string, minute int) {
	t.Helper()
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "Ada Lovelace", Email: "ada@example.com", When: time.Date(2024, 1, 2, 3, minute, 0, 0, time.UTC)}
	if _, err := wt.Commit(msg, &git.CommitOptions{Author: sig}); err != nil {
		t.Fatal(err)
	}
}

// allowedRemote is the remote URL an IDE's vcs context names for proj.
const allowedRemote = "https://git.example.com/team/proj.git"

// gitConfig is testConfig with repository proj cloned from origin into a
// fresh cache directory, which it returns too.
func gitConfig(t *testing.T, upstream, origin string) (*Config, string) {
	t.Helper()
	cfg := testConfig(t, upstream)
	cache := t.TempDir()
	cfg.Git = gitrepo.Config{CacheDir: cache, Repositories: []gitrepo.RepoConfig{{
		Name: "proj", URL: "file://" + filepath.ToSlash(origin),
		Allow: []string{"git.example.com/team/proj", "file://" + filepath.ToSlash(origin)},
	}}}
	return cfg, cache
}

// wireNode is a tree node as sent.
type wireNode struct {
	ID          string   `json:"id"`
	PID         string   `json:"pId"`
	Type        string   `json:"type"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Labels      []string `json:"labels"`
}

// sentAction is an action frame as sent.
type sentAction struct {
	Action string          `json:"action"`
	State  json.RawMessage `json:"state"`
	Data   struct {
		Title       string     `json:"title"`
		Message     string     `json:"message"`
		TreeID      string     `json:"treeId"`
		RootPID     string     `json:"rootPId"`
		Nodes       []wireNode `json:"nodes"`
		NodeActions []struct {
			NodeType             string `json:"nodeType"`
			NodeAction           string `json:"nodeAction"`
			PromptByNodeProperty string `json:"promptByNodeProperty,omitempty"`
		} `json:"nodeActions"`
	} `json:"data"`
}

// nodeList is the nodes as "id<pId:type:name:description" lines.
func (a sentAction) nodeList() string {
	var out []string
	for _, n := range a.Data.Nodes {
		out = append(out, fmt.Sprintf("%s<%s:%s:%s:%s", n.ID, n.PID, n.Type, n.Name, n.Description))
	}
	return strings.Join(out, "\n")
}

// answer is a whole SSE answer, checked to end with the end chunk
// (finish_reason "stop", or "error" after an error frame) and the
// terminator.
type answer struct {
	events []streamEvent
	text   string
}

// ask posts body and reads the answer, checking its end frames.
func ask(t *testing.T, url, body string) answer {
	t.Helper()
	resp, events := postAgent(t, url, body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, events %v", resp.StatusCode, events)
	}
	reason := `"finish_reason":"stop"`
	for _, ev := range events {
		if ev.Name == "copilot_error" {
			reason = `"finish_reason":"error"`
		}
	}
	n := len(events)
	if n < 2 || events[n-1].Data != "[DONE]" || !strings.Contains(events[n-2].Data, reason) {
		t.Fatalf("the answer does not end with the end chunk (%s) and [DONE]: %v", reason, events)
	}
	return answer{events: events, text: streamText(t, events)}
}

// actions decodes the answer's actions.
func (a answer) actions(t *testing.T) []sentAction {
	t.Helper()
	var out []sentAction
	for _, ev := range a.events {
		if ev.Name == "copilot_action" {
			var s sentAction
			if err := json.Unmarshal([]byte(ev.Data), &s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
	}
	return out
}

// only returns the answer's one action, failing on an error frame.
func (a answer) only(t *testing.T) sentAction {
	t.Helper()
	if e := a.errorFrame(); e != nil {
		t.Fatalf("error frame %+v", e)
	}
	acts := a.actions(t)
	if len(acts) != 1 {
		t.Fatalf("%d actions, want 1: %v", len(acts), a.events)
	}
	return acts[0]
}

// streamError is a copilot_error's data.
type streamError struct {
	ErrorCode       string `json:"errorCode"`
	Message         string `json:"message"`
	SuggestedAction string `json:"suggestedAction"`
}

// errorFrame decodes the answer's copilot_error, nil when none.
func (a answer) errorFrame() *streamError {
	for _, ev := range a.events {
		if ev.Name == "copilot_error" {
			var e streamError
			if json.Unmarshal([]byte(ev.Data), &e) != nil {
				return &streamError{Message: ev.Data}
			}
			return &e
		}
	}
	return nil
}

// dirEntries lists a directory's entries, for checking a cache stays empty.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}
