package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/internal/golden"
	"github.com/agentgw/agentgw/llm/llmtest"
)

// guardedAgent shows the editor's file and selection and the package
// files to the model; its own pattern excludes *.pem, and its tool returns
// a file under secrets/.
const guardedAgent = `name: guarded
contentExclusion: ["*.pem"]
tools:
  - name: read_config
    description: Reads the deployment's configuration.
    runtime: native
    entry: echo
    command: '{"path":"deploy/secrets/db.yaml","content":"password: hunter2"}'
    env: [PATH]
    parameters: {type: object, properties: {}}
commands:
  - name: default
    tools: [read_config]
    messageTemplates:
      - role: system
        template: |-
          You help with {{ .activeEditor.filePath }}:
          {{ .activeEditor.content }}
          {{- range .packageFiles }}
          {{ .filepath }}: {{ .content }}
          {{- end }}
      - role: user
        template: |-
          {{ with .activeEditor.selectedText }}Selected: {{ . }}
          {{ end }}{{ .userInputPrompt }}
    contextVariableCollectionStrategy:
      type: specify
      contextVariables:
        - name: userInputPrompt
        - name: activeEditor
        - name: packageFiles
`

// guardConfig is the gateway's config of the test: the gateway-wide
// patterns and redaction on.
const guardConfig = `agents: [%s]
upstream: {url: %q}
data: %q
contentGuard:
  exclude: [.env, "secrets/**"]
  redact: true
`

// Fake credentials of real shape (not real keys).
const (
	e2eAWSKey = "AKIAZ4GQW7TNKPL3XRVB"
	e2eGHPKey = "ghp_x7Rk2LmQ9vTnB4wZ8pYc3JdF6sHa1GeU5oXi"
)

// editorBody is a request whose active editor is the file at path with
// content, the selection its first line, and whose package files are
// go.mod and certs/server.pem.
func editorBody(path, content, prompt string) string {
	first, _, _ := strings.Cut(content, "\n")
	editor, _ := json.Marshal(map[string]any{"filePath": path, "language": "text", "content": content,
		"selectedRanges": []any{map[string]any{"content": first, "startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": len(first) + 1}}})
	return fmt.Sprintf(`{"contextVariables":[{"name":"userInputPrompt","value":%q},{"name":"activeEditor","value":%s},`+
		`{"name":"packageFiles","value":[{"filepath":"go.mod","content":"module shop"},{"filepath":"certs/server.pem","content":"-----BEGIN CERTIFICATE-----"}]}]}`,
		prompt, editor)
}

// TestContentGuardEndToEnd runs `agentgw serve` as a process with the
// content guard configured, and compares the exact requests the upstream
// gets with golden files: an excluded editor file (.env), an excluded
// package file (the agent's *.pem) and a tool result under secrets/ are
// absent with their notes; the credentials of a kept file's selection are
// replaced by placeholders. The access log line counts what was taken out
// and the metrics count it by rule, never the secret.
func TestContentGuardEndToEnd(t *testing.T) {
	up := llmtest.New(t, llmtest.Respond(func(r llmtest.Request) llmtest.Reply {
		if strings.Contains(string(r.Body), "deploy it") && r.LastMessage().Role != "tool" {
			return llmtest.Calls(llmtest.ToolCall{ID: "call_1", Name: "read_config", Arguments: "{}"})
		}
		return llmtest.Text("ok")
	}))
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "agentgw")
	if err := os.Symlink(exe, bin); err != nil {
		t.Fatal(err)
	}
	agents := filepath.Join(dir, "agents")
	writeFile(t, agents, "guarded.yaml", guardedAgent)
	writeFile(t, agents, "chatty.yaml", "name: chatty\ncommands:\n  - name: default\n    messageTemplates: [{role: user, template: '{{ .userInputPrompt }}'}]\n")
	writeFile(t, dir, "gateway.yaml", fmt.Sprintf(guardConfig, agents, up.URL(), filepath.Join(dir, "data")))
	gw := startReplica(t, "gateway", bin, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}, "--config", filepath.Join(dir, "gateway.yaml"))

	ask(t, gw.base+"/agents/guarded", editorBody("/w/shop/.env", "DB_PASSWORD=s3cr3t-Pa55w0rd\nSTRIPE=x\n", "why does it fail?"))
	ask(t, gw.base+"/agents/guarded", editorBody("/w/shop/deploy.sh",
		"aws configure set aws_access_key_id "+e2eAWSKey+"\ngit clone https://"+e2eGHPKey+"@github.com/acme/shop\n", "deploy it"))
	// The OpenAI endpoint's agent commands are guarded as well.
	resp, err := http.Post(gw.base+"/v1/chat/completions", "application/json", strings.NewReader(
		`{"model":"chatty","messages":[{"role":"user","content":"why is `+e2eGHPKey+` refused?"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/v1/chat/completions: %d %s", resp.StatusCode, answer)
	}
	reqs := up.Requests()
	if len(reqs) != 4 {
		t.Fatalf("the upstream got %d requests, want 4", len(reqs))
	}
	if got, want := string(reqs[3].Body), `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"why is [REDACTED:github-pat] refused?"}],"stream":true}`; got != want {
		t.Errorf("the OpenAI endpoint's upstream request\n%s\nwant\n%s", got, want)
	}
	for i, name := range []string{"excluded_editor", "redacted_selection", "withheld_tool_result"} {
		// A tool result's time is the one byte that differs from run to run.
		body := executionTime.ReplaceAll(reqs[i].Body, []byte(`\"executionTime\":0`))
		var out bytes.Buffer
		if err := json.Indent(&out, body, "", " "); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "testdata/contentguard/"+name+".json", append(out.Bytes(), '\n'))
		for _, secret := range []string{"s3cr3t", e2eAWSKey, e2eGHPKey, "hunter2", "BEGIN CERTIFICATE"} {
			if bytes.Contains(reqs[i].Body, []byte(secret)) {
				t.Errorf("request %d holds %q", i, secret)
			}
		}
	}
	resp, err = http.Get(gw.base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		// The key is in the second request's editor content and selection,
		// and so in its tool round's request again; the token in its
		// content only.
		`agentgw_redactions_total{rule="aws-access-token"} 4`,
		`agentgw_redactions_total{rule="github-pat"} 3`, // and once on /v1
		`agentgw_content_withheld_total{where="activeEditor"} 1`,
		`agentgw_content_withheld_total{where="packageFiles"} 2`,
		`agentgw_content_withheld_total{where="tool_result"} 1`,
	} {
		if !bytes.Contains(metrics, []byte(want)) {
			t.Errorf("metrics lack %s", want)
		}
	}
	log := gw.stderr.String()
	if !strings.Contains(log, `"redacted":"aws-access-token:4,github-pat:2","withheld":1`) {
		t.Errorf("no access log line counts the redactions and the withheld tool result:\n%s", log)
	}
	for _, secret := range []string{"s3cr3t", e2eAWSKey, e2eGHPKey, "hunter2"} {
		if strings.Contains(log, secret) {
			t.Errorf("the log holds %q", secret)
		}
	}
}

// TestContentGuardOff: with nothing configured and no agent declaring
// contentExclusion there is no guard (the upstream client sends requests
// as they are, no observer is added) and the stage's policies exclude
// nothing; an agent's own patterns make one.
func TestContentGuardOff(t *testing.T) {
	cfg := testConfig(t, "")
	reg := program.NewRegistry(nil)
	cg, err := newContentGuard(cfg, reg, nil, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if cg.guard != nil || !cg.policies.For("hello").Empty() {
		t.Errorf("a content guard with nothing configured: %+v", cg)
	}
	agents, diags := program.ParseWith(program.LoadOptions{Parts: definitionParts()}, "g.yaml", []byte("name: guarded\ncontentExclusion: [\"*.pem\"]\ncommands: [{name: default, reply: hi}]\n"))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	reg.Swap(agents)
	if cg, err = newContentGuard(cfg, reg, nil, slog.New(slog.DiscardHandler)); err != nil || cg.guard == nil || !cg.policies.For("guarded").Match("a.pem") {
		t.Errorf("no guard for an agent's own patterns: %+v, %v", cg, err)
	}
	cfg.ContentGuard.Exclude = []string{"a/[b"}
	if err := cfg.validate(); err == nil || !strings.Contains(err.Error(), `contentGuard.exclude: content exclusion pattern "a/[b"`) {
		t.Errorf("validate: %v", err)
	}
}
