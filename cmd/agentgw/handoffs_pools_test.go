package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestHandoffPools: a message to a named pool of handoffs.pools (the
// seed's technical_support_agent_pool) goes to its agents in turn; the
// message keeps the pool's name.
func TestHandoffPools(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"support_a", "support_b"} {
		writeFile(t, dir, "agents/"+name+".yaml", `name: `+name+`
handoffs:
  - {type: NOTIFICATION, command: default}
commands:
  - name: default
    reply: "`+name+` took {{ .handoff.payload.data.message }}"
`)
	}
	cfg := testConfig(t, "")
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	cfg.Handoffs.Pools = map[string][]string{"technical_support_agent_pool": {"support_a", "support_b"}}
	base := startGateway(t, cfg, nil)
	var took []string
	for i := range 2 {
		msg := fmt.Sprintf(`{"metadata":{"message_id":"7f1f0a52-9a5e-4b8e-8f00-00000000010%d","timestamp":"2026-01-02T03:04:05Z",`+
			`"protocol_version":"1.0.0","sender_id":"customer_service_agent_001","recipient_id":"technical_support_agent_pool","task_id":"task-pool-%d","priority":"HIGH"},`+
			`"context":{"workflow_state":"CUSTOMER_ISSUE_ESCALATED","previous_actions":[]},"payload":{"handoff_type":"NOTIFICATION","data":{"event_type":"x","message":"case %d"}},"instructions":{}}`, i, i, i)
		var st handoffStatus
		if code := jsonCall(t, "POST", base+"/handoffs", msg, &st); code != http.StatusAccepted ||
			strings.Join(st.Recipients, ",") != "support_a,support_b" {
			t.Fatalf("POST /handoffs = %d %+v", code, st)
		}
		done := waitTask(t, base, fmt.Sprintf("task-pool-%d", i), 1)[0]
		if done.Status != "COMPLETED" || done.Result.Text != fmt.Sprintf("%s took case %d", done.Result.Agent, i) {
			t.Fatalf("the message: %+v", done)
		}
		took = append(took, done.Result.Agent)
		var raw struct {
			Message struct {
				Metadata struct {
					RecipientID string `json:"recipient_id"`
				}
			}
		}
		jsonCall(t, "GET", base+"/handoffs/"+st.MessageID, "", &raw)
		if raw.Message.Metadata.RecipientID != "technical_support_agent_pool" {
			t.Errorf("the stored message's recipient_id is %q", raw.Message.Metadata.RecipientID)
		}
	}
	if slices.Sort(took); strings.Join(took, ",") != "support_a,support_b" {
		t.Errorf("the pool's agents took %v, want one each", took)
	}

	// A name that is neither an agent nor a pool is still unknown.
	var e struct{ Content struct{ ErrorCode string } }
	if code := jsonCall(t, "POST", base+"/handoffs",
		`{"metadata":{"message_id":"7f1f0a52-9a5e-4b8e-8f00-000000000199","timestamp":"2026-01-02T03:04:05Z","protocol_version":"1.0.0","sender_id":"c","recipient_id":"billing_pool","task_id":"t","priority":"LOW"},"context":{"workflow_state":"X","previous_actions":[]},"payload":{"handoff_type":"NOTIFICATION","data":{"event_type":"x","message":"y"}},"instructions":{}}`, &e); code != http.StatusNotFound || e.Content.ErrorCode != "AGENT_NOT_FOUND" {
		t.Errorf("an unknown recipient = %d %+v", code, e)
	}
}

// TestHandoffPoolsConfig: pools that are no pools are refused at start.
func TestHandoffPoolsConfig(t *testing.T) {
	for _, tc := range []struct {
		pools map[string][]string
		want  string
	}{
		{map[string][]string{"p": {}}, "handoffs.pools.p: a pool needs at least one agent"},
		{map[string][]string{"a,b": {"x"}}, `handoffs.pools: "a,b" is not a pool name (no commas)`},
		{map[string][]string{"p": {"q"}, "q": {"x"}}, `handoffs.pools.p: "q" is not an agent name (nor another pool)`},
	} {
		err := HandoffsConfig{Pools: tc.pools}.check()
		if err == nil || err.Error() != tc.want {
			t.Errorf("%v: %v, want %s", tc.pools, err, tc.want)
		}
	}
}
