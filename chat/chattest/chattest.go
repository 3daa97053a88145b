// Package chattest holds what the tests of the chat client and of the
// gateway's end-to-end chat tests share: a git workspace made for a test, and
// a recorder of the agent requests chat sends. Only tests import it.
package chattest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// AddGo is the Go file of the test workspace; selecting 4:1-6:2 selects
// the function.
const AddGo = `package calc

// Add returns the sum of a and b.
func Add(a, b int) int {
	return a + b
}
`

// Workspace is a git repository made for a test.
type Workspace struct {
	Dir       string // the worktree root
	GoFile    string // absolute path of calc/add.go
	RemoteURL string // origin's file:// URL
}

// NewWorkspace isolates git from the developer's configuration (HOME,
// XDG_CONFIG_HOME and USER point at temporary values) and makes a repository
// on branch "feature" tracking origin/main, with user.name and user.email in
// its config and five package manager files.
func NewWorkspace(t *testing.T) Workspace {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("USER", "nobody")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))

	dir := t.TempDir()
	remote := filepath.Join(t.TempDir(), "origin.git")
	if _, err := git.PlainInit(remote, true); err != nil {
		t.Fatal(err)
	}
	ws := Workspace{Dir: dir, RemoteURL: "file://" + filepath.ToSlash(remote)}
	ws.GoFile = WriteFile(t, dir, "calc/add.go", AddGo)
	WriteFile(t, dir, "go.mod", "module example.com/calc\n\ngo 1.22\n")
	WriteFile(t, dir, "package.json", `{"name": "calc-web", "version": "0.1.0"}`+"\n")
	WriteFile(t, dir, "web/package.json", `{"name": "web"}`+"\n")
	WriteFile(t, dir, "tools/Cargo.toml", "[package]\nname = \"tools\"\n")
	WriteFile(t, dir, "a/b/requirements.txt", "requests==2.0\n")
	WriteFile(t, dir, "node_modules/x/package.json", "{}\n") // skipped

	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	CommitAll(t, repo)
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName("feature"), Create: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{ws.RemoteURL}}); err != nil {
		t.Fatal(err)
	}
	cfg, err := repo.Config()
	if err != nil {
		t.Fatal(err)
	}
	cfg.User.Name, cfg.User.Email = "Ada Lovelace", "ada@example.com"
	cfg.Branches["feature"] = &config.Branch{Name: "feature", Remote: "origin", Merge: plumbing.NewBranchReferenceName("main")}
	if err := repo.SetConfig(cfg); err != nil {
		t.Fatal(err)
	}
	return ws
}

// CommitAll commits everything in repo's worktree as Ada Lovelace at a
// fixed time.
func CommitAll(t *testing.T, repo *git.Repository) {
	t.Helper()
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "Ada Lovelace", Email: "ada@example.com", When: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)}
	if _, err := wt.Commit("initial", &git.CommitOptions{Author: sig}); err != nil {
		t.Fatal(err)
	}
}

// WriteFile writes data to name under dir and returns its path.
func WriteFile(t testing.TB, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Request is an agent request as chat sent it.
type Request struct {
	Agent            string `json:"agent"`
	Command          string `json:"command"`
	Model            string `json:"model"`
	ContextVariables []struct {
		Name  string          `json:"name"`
		Value json.RawMessage `json:"value"`
	} `json:"contextVariables"`
	Header http.Header `json:"-"`
	// Members are the body's members as sent.
	Members map[string]json.RawMessage `json:"-"`
}

// Names lists the context variables in request order.
func (r Request) Names() []string {
	var out []string
	for _, v := range r.ContextVariables {
		out = append(out, v.Name)
	}
	return out
}

// Value decodes the context variable name into v; false when it is absent.
func (r Request) Value(t *testing.T, name string, v any) bool {
	t.Helper()
	for _, cv := range r.ContextVariables {
		if cv.Name == name {
			if err := json.Unmarshal(cv.Value, v); err != nil {
				t.Fatalf("context variable %s: %v", name, err)
			}
			return true
		}
	}
	return false
}

// Member returns a body member's JSON as sent, "" when absent.
func (r Request) Member(name string) string { return string(r.Members[name]) }

// Recorder keeps the agent requests (POST bodies) it saw.
type Recorder struct {
	mu       sync.Mutex
	requests []Request
}

// Record reads r's body, keeps it and puts it back.
func (rec *Recorder) Record(t *testing.T, r *http.Request) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		t.Errorf("reading the request: %v", err)
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	var cr Request
	if err := json.Unmarshal(data, &cr); err != nil {
		t.Errorf("chat sent invalid JSON %q: %v", data, err)
	}
	if err := json.Unmarshal(data, &cr.Members); err != nil {
		t.Errorf("chat sent a body that is not an object %q: %v", data, err)
	}
	cr.Header = r.Header.Clone()
	rec.mu.Lock()
	rec.requests = append(rec.requests, cr)
	rec.mu.Unlock()
}

// Last returns the last request, failing when there is none.
func (rec *Recorder) Last(t *testing.T) Request {
	t.Helper()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.requests) == 0 {
		t.Fatal("chat sent no agent request")
	}
	return rec.requests[len(rec.requests)-1]
}

// All returns the requests so far.
func (rec *Recorder) All() []Request {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]Request(nil), rec.requests...)
}

// Count returns how many requests were recorded.
func (rec *Recorder) Count() int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return len(rec.requests)
}
