package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// repoRoot is the repository's root, from this package's directory.
var repoRoot = filepath.Join("..", "..")

// readREADME returns the repository's README.md.
func readREADME(t *testing.T) string {
	t.Helper()
	return readDoc(t, "README.md")
}

// readDoc returns the repository's file at the slash-separated path.
func readDoc(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// docPages returns the slash-separated paths of the documentation: README.md
// and every Markdown file under docs/, in lexical order.
func docPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, err := filepath.Rel(repoRoot, path)
			if err != nil {
				return err
			}
			pages = append(pages, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) < 10 {
		t.Fatalf("found %d documentation pages, want README.md and the pages of docs/: %q", len(pages), pages)
	}
	return pages
}

// readDocs returns README.md and every page of docs/, one after the other.
func readDocs(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, p := range docPages(t) {
		b.WriteString(readDoc(t, p))
		b.WriteString("\n")
	}
	return b.String()
}

// shellComment is a comment at the end of a line of a sh code block.
var shellComment = regexp.MustCompile(`\s+#\s.*$`)

// readmeCommands returns the shell commands the documentation shows: each
// command of its sh code blocks (as parseDocBlocks cuts them) on one line,
// without its comments and line continuations, and each inline code span
// that starts with a command.
func readmeCommands(t *testing.T, readme string) []string {
	t.Helper()
	blocks, err := parseDocBlocks(readme)
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, b := range blocks {
		for _, c := range b.cmds {
			var parts []string
			for l := range strings.Lines(c.text) {
				l = shellComment.ReplaceAllString(strings.TrimRight(l, "\n"), "")
				parts = append(parts, strings.TrimSpace(strings.TrimSuffix(l, `\`)))
			}
			cmds = append(cmds, strings.Join(parts, " "))
		}
	}
	for _, m := range regexp.MustCompile("`((?:curl|go run \\./cmd/agentgw|agentgw) [^`]*)`").FindAllStringSubmatch(readme, -1) {
		cmds = append(cmds, m[1])
	}
	return cmds
}

// TestREADMECurlPostsJSON checks that every curl command of the documentation
// (README.md and docs/) that
// sends a body says it is JSON: the gateway answers 415 to a POST without
// Content-Type: application/json.
func TestREADMECurlPostsJSON(t *testing.T) {
	sendsBody := regexp.MustCompile(`\s(-d|--data\S*|-X\s*POST)\s`)
	n := 0
	for _, cmd := range readmeCommands(t, readDocs(t)) {
		if !strings.HasPrefix(cmd, "curl ") || !sendsBody.MatchString(cmd) {
			continue
		}
		n++
		if !strings.Contains(cmd, "-H 'Content-Type: application/json'") {
			t.Errorf("README: a curl command posts a body without -H 'Content-Type: application/json' (415):\n%s", cmd)
		}
	}
	if n < 4 {
		t.Errorf("found %d curl commands that post a body in the docs, want at least 4: is the extraction broken?", n)
	}
}

// TestREADMEPathsExist checks that every path the agentgw commands of the
// documentation (README.md and docs/)
// name (the folders given to lint, test and export, the files given to chat's
// --file or asked about) exists in the repository, so a newcomer following
// the README from the root of a fresh clone does not hit "no such file". A
// path below a directory an `agentgw init DIR` of the README writes is the
// init's to make (TestInitREADME runs those).
func TestREADMEPathsExist(t *testing.T) {
	readme := readDocs(t)
	var paths, made []string
	agentgw := regexp.MustCompile(`agentgw (lint|test|export|chat)\s(.*)`)
	initDir := regexp.MustCompile(`agentgw init\s.*?(\S+)\s*$`)
	for _, cmd := range readmeCommands(t, readme) {
		if m := initDir.FindStringSubmatch(strings.SplitN(cmd, "#", 2)[0]); m != nil {
			made = append(made, m[1]+"/")
			continue
		}
		m := agentgw.FindStringSubmatch(cmd)
		if m == nil {
			continue
		}
		args := strings.Fields(m[2])
		for i, a := range args {
			switch {
			case (m[1] == "lint" || m[1] == "test") && !strings.HasPrefix(a, "-") && !strings.ContainsAny(a, "[]") &&
				(i == 0 || !strings.HasPrefix(args[i-1], "--")):
				paths = append(paths, a)
			case (a == "--agents" || a == "--file") && i+1 < len(args):
				paths = append(paths, args[i+1])
			}
		}
	}
	// The prompt the tour asks about names a file of the repository.
	for _, m := range regexp.MustCompile(`What does (\S+) do\?`).FindAllStringSubmatch(readme, -1) {
		paths = append(paths, m[1])
	}
	if len(paths) < 6 {
		t.Fatalf("found %d paths in the docs' commands, want at least 6: is the extraction broken? %q", len(paths), paths)
	}
	for _, p := range paths {
		if slices.ContainsFunc(made, func(dir string) bool { return strings.HasPrefix(p, dir) }) {
			continue
		}
		if _, err := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(p))); err != nil {
			t.Errorf("the docs name %q, which the repository does not have: %v", p, err)
		}
	}
}

// TestREADMEHandoffSchemaFiles checks that the hand-off schema files the
// documentation (README.md and docs/) names are the repository's (lower-case names, one per type).
func TestREADMEHandoffSchemaFiles(t *testing.T) {
	readme := readDocs(t)
	names := regexp.MustCompile("`((?:handoff/schemas/)?[a-z_/]+\\.schema\\.json)`").FindAllStringSubmatch(readme, -1)
	n := 0
	for _, m := range names {
		p := m[1]
		if !strings.HasPrefix(p, "handoff/") {
			if _, err := os.Stat(filepath.Join(repoRoot, "handoff", "schemas", "data", p)); err != nil {
				continue // another schema (configs/schema), checked by TestSchema
			}
			p = "handoff/schemas/data/" + p
		}
		n++
		if _, err := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(p))); err != nil {
			t.Errorf("the docs name %s, which the repository does not have", p)
		}
	}
	if n < 2 {
		t.Errorf("the docs name %d hand-off schema files, want at least message.schema.json and one type's", n)
	}
	if strings.Contains(readme, "<TYPE>.schema.json") {
		t.Errorf("the docs name hand-off schema files <TYPE>.schema.json; they are lower-case")
	}
}

// TestREADMEAgentTestOutput runs the sample of a failing agentgw test in
// docs/agents.md (the hello agent's greeting changed) and compares what it prints,
// line for line, with the README's copy.
func TestREADMEAgentTestOutput(t *testing.T) {
	readme := readDoc(t, "docs/agents.md")
	const prompt = "$ go run ./cmd/agentgw test configs/agents"
	start := strings.Index(readme, "```text\n"+prompt)
	if start < 0 {
		t.Fatalf("README has no text block starting %q", prompt)
	}
	block := readme[start+len("```text\n"):]
	block = block[:strings.Index(block, "```")]
	first, want, _ := strings.Cut(block, "\n")
	if !strings.Contains(first, `after changing "Welcome to agent hello!"`) {
		t.Fatalf("the sample's first line no longer says what it changed: %q", first)
	}

	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "configs", "agents"), os.DirFS(examplesDir)); err != nil {
		t.Fatal(err)
	}
	hello := filepath.Join(dir, "configs", "agents", "hello.yaml")
	data, err := os.ReadFile(hello)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(data), "Welcome to agent hello!", "Welcome, says agent hello!", 1)
	if changed == string(data) {
		t.Fatal("hello.yaml no longer says \"Welcome to agent hello!\"")
	}
	if err := os.WriteFile(hello, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"test", "configs/agents"}, envOf(nil), nil, &stdout, &stderr); code != 1 {
		t.Errorf("agentgw test: exit %d, want 1\n%s", code, stderr.String())
	}
	if stdout.String() != want {
		t.Errorf("README's sample of agentgw test differs from what it prints:\nREADME:\n%s\nprinted:\n%s", want, stdout.String())
	}
}
