package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/internal/pgtest"
	"github.com/agentgw/agentgw/internal/syncbuf"
	"github.com/agentgw/agentgw/llm/llmtest"
)

// TestMain runs the tests, or, when the doc test runs this binary as
// "agentgw", the gateway's command line.
func TestMain(m *testing.M) {
	if code, ok := runAsAgentgw(); ok {
		os.Exit(code)
	}
	os.Exit(pgtest.Main(m))
}

// deployerAgent has a system prompt and one tool that needs the user's
// consent.
const deployerAgent = `name: deployer
tools:
  - name: deploy
    description: Deploy the service.
    runtime: native
    entry: echo
    command: deployed
    env: [PATH]
    permissionLevel: USER_CONSENT
    userPrompt: "Deploy the service?"
    parameters: {type: object, properties: {}}
commands:
  - name: default
    tools: [deploy]
    messageTemplates:
      - role: system
        template: "You deploy the team's services. Ask before you deploy."
      - role: user
        template: "{{ .userInputPrompt }}"
    contextVariableCollectionStrategy:
      type: specify
      contextVariables:
        - name: userInputPrompt
`

// deployModel calls deploy, then answers with what the tool said.
func deployModel(r llmtest.Request) llmtest.Reply {
	for _, m := range r.Messages {
		if m.Role == "tool" {
			return llmtest.Text("The tool said: " + strings.TrimSpace(m.Content))
		}
	}
	return llmtest.Calls(llmtest.ToolCall{ID: "call_1", Name: "deploy", Arguments: "{}"})
}

// TestReplicasShareTheStore: two gateways sharing a store (a SQLite file
// by store.path, a PostgreSQL database by store.url) and a state secret:
// a run one pauses for consent is resumed by the other, and only once.
func TestReplicasShareTheStore(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(t *testing.T, c *StoreConfig)
	}{
		{"sqlite", func(t *testing.T, c *StoreConfig) { c.Path = filepath.Join(t.TempDir(), "store.db") }},
		{"postgres", func(t *testing.T, c *StoreConfig) { c.URL = pgtest.Schema(t) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "agents/deployer.yaml", deployerAgent)
			up := llmtest.New(t, llmtest.Respond(deployModel))
			var sc StoreConfig
			tc.set(t, &sc)
			env := map[string]string{"AGENTGW_STATE_SECRET": "shared-secret", "PATH": os.Getenv("PATH")}
			var bases []string
			for range 2 {
				cfg := testConfig(t, up.URL())
				cfg.Agents = []string{filepath.Join(dir, "agents")}
				cfg.Store = sc
				bases = append(bases, startGateway(t, cfg, env)+"/agents/deployer")
			}
			consent := ask(t, bases[0], `{"contextVariables":[{"name":"userInputPrompt","value":"ship it"}]}`).only(t)
			if consent.Action != "confirm" || !strings.HasPrefix(consent.Data.Message, "Deploy the service?") {
				t.Fatalf("consent %s %+v", consent.State, consent.Data)
			}
			feedback := `{"action":{"action":"confirm","state":` + string(consent.State) + `,"accepted":true}}`
			resumed := ask(t, bases[1], feedback)
			if e := resumed.errorFrame(); e != nil || !strings.Contains(resumed.text, `The tool said: {"callId":"call_1","status":"SUCCESS","result":"deployed",`) {
				t.Fatalf("on the other replica: %q, error %+v", resumed.text, e)
			}
			resp, err := http.Post(bases[0], "application/json", strings.NewReader(feedback))
			if err != nil {
				t.Fatal(err)
			}
			again, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(again), `"errorCode":"STATE_INVALID"`) {
				t.Errorf("the same feedback again, on the first replica: %d %s", resp.StatusCode, again)
			}
		})
	}
}

// TestStoreURLLoggedRedacted: the gateway says which PostgreSQL database it
// uses, without the password the URL holds.
func TestStoreURLLoggedRedacted(t *testing.T) {
	url := strings.Replace(pgtest.Schema(t), "postgres://postgres@", "postgres://postgres:hunter2@", 1)
	if !strings.Contains(url, ":hunter2@") {
		t.Fatalf("no password put in %s", url)
	}
	cfg := testConfig(t, "")
	cfg.Store.URL = url // the test server trusts loopback: the password is not checked
	var logs syncbuf.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	errc := make(chan error, 1)
	go func() { errc <- serve(ctx, cfg, envOf(nil), slog.New(slog.NewTextHandler(&logs, nil)), ready) }()
	select {
	case <-ready:
	case err := <-errc:
		t.Fatal(err)
	}
	cancel()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	if !strings.Contains(out, `msg="store: PostgreSQL" url="postgres://postgres:xxxxx@127.0.0.1`) || strings.Contains(out, "hunter2") {
		t.Errorf("logs:\n%s", out)
	}
}

// TestStoreURLUnreachable: a database that cannot be reached stops the
// start with an error naming it without its password.
func TestStoreURLUnreachable(t *testing.T) {
	cfg := testConfig(t, "")
	cfg.Store.URL = "postgres://agentgw:hunter2@127.0.0.1:1/agentgw?sslmode=disable"
	err := serve(context.Background(), cfg, envOf(nil), slog.New(slog.DiscardHandler), nil)
	if err == nil || !strings.Contains(err.Error(), "postgres://agentgw:xxxxx@127.0.0.1:1/agentgw") || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("serve = %v", err)
	}
}

// TestGatewaySecretsHoldTheStorePassword: the store URL's password is among
// the secrets the upstream client redacts.
func TestGatewaySecretsHoldTheStorePassword(t *testing.T) {
	cfg := testConfig(t, "")
	cfg.Store.URL = "postgres://agentgw:hunter2@db/agentgw"
	if got := gatewaySecrets(cfg, envOf(nil)); !slices.Contains(got, "hunter2") {
		t.Errorf("secrets %q lack the store's password", got)
	}
	cfg.Store.URL = "postgres://agentgw@db/agentgw"
	if got := gatewaySecrets(cfg, envOf(nil)); len(got) != 0 {
		t.Errorf("secrets %q, want none", got)
	}
}
