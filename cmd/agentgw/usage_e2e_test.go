package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/internal/pgtest"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/server"
)

// TestBudgetThreeReplicas: three gateway processes on one PostgreSQL
// database hold a team's keys to one small token budget under concurrent
// requests spread over the three: exactly the budget's worth of requests
// reach the model, every other one is refused with BUDGET_EXCEEDED (and
// when it resets) before the model sees it; the usage recorded adds up on
// any replica (GET /usage, agentgw usage), and the 80% warning is logged
// once.
//
// The fake model reports the usage the gateway reserves for each request
// (a token per 4 bytes of the body, and usage.reserveOutputTokens), so
// that settlement changes nothing and the budget holds exactly 5.
func TestBudgetThreeReplicas(t *testing.T) {
	storeURL := pgtest.Schema(t)
	bin := buildGateway(t, t.TempDir())
	dir := t.TempDir()
	agents := filepath.Join(dir, "agents")
	writeFile(t, agents, "chatter.yaml", "name: chatter\ncommands:\n  - name: default\n    messageTemplates: [{role: system, template: Chat.}]\n")
	const reserveOut, fits, requests = 100, 5, 24
	body := `{"contextVariables":[{"name":"userInputPrompt","value":"how much is this?"}]}`
	in := (len(body) + 3) / 4
	per := in + reserveOut
	model := llmtest.New(t, llmtest.Repeat(llmtest.Answer{Text: []string{"cheap"},
		Usage: &llmtest.Usage{PromptTokens: in, CompletionTokens: reserveOut, TotalTokens: per}}.Reply()))
	writeFile(t, dir, "gateway.yaml", fmt.Sprintf(`usage:
  reserveOutputTokens: %d
  prices:
    "*": {input: 1, output: 2}
  budgets:
    - team: core
      tokensPerDay: %d
`, reserveOut, fits*per))
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(dir, "home"),
		"XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"AGENTGW_STORE_URL=" + storeURL,
		"AGENTGW_STATE_SECRET=one secret for every replica",
		"AGENTGW_LOG_FORMAT=json",
		"AGENTGW_ADMIN_TOKENS=admin-token",
		"AGENTGW_KEYS=true",
	}
	var reps []*replica
	for _, name := range []string{"A", "B", "C"} {
		reps = append(reps, startReplica(t, name, bin, env, "--config", filepath.Join(dir, "gateway.yaml"), "--agents", agents, "--upstream", model.URL()))
	}

	// Two keys of team core, made on A.
	var secrets []string
	for _, user := range []string{"ada", "bob"} {
		var k struct{ Secret string }
		resp := call(t, http.MethodPost, reps[0].base+"/keys", "admin-token", `{"user":"`+user+`","team":"core","agents":["*"]}`, &k)
		if resp != http.StatusCreated || !strings.HasPrefix(k.Secret, "agw_") {
			t.Fatalf("POST /keys: %d %+v", resp, k)
		}
		secrets = append(secrets, k.Secret)
	}

	var mu sync.Mutex
	status := map[int]int{}
	var refusals []server.ErrorResponse
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			req, _ := http.NewRequest(http.MethodPost, reps[i%3].base+"/agents/chatter", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+secrets[i%2])
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			mu.Lock()
			defer mu.Unlock()
			status[resp.StatusCode]++
			if resp.StatusCode == http.StatusOK {
				if !bytes.Contains(data, []byte(`"cheap"`)) {
					t.Errorf("an admitted request answered %s", data)
				}
				return
			}
			var e server.ErrorResponse
			if err := json.Unmarshal(data, &e); err != nil {
				t.Errorf("%d %s", resp.StatusCode, data)
			}
			refusals = append(refusals, e)
		}()
	}
	close(start)
	wg.Wait()
	if status[http.StatusOK] != fits || status[http.StatusTooManyRequests] != requests-fits {
		t.Fatalf("answers by status %v, want %d 200 and %d 429", status, fits, requests-fits)
	}
	if model.Count() != fits {
		t.Errorf("the model got %d requests, want %d", model.Count(), fits)
	}
	tomorrow := time.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour).Format(time.RFC3339)
	for _, e := range refusals {
		if e.Content.ErrorCode != "BUDGET_EXCEEDED" || e.Content.Details.ResetsAt != tomorrow ||
			!strings.HasPrefix(e.Content.Message, fmt.Sprintf("the team core has spent its budget of %d tokens per day", fits*per)) {
			t.Errorf("refused with %+v", e.Content)
			break
		}
	}

	// The records reach the database within the recorders' flush (1s).
	want := fmt.Sprintf(`"rows":[{"value":"core","requests":%d,"tokensIn":%d,"tokensOut":%d,"estimated":0,"cost":%g}]`,
		fits, fits*in, fits*reserveOut, float64(fits*(in+2*reserveOut))/1e6)
	var got string
	for range 100 {
		var raw json.RawMessage
		call(t, http.MethodGet, reps[1].base+"/usage?by=team&since=1h", "admin-token", "", &raw)
		if got = string(raw); strings.Contains(got, want) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(got, want) {
		t.Errorf("GET /usage?by=team on B = %s\nwant %s", got, want)
	}
	// A key sees its own usage only; agentgw usage prints it.
	var stdout, stderr bytes.Buffer
	if code := cmdUsage(reps[2].base, secrets[0], "user", "", false, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "ada") ||
		strings.Contains(stdout.String(), "bob") {
		t.Errorf("agentgw usage --by user with ada's key: %d\n%s%s", code, stdout.String(), stderr.String())
	}
	warnings := 0
	for _, r := range reps {
		warnings += strings.Count(r.stderr.String(), `"msg":"usage: budget nearly spent"`)
	}
	if warnings != 1 {
		t.Errorf("%d warnings at 80%% of the budget, want 1", warnings)
	}
}

// call sends a JSON request with the token and decodes the answer into
// out; it returns the status.
func call(t *testing.T, method, url, token, body string, out any) int {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("%s %s: %d %s", method, url, resp.StatusCode, data)
	}
	return resp.StatusCode
}
