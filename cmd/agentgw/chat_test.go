package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/chat/chattest"
	"github.com/agentgw/agentgw/contextvars"
	"github.com/agentgw/agentgw/llm/llmtest"
)

// chatSetup is a workspace, a gateway with a fake upstream, and a recording
// proxy in front of the gateway that chat talks to.
type chatSetup struct {
	ws  chattest.Workspace
	up  *llmtest.Model
	url string // the proxy
	rec *chattest.Recorder
}

func newChatSetup(t *testing.T) chatSetup {
	ws := chattest.NewWorkspace(t)
	up := newFakeUpstream(t, "It adds ", "two numbers.")
	url, rec := newRecordingProxy(t, startGateway(t, testConfig(t, up.URL()), nil))
	return chatSetup{ws: ws, up: up, url: url, rec: rec}
}

// lastUpstream returns the last request the fake upstream got.
func (s chatSetup) lastUpstream(t *testing.T) llmtest.Request {
	t.Helper()
	reqs := s.up.Requests()
	if len(reqs) == 0 {
		t.Fatal("the upstream got no request")
	}
	return reqs[len(reqs)-1]
}

func TestChatHello(t *testing.T) {
	s := newChatSetup(t)
	code, stdout, stderr := runChat(t, "", "--url", s.url, "--agent", "hello", "--dir", s.ws.Dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "Hello, Ada Lovelace!\nWelcome to agent hello!\n\n  [ Get version ]  Shows the version of agent hello → runs command version\n"
	if stdout != want {
		t.Errorf("stdout:\n%q\nwant:\n%q", stdout, want)
	}
	if stderr != "" {
		t.Errorf("stderr = %q", stderr)
	}
	req := s.rec.Last(t)
	var user contextvars.UserInfo
	if !req.Value(t, "userInfo", &user) {
		t.Fatalf("no userInfo in %v", req.Names())
	}
	if want := (contextvars.UserInfo{ID: "ada@example.com", Name: "Ada Lovelace", Nickname: "Ada Lovelace"}); user != want {
		t.Errorf("userInfo = %+v, want %+v (from the repository's git config)", user, want)
	}
	if req.Agent != "hello" || req.Command != "" {
		t.Errorf("agent %q command %q", req.Agent, req.Command)
	}

	// The confirm's command, as a click would run it.
	code, stdout, _ = runChat(t, "", "--url", s.url, "--agent", "hello", "--command", "version", "--dir", s.ws.Dir)
	if code != 0 || stdout != "The current version is v1.0.0\n" {
		t.Errorf("version: exit %d, stdout %q", code, stdout)
	}
	if len(s.up.Requests()) != 0 {
		t.Error("hello called the model")
	}
}

func TestChatExplain(t *testing.T) {
	s := newChatSetup(t)
	code, stdout, stderr := runChat(t, "", "--url", s.url, "--agent", "coder", "--command", "explain",
		"--file", s.ws.GoFile, "--selection", "4:1-6:2", "--dir", s.ws.Dir, "--model", "fake-1", "why", "so", "simple?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stdout != "It adds two numbers.\n" {
		t.Errorf("stdout = %q, want the upstream's text", stdout)
	}

	req := s.rec.Last(t)
	if req.Command != "explain" || req.Model != "fake-1" {
		t.Errorf("command %q model %q", req.Command, req.Model)
	}
	if got, want := req.Names(), []string{"userInputPrompt", "activeEditor"}; !reflect.DeepEqual(got, want) {
		t.Errorf("variables %q, want %q (what explain declares)", got, want)
	}
	var prompt string
	if req.Value(t, "userInputPrompt", &prompt); prompt != "why so simple?" {
		t.Errorf("userInputPrompt = %q", prompt)
	}
	var ed contextvars.Editor
	if !req.Value(t, "activeEditor", &ed) {
		t.Fatal("no activeEditor")
	}
	before := "package calc\n\n// Add returns the sum of a and b.\n"
	wantRange := contextvars.Range{Content: addSelection, StartLine: 4, StartColumn: 1, EndLine: 6, EndColumn: 2, ContentBeforeSelection: &before}
	if ed.FilePath != s.ws.GoFile || ed.Language != "go" || ed.Content != chattest.AddGo {
		t.Errorf("activeEditor file %q language %q content %q", ed.FilePath, ed.Language, ed.Content)
	}
	if ed.StartLine != 4 || ed.StartColumn != 1 || ed.EndLine != 6 || ed.EndColumn != 2 || ed.CursorOffset != strings.Index(chattest.AddGo, addSelection)+len(addSelection) {
		t.Errorf("activeEditor positions %d:%d-%d:%d cursor %d", ed.StartLine, ed.StartColumn, ed.EndLine, ed.EndColumn, ed.CursorOffset)
	}
	if len(ed.SelectedRanges) != 1 || !reflect.DeepEqual(ed.SelectedRanges[0], wantRange) {
		t.Errorf("selectedRanges = %s, want [%s]", jsonOf(ed.SelectedRanges), jsonOf(wantRange))
	}
	if ed.VisibleRange == nil || ed.VisibleRange.Content != chattest.AddGo || ed.VisibleRange.StartLine != 1 {
		t.Errorf("visibleRange = %s", jsonOf(ed.VisibleRange))
	}

	msgs := s.lastUpstream(t).Messages
	if len(msgs) != 2 || msgs[0].Role != "system" || msgs[1].Role != "user" {
		t.Fatalf("upstream messages = %s", jsonOf(msgs))
	}
	for _, want := range []string{
		"Explain this go from add.go:\n```go\n" + addSelection + "\n```",
		"It follows:\n```go\n" + before,
		"The user asks: why so simple?",
	} {
		if !strings.Contains(msgs[1].Content, want) {
			t.Errorf("user message\n%s\nlacks\n%s", msgs[1].Content, want)
		}
	}
}

func TestChatReviewPackageFiles(t *testing.T) {
	s := newChatSetup(t)
	code, stdout, stderr := runChat(t, "", "--url", s.url, "--agent", "coder", "--command", "review",
		"--file", s.ws.GoFile, "--selection", "5", "--dir", s.ws.Dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "It adds two numbers.\n\n  [ Explain it instead ]  Explain what this code does → runs command explain\n"
	if stdout != want {
		t.Errorf("stdout:\n%q\nwant:\n%q", stdout, want)
	}
	req := s.rec.Last(t)
	var files []contextvars.PackageFile
	if !req.Value(t, "packageFiles", &files) {
		t.Fatalf("no packageFiles in %v", req.Names())
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Filepath)
	}
	// review's maximumNumber is 3; shallowest first, then by path.
	if want := []string{"go.mod", "package.json", "tools/Cargo.toml"}; !reflect.DeepEqual(paths, want) {
		t.Errorf("packageFiles = %q, want %q", paths, want)
	}
	if files[0].Content != "module example.com/calc\n\ngo 1.22\n" {
		t.Errorf("go.mod content = %q", files[0].Content)
	}
	var ed contextvars.Editor
	req.Value(t, "activeEditor", &ed)
	if r := ed.SelectedRanges; len(r) != 1 || r[0].Content != "\treturn a + b" || r[0].ContentBeforeSelection == nil || *r[0].ContentBeforeSelection != "" {
		t.Errorf("selection 5 with contentBeforeSelectionLines 0: %s", jsonOf(r))
	}
	system := s.lastUpstream(t).Messages[0].Content
	for _, p := range paths {
		if !strings.Contains(system, p+":\n```\n") {
			t.Errorf("system message lacks %s:\n%s", p, system)
		}
	}
	if strings.Contains(system, "web/package.json") || strings.Contains(system, "requirements.txt") {
		t.Errorf("system message has more than 3 package files:\n%s", system)
	}
}

func TestChatDefaultVCSAndRules(t *testing.T) {
	s := newChatSetup(t)
	code, stdout, stderr := runChat(t, "", "--url", s.url, "--agent", "coder", "--dir", s.ws.Dir,
		"--rule", "Answer in French.", "--rule", "Be brief.", "hi")
	if code != 0 || stdout != "It adds two numbers.\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// The default command declares activeEditor; without --file it is noted.
	if stderr != "note: activeEditor not collected: no --file given\n" {
		t.Errorf("stderr = %q", stderr)
	}
	req := s.rec.Last(t)
	var vcs contextvars.VCS
	if !req.Value(t, "vcs", &vcs) {
		t.Fatalf("no vcs in %v", req.Names())
	}
	want := contextvars.VCS{Type: "git", BranchName: "feature", UpstreamBranchName: "origin/main", RemoteURL: s.ws.RemoteURL, Remotes: []string{s.ws.RemoteURL}}
	if !reflect.DeepEqual(vcs, want) {
		t.Errorf("vcs = %s, want %s", jsonOf(vcs), jsonOf(want))
	}
	var rules []contextvars.Prompt
	req.Value(t, "globalPrompts", &rules)
	if wantRules := []contextvars.Prompt{{Role: "system", Content: "Answer in French."}, {Role: "system", Content: "Be brief."}}; !reflect.DeepEqual(rules, wantRules) {
		t.Errorf("globalPrompts = %+v", rules)
	}
	msgs := s.lastUpstream(t).Messages
	all := jsonOf(msgs)
	for _, w := range []string{"The workspace is on git branch feature.", "Answer in French.", "Be brief.", "hi"} {
		if !strings.Contains(all, w) {
			t.Errorf("upstream messages lack %q: %s", w, all)
		}
	}
	if msgs[len(msgs)-1].Role != "user" || !strings.HasSuffix(msgs[len(msgs)-1].Content, "hi") {
		t.Errorf("last message = %+v, want the user's question", msgs[len(msgs)-1])
	}
}

func TestChatPromptFromStdin(t *testing.T) {
	s := newChatSetup(t)
	code, _, stderr := runChat(t, "  what is this?\n", "--url", s.url, "--agent", "coder", "--command", "explain",
		"--file", s.ws.GoFile, "--dir", s.ws.Dir, "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var prompt string
	if s.rec.Last(t).Value(t, "userInputPrompt", &prompt); prompt != "what is this?" {
		t.Errorf("userInputPrompt = %q", prompt)
	}
}
