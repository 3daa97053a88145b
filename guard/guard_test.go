package guard_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/agentgw/agentgw/guard"
	"github.com/agentgw/agentgw/guard/exclude"
	"github.com/agentgw/agentgw/guard/redact"
	"github.com/agentgw/agentgw/internal/golden"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/observe/observetest"
)

// Fake credentials of real shape (not real keys).
const (
	awsKey = "AKIAZ4GQW7TNKPL3XRVB"
	ghpKey = "ghp_x7Rk2LmQ9vTnB4wZ8pYc3JdF6sHa1GeU5oXi"
)

// newGuard is the guard of the gateway patterns .env and secrets/**, the
// agent ops' *.pem besides, and gitleaks' rules.
func newGuard(t testing.TB, reg prometheus.Registerer) *guard.Guard {
	t.Helper()
	r, err := redact.New(redact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := guard.New(guard.Config{Redactor: r, Registerer: reg, Policies: exclude.Policies{
		Gateway: exclude.MustCompile(".env", "secrets/**"),
		Agent: func(name string) *exclude.Policy {
			if name == "ops" {
				return exclude.MustCompile("*.pem")
			}
			return nil
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// toolCalls is an assistant's message calling tools, each name and its
// arguments.
func toolCalls(calls ...[3]string) llm.Message {
	var cs []llm.ToolCall
	for _, c := range calls {
		cs = append(cs, llm.ToolCall{ID: c[0], Name: c[1], Arguments: c[2]})
	}
	return llm.AssistantMessage("", cs)
}

// result is a tool message with a result in the protocol's shape.
func result(id string, v any) llm.Message {
	data, err := json.Marshal(map[string]any{"callId": id, "status": "SUCCESS", "result": v, "executionTime": 3})
	if err != nil {
		panic(err)
	}
	return llm.ToolMessage(id, string(data))
}

// prompt is a tool loop's request: a system prompt with a credential, a
// read_file of .env, a search whose matches include a file under secrets/,
// a read_file of a .pem file and one of a kept file holding a token.
func prompt() *llm.ChatRequest {
	return &llm.ChatRequest{Model: "m", Messages: []llm.Message{
		{Role: "system", Content: "Deploy with key " + awsKey + ".\nBe brief."},
		{Role: "user", Content: "why does the deploy fail?"},
		toolCalls([3]string{"c1", "read_file", `{"path":".env"}`}, [3]string{"c2", "search_text", `{"query":"password"}`}),
		result("c1", map[string]any{"path": ".env", "content": "DB_PASSWORD=s3cr3t-Pa55w0rd!\n", "startLine": 1, "endLine": 1}),
		result("c2", map[string]any{"matches": []any{
			map[string]any{"path": "src/db.go", "line": 12, "text": "password := os.Getenv(\"DB_PASSWORD\")"},
			map[string]any{"path": "deploy/secrets/db.yaml", "line": 3, "text": "password: hunter2"},
		}, "truncated": false}),
		toolCalls([3]string{"c3", "read_file", `{"path":"certs/tls.pem"}`}, [3]string{"c4", "read_file", `{"path":"ci.yaml"}`}),
		result("c3", map[string]any{"path": "certs/tls.pem", "content": "-----BEGIN CERTIFICATE-----"}),
		result("c4", map[string]any{"path": "ci.yaml", "content": "env:\n  GH_TOKEN: " + ghpKey + "\n"}),
	}}
}

// watched returns a context watched by the guard and rec, routed to agent.
func watched(t *testing.T, g *guard.Guard, rec *observetest.Recorder, agent string) (context.Context, *observe.Watch) {
	return watchedB(t, g, rec, agent)
}

// watchedB is watched for tests and benchmarks.
func watchedB(t testing.TB, g *guard.Guard, rec *observetest.Recorder, agent string) (context.Context, *observe.Watch) {
	ctx, w := observe.Observers{g, rec}.Begin(t.Context(), &observe.Request{Source: observe.SourceHTTP})
	w.Routed(agent, "default", true)
	return ctx, w
}

// TestGuard: what leaves for agent ops, byte for byte (golden): the
// credentials replaced by placeholders, .env's and tls.pem's content and
// the search match under secrets/ withheld with their notes, the rest
// as it was; the request given is not changed; the access log's counts
// and the metrics say what was taken out.
func TestGuard(t *testing.T) {
	reg := prometheus.NewRegistry()
	g := newGuard(t, reg)
	rec := &observetest.Recorder{}
	ctx, w := watched(t, g, rec, "ops")
	req := prompt()
	before, err := req.Body()
	if err != nil {
		t.Fatal(err)
	}
	out := g.Guard(ctx, req)
	body, err := out.Body()
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/ops.json", append(body, '\n'))
	for _, secret := range []string{awsKey, ghpKey, "s3cr3t", "hunter2", "BEGIN CERTIFICATE"} {
		if strings.Contains(string(body), secret) {
			t.Errorf("%q left", secret)
		}
	}
	if after, _ := req.Body(); string(after) != string(before) {
		t.Error("the request given was changed")
	}
	w.End(observe.Outcome{})
	o := rec.Outcomes()[0]
	if want := []observe.Redaction{{Rule: "aws-access-token", Count: 1}, {Rule: "github-pat", Count: 1}}; !slices.Equal(o.Redactions, want) || o.Withheld != 3 {
		t.Errorf("outcome redactions %v withheld %d, want %v and 3", o.Redactions, o.Withheld, want)
	}
	if got := testutil.ToFloat64(mustCounter(t, reg, "agentgw_content_withheld_total", "tool_result")); got != 3 {
		t.Errorf("withheld metric %v, want 3", got)
	}
	if got := testutil.ToFloat64(mustCounter(t, reg, "agentgw_redactions_total", "github-pat")); got != 1 {
		t.Errorf("redactions metric %v, want 1", got)
	}
}

// TestAgentPolicy: another agent's requests keep the .pem file (ops' own
// pattern), and the gateway's patterns apply.
func TestAgentPolicy(t *testing.T) {
	g := newGuard(t, nil)
	ctx, _ := watched(t, g, &observetest.Recorder{}, "dev")
	body, err := g.Guard(ctx, prompt()).Body()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), "BEGIN CERTIFICATE") || strings.Contains(string(body), "s3cr3t") {
		t.Errorf("dev's request:\n%s", body)
	}
}

// TestUntouched: a request with nothing to take out is the request given,
// not a copy; so is any request when nothing is configured.
func TestUntouched(t *testing.T) {
	g := newGuard(t, nil)
	ctx, _ := watched(t, g, &observetest.Recorder{}, "ops")
	req := &llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: "hello"},
		toolCalls([3]string{"c1", "read_file", `{"path":"main.go"}`}), result("c1", map[string]any{"path": "main.go", "content": "package main"})}}
	if out := g.Guard(ctx, req); out != req {
		t.Error("a request without anything to take out was copied")
	}
	none, err := guard.New(guard.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if req := prompt(); none.Guard(t.Context(), req) != req {
		t.Error("a guard without policy or redactor changed a request")
	}
}

func mustCounter(t *testing.T, reg *prometheus.Registry, name, label string) prometheus.Collector {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if m.GetLabel()[0].GetValue() == label {
				return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "x", Help: "x"}, func() float64 { return m.GetCounter().GetValue() })
			}
		}
	}
	t.Fatalf("no %s{%s}", name, label)
	return nil
}
