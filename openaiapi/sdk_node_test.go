package openaiapi_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// nodeDir holds the Node client and its package.json; .ci/run installs
// its node_modules (npm ci).
var nodeDir = filepath.Join("testdata", "node")

// TestNodeSDK: the official openai Node SDK lists the models, gets a whole
// answer, a stream with usage and an error, each exactly as it must be.
// Without node or the installed SDK the test skips, unless
// AGENTGW_REQUIRE_NODE_SDK=1 (set by .ci/run) makes that a failure.
func TestNodeSDK(t *testing.T) {
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(nodeDir, "node_modules", "openai", "package.json"))
	}
	if err != nil {
		if os.Getenv("AGENTGW_REQUIRE_NODE_SDK") == "1" {
			t.Fatalf("the Node SDK test cannot run (AGENTGW_REQUIRE_NODE_SDK=1): %v; run npm ci in %s", err, nodeDir)
		}
		t.Skipf("NODE SDK TEST NOT RUN: %v (npm ci in %s installs the SDK)", err, nodeDir)
	}
	gw := start(t, setup{tokens: []string{"gw-token"}})
	cmd := exec.Command(node, "client.mjs")
	cmd.Dir = nodeDir
	cmd.Env = append(os.Environ(), "AGENTGW_URL="+gw.URL+"/v1", "AGENTGW_KEY=gw-token")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client.mjs: %v\n%s", err, stderr.String())
	}
	got := chunkID.ReplaceAllString(string(stdout), `"id":"chatcmpl-ID"`)
	chunkOf := func(delta, finish string) string {
		return `{"id":"chatcmpl-ID","object":"chat.completion.chunk","created":1735689600,"model":"hello/version","choices":[{"index":0,"delta":` + delta +
			`,"logprobs":null,"finish_reason":` + finish + `}],"usage":null}`
	}
	want := `{"models":["coder","files","hello","hello/version","reader"],` +
		`"completion":{"id":"chatcmpl-ID","object":"chat.completion","created":1735689600,"model":"hello","choices":[{"index":0,"message":{"role":"assistant",` +
		`"content":` + quote(helloAnswer) + `,"refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":38,"total_tokens":39}},` +
		`"chunks":[` + strings.Join([]string{
		chunkOf(`{"role":"assistant","content":""}`, "null"),
		chunkOf(`{"content":"The current version is v1.0.0\n"}`, "null"),
		chunkOf(`{}`, `"stop"`),
		`{"id":"chatcmpl-ID","object":"chat.completion.chunk","created":1735689600,"model":"hello/version","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":8,"total_tokens":13}}`,
	}, ",") + `],` +
		`"notFound":{"status":404,"code":"model_not_found","type":"invalid_request_error","message":"404 the model \"nope\" does not exist: this endpoint's models are the gateway's agents (GET /v1/models lists them)"}}`
	if got != want {
		t.Errorf("the Node SDK got\n%s\nwant\n%s", got, want)
	}
}
