package llmtest_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/llm/llmtest"
)

// A test scripts the model's answers and checks what the code under test
// sent it. Here the code under test is a plain HTTP POST.
func Example() {
	t := &testing.T{} // in a test, the test's own t
	m := llmtest.New(t, llmtest.Replies(
		llmtest.Text("Hel", "lo"),
		llmtest.Error(http.StatusTooManyRequests, "slow down"),
	))
	for range 2 {
		resp, err := http.Post(m.URL()+"/chat/completions", "application/json",
			strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
		if err != nil {
			fmt.Println(err)
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Printf("%d %q\n", resp.StatusCode, body)
	}
	last := m.Requests()[1]
	fmt.Println(last.Path, last.Model, last.LastMessage().Content)
	// Output:
	// 200 "data: {\"id\":\"chatcmpl-llmtest\",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":\"llmtest\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"},\"finish_reason\":null}]}\n\ndata: {\"id\":\"chatcmpl-llmtest\",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":\"llmtest\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":null}]}\n\ndata: {\"id\":\"chatcmpl-llmtest\",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":\"llmtest\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	// 429 "{\"error\":{\"message\":\"slow down\"}}"
	// /chat/completions m hi
}
