package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/openaiapi"
	"github.com/agentgw/agentgw/server"
)

// fakeMeter admits or refuses every request as told, and keeps what it
// was asked and the outcomes of the requests it admitted.
type fakeMeter struct {
	refuse *apierr.Error
	mu     sync.Mutex
	admits []int64
	ends   []observe.Outcome
	asked  []string
	who    []access.Caller
}

func (m *fakeMeter) Begin(ctx context.Context, r *observe.Request) (context.Context, observe.Run) {
	return ctx, observe.Nop{}
}

func (m *fakeMeter) Admit(_ context.Context, who access.Caller, _ string, n int64) (observe.Run, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.admits = append(m.admits, n)
	m.who = append(m.who, who)
	if m.refuse != nil {
		return nil, m.refuse
	}
	return &endRun{m: m}, nil
}

func (m *fakeMeter) Usage(_ context.Context, who access.Caller, by string, since time.Time) (json.RawMessage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.asked = append(m.asked, by+" "+since.UTC().Format(time.RFC3339))
	m.who = append(m.who, who)
	return json.RawMessage(`{"rows":[]}`), nil
}

type endRun struct {
	observe.Nop
	m *fakeMeter
}

func (r *endRun) End(o observe.Outcome) {
	r.m.mu.Lock()
	r.m.ends = append(r.m.ends, o)
	r.m.mu.Unlock()
}

func withMeter(m server.Meter) option { return withServer(func(c *server.Config) { c.Meter = m }) }

// TestMeterRefuses: a request the meter refuses is answered in the
// protocol's error shape with when the budget resets (details.resetsAt
// and Retry-After), and the model is never called; POST /mcp, whose
// tools may run agents, is metered too.
func TestMeterRefuses(t *testing.T) {
	t.Parallel()
	resets := time.Now().Add(90 * time.Second).Truncate(time.Second)
	m := &fakeMeter{refuse: apierr.Errorf(apierr.CodeBudgetExceeded, "the team core has spent its budget").Until(resets)}
	var mcpCalls atomic.Int64
	g := newGateway(t, withMeter(m), withModel(llmtest.Repeat(llmtest.Text("hi"))),
		withServer(func(c *server.Config) {
			c.MCP = http.HandlerFunc(func(http.ResponseWriter, *http.Request) { mcpCalls.Add(1) })
		}))
	if resp := post(t, g.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`); resp.status != http.StatusTooManyRequests || mcpCalls.Load() != 0 {
		t.Errorf("POST /mcp: %d, the MCP handler ran %d times", resp.status, mcpCalls.Load())
	}
	m.admits = nil
	body := `{"contextVariables":[{"name":"userInputPrompt","value":"hello"}]}`
	resp := post(t, g.URL+"/agents/chat", body)
	var e server.ErrorResponse
	if err := json.Unmarshal(resp.body, &e); err != nil {
		t.Fatalf("%s: %v", resp.body, err)
	}
	if resp.status != http.StatusTooManyRequests || e.Content.ErrorCode != apierr.CodeBudgetExceeded ||
		e.Content.Details.ResetsAt != resets.UTC().Format(time.RFC3339) || e.Content.Recoverable {
		t.Errorf("answered %d %s", resp.status, resp.body)
	}
	if ra, err := strconv.Atoi(resp.header.Get("Retry-After")); err != nil || ra < 80 || ra > 90 {
		t.Errorf("Retry-After %q", resp.header.Get("Retry-After"))
	}
	if g.up.Count() != 0 {
		t.Errorf("the model was called %d times", g.up.Count())
	}
	if len(m.admits) != 1 || m.admits[0] != int64(len(body)) {
		t.Errorf("Admit saw bodies of %v bytes, want [%d]", m.admits, len(body))
	}
	if get(t, g.URL+"/agents").status != http.StatusOK {
		t.Error("GET /agents was metered")
	}
}

// TestMeterSeesUsage: an admitted request's Run ends with the model's
// usage, the agent and the model.
func TestMeterSeesUsage(t *testing.T) {
	t.Parallel()
	m := &fakeMeter{}
	g := newGateway(t, withMeter(m), withModel(llmtest.Repeat(llmtest.Answer{Model: "gpt-test", Text: []string{"hi"},
		Usage: &llmtest.Usage{PromptTokens: 12, CompletionTokens: 3, TotalTokens: 15}}.Reply())))
	resp := post(t, g.URL+"/agents/chat", `{"contextVariables":[{"name":"userInputPrompt","value":"hello"}]}`)
	if resp.status != http.StatusOK {
		t.Fatalf("%d %s", resp.status, resp.body)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.ends) != 1 {
		t.Fatalf("%d ends", len(m.ends))
	}
	o := m.ends[0]
	if o.Agent != "chat" || o.Model != "default-model" || o.Usage != (observe.Usage{In: 12, Out: 3}) {
		t.Errorf("ended with %+v", o)
	}
	if !m.who[0].Admin || m.who[0].Owner != server.Anonymous {
		t.Errorf("caller %+v", m.who[0])
	}
}

// TestUsageEndpoint: GET /usage hands by and since to the meter with the
// caller; a since that is no time is BAD_REQUEST.
func TestUsageEndpoint(t *testing.T) {
	t.Parallel()
	m := &fakeMeter{}
	g := newGateway(t, withMeter(m), withAuthTokens("tok-1"))
	req, _ := http.NewRequest(http.MethodGet, g.URL+"/usage?by=team&since=2026-11-01", nil)
	req.Header.Set("Authorization", "Bearer tok-1")
	if resp := do(t, req); resp.status != http.StatusOK || string(resp.body) != `{"rows":[]}` {
		t.Errorf("answered %d %s", resp.status, resp.body)
	}
	req, _ = http.NewRequest(http.MethodGet, g.URL+"/usage?since=yesterday", nil)
	req.Header.Set("Authorization", "Bearer tok-1")
	if resp := do(t, req); resp.status != http.StatusBadRequest {
		t.Errorf("since=yesterday answered %d %s", resp.status, resp.body)
	}
	if resp := get(t, g.URL+"/usage"); resp.status != http.StatusUnauthorized {
		t.Errorf("without a token: %d", resp.status)
	}
	if len(m.asked) != 1 || m.asked[0] != "team 2026-11-01T00:00:00Z" || m.who[0].Admin || !access.Authenticated(m.who[0].Owner) {
		t.Errorf("asked %v by %+v", m.asked, m.who)
	}
}

// countingOpenAI is a /v1 handler that counts the requests it gets, and
// renders errors as openaiapi does.
type countingOpenAI struct{ n *atomic.Int64 }

func (o countingOpenAI) ServeHTTP(w http.ResponseWriter, _ *http.Request) { o.n.Add(1) }
func (countingOpenAI) WriteError(w http.ResponseWriter, e *apierr.Error)  { openaiapi.WriteError(w, e) }

// TestMeterRefusesOpenAI: on /v1/chat/completions a refusal is OpenAI's
// insufficient_quota with Retry-After, and the handler never runs; GET
// /v1/models is not metered.
func TestMeterRefusesOpenAI(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	m := &fakeMeter{refuse: apierr.Errorf(apierr.CodeBudgetExceeded, "the key k1 has spent its budget").Until(time.Now().Add(time.Hour))}
	g := newGateway(t, withMeter(m), withServer(func(c *server.Config) { c.OpenAI = countingOpenAI{&n} }))
	resp := post(t, g.URL+"/v1/chat/completions", `{"model":"chat","messages":[{"role":"user","content":"hi"}]}`)
	want := `{"error":{"message":"the key k1 has spent its budget (wait until the budget resets (details.resetsAt, Retry-After), or ask the gateway's operator to raise it (usage.budgets))","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}` + "\n"
	if resp.status != http.StatusTooManyRequests || string(resp.body) != want || resp.header.Get("Retry-After") == "" {
		t.Errorf("%d %v\n%s\nwant\n%s", resp.status, resp.header, resp.body, want)
	}
	if get(t, g.URL+"/v1/models").status != http.StatusOK || n.Load() != 1 {
		t.Errorf("the handler ran %d times, want once (GET /v1/models)", n.Load())
	}
}
