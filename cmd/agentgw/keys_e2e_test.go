package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/internal/pgtest"
	"github.com/agentgw/agentgw/llm/llmtest"
)

// keyCall sends a request with the bearer credential cred and returns the
// status and the whole body (a stream's frames as text).
func keyCall(t *testing.T, method, url, cred, body string) (int, string) {
	t.Helper()
	req := newRequest(t, method, url, body)
	if cred != "" {
		req.Header.Set("Authorization", "Bearer "+cred)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(data)
}

// keyJSON is a key as POST /keys and `agentgw keys create --json` print it.
type keyJSON struct {
	ID     string `json:"id"`
	Secret string `json:"secret"`
	Owner  string `json:"owner"`
}

// TestKeysThreeReplicas runs three gateway processes with stored keys
// (AGENTGW_KEYS=true) on one PostgreSQL database. The first admin key is
// made by `agentgw keys create`, another process; a key made over the API
// on replica 1 works on 2 and 3 at once and is refused there outside its
// scope; revoked on 2, it is refused by 1 and 3 on their very next
// request; one revoked by `agentgw keys revoke` is refused by all three.
// No secret is in any replica's log.
func TestKeysThreeReplicas(t *testing.T) {
	storeURL := pgtest.Schema(t) // skips, or fails under AGENTGW_REQUIRE_POSTGRES=1, without a server
	bin := buildGateway(t, t.TempDir())
	dir := t.TempDir()
	agents := filepath.Join(dir, "agents")
	writeFile(t, agents, "chatter.yaml", "name: chatter\ncommands:\n  - name: default\n    messageTemplates: [{role: system, template: Chat.}]\n")
	writeFile(t, agents, "other.yaml", "name: other\ncommands:\n  - name: default\n    messageTemplates: [{role: system, template: Other.}]\n")
	model := llmtest.New(t, llmtest.Respond(scriptedModel))
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(dir, "home"),
		"XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"AGENTGW_STORE_URL=" + storeURL,
		"AGENTGW_KEYS=true",
		"AGENTGW_LOG_FORMAT=json",
		"AGENTGW_LOG_LEVEL=debug",
	}
	cli := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"keys"}, args...)...)
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("agentgw keys %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	var admin keyJSON
	if err := json.Unmarshal([]byte(cli("create", "--team", "ops", "--agents", "*", "--admin", "--json")), &admin); err != nil || admin.Secret == "" {
		t.Fatalf("agentgw keys create: %v %+v", err, admin)
	}
	secrets := []string{admin.Secret}

	var reps []*replica
	for _, name := range []string{"1", "2", "3"} {
		reps = append(reps, startReplica(t, name, bin, env, "--agents", agents, "--upstream", model.URL()))
	}
	chat := func(r *replica, agent, cred string) (int, string) {
		t.Helper()
		return keyCall(t, "POST", r.base+"/agents/"+agent, cred,
			`{"contextVariables":[{"name":"userInputPrompt","value":"hi"}]}`)
	}
	answered := func(status int, body string) bool {
		return status == http.StatusOK && strings.Contains(body, `"finish_reason":"stop"`) && !strings.Contains(body, "copilot_error")
	}

	// No credential: every replica refuses; the admin key made by another
	// process works on every one.
	for _, r := range reps {
		if code, body := chat(r, "chatter", ""); code != http.StatusUnauthorized {
			t.Fatalf("replica %s without a key: %d %s", r.name, code, body)
		}
		if code, body := chat(r, "other", admin.Secret); !answered(code, body) {
			t.Fatalf("replica %s with the admin key: %d %s", r.name, code, body)
		}
	}

	var alice keyJSON
	code, body := keyCall(t, "POST", reps[0].base+"/keys", admin.Secret, `{"user":"alice","agents":["chatter"]}`)
	if code != http.StatusCreated || json.Unmarshal([]byte(body), &alice) != nil || alice.Owner != "member:alice" {
		t.Fatalf("POST /keys on 1: %d %s", code, body)
	}
	secrets = append(secrets, alice.Secret)
	if code, body := keyCall(t, "POST", reps[1].base+"/keys", alice.Secret, `{"user":"alice","agents":["*"],"admin":true}`); code != http.StatusForbidden {
		t.Errorf("alice's key made a key on 2: %d %s", code, body)
	}
	for _, r := range reps[1:] {
		if code, body := chat(r, "chatter", alice.Secret); !answered(code, body) {
			t.Errorf("alice's key made on 1, on %s: %d %s", r.name, code, body)
		}
		if code, body := chat(r, "other", alice.Secret); code != http.StatusForbidden || !strings.Contains(body, `"FORBIDDEN"`) {
			t.Errorf("alice's key on an agent out of its scope, on %s: %d %s", r.name, code, body)
		}
	}

	// Revoked on 2: refused by 1 and 3 on their next request.
	if code, body := keyCall(t, "DELETE", reps[1].base+"/keys/"+alice.ID, admin.Secret, ""); code != http.StatusOK {
		t.Fatalf("DELETE on 2: %d %s", code, body)
	}
	for _, r := range []*replica{reps[0], reps[2], reps[1]} {
		if code, body := chat(r, "chatter", alice.Secret); code != http.StatusUnauthorized || !strings.Contains(body, `"UNAUTHORIZED"`) {
			t.Errorf("alice's key revoked on 2, on %s: %d %s", r.name, code, body)
		}
	}

	// Rotated on 3 and revoked by the CLI: each change holds everywhere.
	var bob keyJSON
	if code, body := keyCall(t, "POST", reps[2].base+"/keys", admin.Secret, `{"user":"bob","team":"platform","agents":["*"]}`); code != http.StatusCreated || json.Unmarshal([]byte(body), &bob) != nil {
		t.Fatalf("POST /keys on 3: %d %s", code, body)
	}
	var rotated keyJSON
	if code, body := keyCall(t, "POST", reps[2].base+"/keys/"+bob.ID+"/rotate", admin.Secret, ""); code != http.StatusOK || json.Unmarshal([]byte(body), &rotated) != nil {
		t.Fatalf("rotate on 3: %d %s", code, body)
	}
	secrets = append(secrets, bob.Secret, rotated.Secret)
	for _, r := range reps {
		if code, _ := chat(r, "chatter", bob.Secret); code != http.StatusUnauthorized {
			t.Errorf("bob's secret before rotation, on %s: %d", r.name, code)
		}
		if code, body := chat(r, "chatter", rotated.Secret); !answered(code, body) {
			t.Errorf("bob's rotated key, on %s: %d %s", r.name, code, body)
		}
	}
	if out := cli("revoke", bob.ID); !strings.Contains(out, "revoked") {
		t.Fatalf("agentgw keys revoke: %s", out)
	}
	for _, r := range reps {
		if code, _ := chat(r, "chatter", rotated.Secret); code != http.StatusUnauthorized {
			t.Errorf("bob's key revoked by the CLI, on %s: %d", r.name, code)
		}
	}

	list := cli("list")
	for _, s := range secrets {
		if strings.Contains(list, s[len("agw_"):]) {
			t.Errorf("agentgw keys list shows a secret:\n%s", list)
		}
		for _, r := range reps {
			if strings.Contains(r.stderr.String(), s[len("agw_"):]) {
				t.Errorf("replica %s logged a key's secret", r.name)
			}
		}
	}
	if !strings.Contains(reps[0].stderr.String(), `"msg":"inbound keys: the store's (agentgw keys)"`) {
		t.Errorf("replica 1 does not say it takes stored keys; its log:\n%s", reps[0].stderr.String())
	}
}
