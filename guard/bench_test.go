package guard_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/observe/observetest"
)

// codePrompt is a prompt of about size bytes: a system prompt and the
// gateway's own Go source as the editor's content, without credentials.
func codePrompt(b *testing.B, size int) *llm.ChatRequest {
	b.Helper()
	var sb strings.Builder
	files, _ := filepath.Glob(filepath.Join("..", "llm", "*.go"))
	for sb.Len() < size {
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			sb.Write(data)
		}
	}
	return &llm.ChatRequest{Model: "m", Messages: []llm.Message{
		{Role: "system", Content: "You help with the open file:\n" + sb.String()[:size]},
		{Role: "user", Content: "what does it do?"},
	}}
}

// BenchmarkGuard is the cost of guarding a model call's prompt of ordinary
// code with redaction and exclusion on (ns/op over the size in KiB is the
// cost per KiB of prompt): what a gateway with contentGuard configured
// adds to each model call. "off" is a gateway without a guard's pattern
// for the agent and without redaction: the request is returned as it is.
func BenchmarkGuard(b *testing.B) {
	g := newGuard(b, nil)
	rec := &observetest.Recorder{}
	for _, size := range []int{1 << 10, 16 << 10, 128 << 10} {
		req := codePrompt(b, size)
		b.Run("on/"+strconv.Itoa(size>>10)+"KiB", func(b *testing.B) {
			ctx, _ := watchedB(b, g, rec, "ops")
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				g.Guard(ctx, req)
			}
		})
	}
}
