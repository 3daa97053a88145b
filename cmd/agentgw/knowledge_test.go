package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/agentgw/agentgw/gitrepo"
	"github.com/agentgw/agentgw/knowledge/kb"
	"github.com/agentgw/agentgw/llm/llmtest"
)

const (
	parseGo = `package server

// parseHTTPRequest reads a request line and its headers.
func parseHTTPRequest(line string) (method, target string) {
	method, target, _ = cut(line, " ")
	return method, target
}

// cut splits s at the first sep.
func cut(s, sep string) (string, string, bool) { return s, "", false }
`
	deployMD = `# Operations

## Deploying

Run the release pipeline from the main branch; it builds the image and rolls it out.

## Backups

Nightly at two.
`
	helperAgent = `name: helper
commands:
  - name: default
    contextVariableCollectionStrategy:
      type: specify
      contextVariables:
        - name: userInputPrompt
        - name: knowledgeBase
          resolverOptions: {knowledgeBaseIds: [proj], recallByAgent: true, topK: 1}
    messageTemplates:
      - role: system
        template: "{{ range .knowledgeBase }}{{ range .references }}[{{ .metadata.fileName }}:{{ .metadata.startPos }}-{{ .metadata.endPos }} {{ .metadata.source }}]\n{{ .chunk }}{{ end }}{{ end }}"
`
)

// TestKnowledgeBases: a knowledge base over a repository (read in place)
// and a directory is indexed by the gateway; GET /knowledge-bases shows it
// with its commit; a search finds a declaration by a query in words; an
// agent that recalls gets the reference in its prompt, as the upstream
// request shows; a commit is followed, re-indexing only the changed file;
// agentgw kb search answers from the command line.
func TestKnowledgeBases(t *testing.T) {
	repoDir := t.TempDir()
	repo, err := git.PlainInitWithOptions(repoDir, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: plumbing.Main}})
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, repoDir, "server/parse.go", parseGo)
	writeFile(t, repoDir, "docs/deploy.md", deployMD)
	writeFile(t, repoDir, "assets/logo.bin", "\x00\x01")
	commitOrigin(t, wt, "first", 0)
	notes := t.TempDir()
	writeFile(t, notes, "faq.md", "# FAQ\n\nThe gateway listens on port 18080 by default.\n")

	var mu sync.Mutex
	var prompts []string
	var lastMessages []llmtest.Message
	var toolResult string
	model := llmtest.New(t, llmtest.Respond(func(r llmtest.Request) llmtest.Reply {
		last := r.LastMessage()
		switch {
		case len(r.Tools) > 0 && last.Role != "tool": // the searcher's model searches
			return llmtest.Calls(llmtest.ToolCall{ID: "call_1", Name: "search_knowledge", Arguments: `{"query":"which port does the gateway listen on","topK":1}`})
		case last.Role == "tool":
			mu.Lock()
			toolResult = last.Content
			mu.Unlock()
		default:
			mu.Lock()
			prompts = append(prompts, r.Messages[0].Content)
			lastMessages = r.Messages
			mu.Unlock()
		}
		return llmtest.Text("ok")
	}))

	agents := t.TempDir()
	writeFile(t, agents, "helper.yaml", helperAgent)
	writeFile(t, agents, "pasted.json", `{"name": "pasted", "commands": [{"name": "default",
 "messageTemplates": [{"role": "system", "template": "You are a world-class programmer"}],
 "contextVariableCollectionStrategy": {"type": "specify", "contextVariables": [{"name": "userInputPrompt"},
   {"name": "knowledgeBase", "resolveOptions": {"knowledgeBaseIds": ["proj"], "recallByAgent": true, "topK": 1}}]}}]}`)
	writeFile(t, agents, "searcher.yaml", `name: searcher
tools:
  - {name: search_knowledge, description: Search the knowledge bases., runtime: builtin, entry: search_knowledge,
     parameters: {type: object, properties: {query: {type: string}, topK: {type: integer}}, required: [query]}}
commands:
  - {name: default, tools: [search_knowledge], messageTemplates: [{role: system, template: You search.}]}
`)
	writeFile(t, agents, "looker.yaml", `name: looker
commands:
  - name: default
    steps:
      - id: r
        recall: {knowledgeBases: [proj], topK: 1, sourceType: doc, paths: ["docs/**"]}
      - id: say
        dependsOn: [r]
        reply: "{{ len .steps.r.result.references }}: {{ .steps.r.result.text }}"
`)
	cfg := testConfig(t, model.URL())
	cfg.Agents = []string{agents}
	cfg.Git = gitrepo.Config{CacheDir: t.TempDir(), Repositories: []gitrepo.RepoConfig{{Name: "proj", Path: repoDir}}}
	cfg.KnowledgeBases = []kb.Config{{ID: "proj", Name: "The project", Sources: []kb.Source{
		{Repo: "proj", Ref: "main", Paths: []string{"**/*.go", "**/*.md", "**/*.bin"}}, {Dir: notes}}}}
	cfg.Knowledge.Reindex = Duration(100 * time.Millisecond)
	cfg.Knowledge.MaxGlobs = 3
	base := startGateway(t, cfg, nil)

	type kbSummary struct {
		ID, LastIndexedCommit string
		Files, Chunks         int
	}
	waitKB := func(commitNot string) kbSummary {
		t.Helper()
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			var l struct{ KnowledgeBases []kbSummary }
			jsonCall(t, "GET", base+"/knowledge-bases", "", &l)
			if len(l.KnowledgeBases) == 1 && l.KnowledgeBases[0].LastIndexedCommit != "" && l.KnowledgeBases[0].LastIndexedCommit != commitNot {
				return l.KnowledgeBases[0]
			}
		}
		t.Fatal("the knowledge base was not indexed")
		return kbSummary{}
	}
	first := waitKB("")
	if first.Files != 3 || !strings.HasPrefix(first.LastIndexedCommit, "repo:proj@main=") || first.Chunks < 5 {
		t.Fatalf("GET /knowledge-bases: %+v (the binary file is skipped)", first)
	}
	// GET /knowledge-bases, exactly: the sources in the config's camelCase
	// (issue 25 item 5: it answered "Repo", "Dir", "Paths").
	var listed json.RawMessage
	jsonCall(t, "GET", base+"/knowledge-bases", "", &listed)
	var updated struct{ KnowledgeBases []struct{ UpdatedAt string } }
	_ = json.Unmarshal(listed, &updated)
	if want := `{"knowledgeBases":[{"id":"proj","name":"The project","sources":[{"repo":"proj","ref":"main","paths":["**/*.go","**/*.md","**/*.bin"]},{"dir":` +
		jsonString(notes) + `}],"files":3,"chunks":` + strconv.Itoa(first.Chunks) + `,"lastIndexedCommit":` + jsonString(first.LastIndexedCommit) +
		`,"updatedAt":` + jsonString(updated.KnowledgeBases[0].UpdatedAt) + `,"hybrid":false}]}`; string(listed) != want {
		t.Errorf("GET /knowledge-bases:\n%s\nwant\n%s", listed, want)
	}

	var found struct {
		References []struct {
			Chunk    string
			Metadata struct {
				FileName, SourceType, Source string
				StartPos, EndPos             int
			}
		}
	}
	if code := jsonCall(t, "POST", base+"/knowledge-bases/proj/search", `{"query":"parse an http request","topK":2}`, &found); code != 200 || len(found.References) == 0 {
		t.Fatalf("search = %d %+v", code, found)
	}
	if m := found.References[0].Metadata; m.FileName != "server/parse.go" || m.SourceType != "code" || m.StartPos != 3 || m.EndPos != 7 || m.Source != repoDir+"/server/parse.go" {
		t.Errorf("the first reference: %+v", found.References[0])
	}
	// A reference of the directory source, exactly: metadata.source is the
	// file's path (seed 003), not the source's label "dir:…".
	var faq struct{ References []json.RawMessage }
	jsonCall(t, "POST", base+"/knowledge-bases/proj/search", `{"query":"which port does the gateway listen on","topK":1,"paths":["faq.md"]}`, &faq)
	if len(faq.References) != 1 {
		t.Fatalf("the faq search: %s", faq.References)
	}
	var scored struct{ Score json.Number }
	_ = json.Unmarshal(faq.References[0], &scored)
	if got, want := string(faq.References[0]), `{"score":`+string(scored.Score)+`,"chunk":"# FAQ\n\nThe gateway listens on port 18080 by default.",`+
		`"metadata":{"fileName":"faq.md","sourceType":"doc","source":`+jsonString(notes+"/faq.md")+`,"startPos":1,"endPos":3}}`; got != want {
		t.Errorf("the faq reference:\n%s\nwant\n%s", got, want)
	}
	// knowledge.maxGlobs: a fourth glob is refused, naming the key.
	var refused struct {
		Content struct{ ErrorCode, Message string }
	}
	if code := jsonCall(t, "POST", base+"/knowledge-bases/proj/search", `{"query":"parse","paths":["a","b","c","d"]}`, &refused); code != 400 ||
		refused.Content.ErrorCode != "BAD_REQUEST" || !strings.Contains(refused.Content.Message, "knowledge.maxGlobs") {
		t.Errorf("a search over knowledge.maxGlobs = %d %+v", code, refused)
	}
	// An id no knowledge base has is NOT_FOUND, naming it (kb.ErrUnknown,
	// told to the server as server.ErrUnknownKnowledgeBase).
	var unknown struct {
		Content struct{ ErrorCode, Message string }
	}
	if code := jsonCall(t, "POST", base+"/knowledge-bases/nope/search", `{"query":"parse"}`, &unknown); code != 404 ||
		unknown.Content.ErrorCode != "NOT_FOUND" || unknown.Content.Message != `no knowledge base "nope"` {
		t.Errorf("a search of an unknown id = %d %+v", code, unknown)
	}

	got := ask(t, base+"/agents/helper", `{"contextVariables":[{"name":"userInputPrompt","value":"How do we parse an HTTP request?"}]}`)
	if e := got.errorFrame(); e != nil || got.text != "ok" {
		t.Fatalf("helper: %q %+v", got.text, e)
	}
	mu.Lock()
	// The system prompt, exactly: the one reference, in the protocol's shape.
	want := "[server/parse.go:3-7 " + repoDir + "/server/parse.go]\n" + strings.Join(strings.Split(parseGo, "\n")[2:7], "\n")
	if len(prompts) != 1 || prompts[0] != want {
		t.Errorf("the prompt:\n%q\nwant\n%q", prompts, want)
	}
	mu.Unlock()

	// An agent pasted from the platform, whose templates never place the
	// references: they come right after its system prompt (issue 25 item 4).
	if got := ask(t, base+"/agents/pasted", `{"contextVariables":[{"name":"userInputPrompt","value":"How do we parse an HTTP request?"}]}`); got.errorFrame() != nil {
		t.Fatalf("pasted: %+v", got.errorFrame())
	}
	mu.Lock()
	wantRefs := "References from the knowledge bases, best first:\n\n[proj] server/parse.go:3-7 (" + repoDir + "/server/parse.go)\n" +
		strings.Join(strings.Split(parseGo, "\n")[2:7], "\n")
	if len(lastMessages) != 3 || lastMessages[0].Content != "You are a world-class programmer" || lastMessages[1].Role != "system" ||
		lastMessages[1].Content != wantRefs || lastMessages[2].Content != "How do we parse an HTTP request?" {
		t.Errorf("the pasted agent's prompt: %q\nwant the references\n%q", lastMessages, wantRefs)
	}
	mu.Unlock()

	// A plan's recall step, filtered to docs.
	looked := ask(t, base+"/agents/looker", `{"contextVariables":[{"name":"userInputPrompt","value":"how do we deploy a release?"}]}`)
	if e := looked.errorFrame(); e != nil || !strings.HasPrefix(looked.text, "1: docs/deploy.md:1-5\n# Operations\n\n## Deploying") {
		t.Errorf("looker: %q %+v", looked.text, e)
	}

	// A model searching with search_knowledge.
	if s := ask(t, base+"/agents/searcher", `{"contextVariables":[{"name":"userInputPrompt","value":"port?"}]}`); s.errorFrame() != nil || !strings.HasSuffix(s.text, "ok") {
		t.Errorf("searcher: %q %+v", s.text, s.errorFrame())
	}
	mu.Lock()
	if !strings.Contains(toolResult, `"status":"SUCCESS"`) || !strings.Contains(toolResult, `"fileName":"faq.md"`) {
		t.Errorf("the tool result the model read: %s", toolResult)
	}
	mu.Unlock()

	// A commit: only the changed file is indexed again.
	writeFile(t, repoDir, "docs/deploy.md", strings.Replace(deployMD, "Nightly at two.", "Hourly, kept for a fortnight.", 1))
	commitOrigin(t, wt, "second", 1)
	second := waitKB(first.LastIndexedCommit)
	if second.Files != 3 {
		t.Errorf("after the commit: %+v", second)
	}
	if code := jsonCall(t, "POST", base+"/knowledge-bases/proj/search", `{"query":"fortnight","topK":1}`, &found); code != 200 ||
		len(found.References) != 1 || found.References[0].Metadata.FileName != "docs/deploy.md" {
		t.Errorf("the new text is not found: %d %+v", code, found)
	}

	// agentgw kb search, from a config file naming the same store.
	conf := filepath.Join(t.TempDir(), "gw.yaml")
	data, _ := json.Marshal(map[string]any{"data": cfg.Data, "git": map[string]any{"cacheDir": cfg.Git.CacheDir,
		"repositories": []any{map[string]any{"name": "proj", "path": repoDir}}},
		"knowledgeBases": []any{map[string]any{"id": "proj", "sources": []any{map[string]any{"repo": "proj", "ref": "main", "paths": []string{"**/*.go", "**/*.md"}}, map[string]any{"dir": notes}}}}})
	if err := os.WriteFile(conf, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"kb", "index", "--config", conf}, envOf(nil), nil, &stdout, &stderr); code != 0 ||
		!strings.HasPrefix(stdout.String(), "proj: 0 files indexed, 3 unchanged, 0 removed, 0 skipped; repo:proj@main=") {
		t.Errorf("agentgw kb index = %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	if code := run([]string{"kb", "search", "--config", conf, "--top", "1", "proj", "which", "port?"}, envOf(nil), nil, &stdout, &stderr); code != 0 ||
		!strings.Contains(stdout.String(), "faq.md:1-3  FAQ") {
		t.Errorf("agentgw kb search = %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
}

// TestLintRecallByAgentWithoutIDs: an agent pasted from the platform with
// recallByAgent and no knowledgeBaseIds recalls only what a request names,
// and nothing for a request without the variable: lint warns, at the
// variable (issue 25 item 4); with ids it is silent.
func TestLintRecallByAgentWithoutIDs(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "pasted.json", `{"name": "pasted", "commands": [{"name": "default",
 "messageTemplates": [{"role": "system", "template": "You are a world-class programmer"}],
 "contextVariableCollectionStrategy": {"type": "specify", "contextVariables": [
   {"name": "knowledgeBase", "resolveOptions": {"recallByAgent": true}}]}}]}
`)
	writeFile(t, dir, "named.json", `{"name": "named", "commands": [{"name": "default",
 "messageTemplates": [{"role": "system", "template": "x"}],
 "contextVariableCollectionStrategy": {"type": "specify", "contextVariables": [
   {"name": "knowledgeBase", "resolveOptions": {"recallByAgent": true, "knowledgeBaseIds": ["docs"]}}]}}]}
`)
	code, stdout, stderr := runCLI(t, nil, "lint", dir)
	want := filepath.Join(dir, "pasted.json") + `:4:4: warning: command "default": context variable "knowledgeBase": recallByAgent is true and ` +
		`knowledgeBaseIds lists none: only the knowledge bases a request's knowledgeBase variable names are recalled, and a request ` +
		`without them recalls nothing (list knowledgeBaseIds)` + "\n"
	if code != 0 || stdout != want || stderr != "2 agents loaded, 0 errors, 1 warnings\n" {
		t.Errorf("agentgw lint = %d\n%s\nwant\n%s\n%s", code, stdout, want, stderr)
	}
}
