package llm

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentgw/agentgw/internal/golden"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/sse"
)

// fragmentsArgs is the arguments text of tool_calls_fragments.sse.
const fragmentsArgs = `{"path":"src/main.go","content":"package main\n\nfunc main() {\n\tprintln(\"h\u00e9llo \ud83d\ude00\")\n}\n"}`

var toolReplays = []struct {
	file string
	// passed are the positions of the file's chunks that reach Next.
	passed []int
	calls  []ToolCall
	text   string
	finish string
}{
	{file: "tool_calls.sse", passed: []int{},
		calls:  []ToolCall{{ID: "call_abc", Name: "get_weather", Arguments: `{"city":"Paris"}`}},
		finish: "tool_calls"},
	{file: "tool_calls_parallel.sse", passed: []int{7}, // the usage-only chunk
		calls: []ToolCall{
			{ID: "call_p1", Name: "get_weather", Arguments: `{"city": "Paris"}`},
			{ID: "call_p2", Name: "get_time", Arguments: `{"tz":"Europe/Paris"}`},
		},
		finish: "tool_calls"},
	{file: "tool_calls_fragments.sse", passed: []int{},
		calls:  []ToolCall{{ID: "call_f1", Name: "write_file", Arguments: fragmentsArgs}},
		finish: "tool_calls"},
	{file: "text_then_tool_calls.sse", passed: []int{0, 1, 2, 6},
		calls:  []ToolCall{{ID: "call_t1", Name: "read_file", Arguments: `{"path":"main.go"}`}},
		text:   "Let me look at \"main.go\" first.\n",
		finish: "tool_calls"},
	{file: "normal.sse", passed: []int{0, 1, 2, 3}, text: "Hello, \"world\"\n", finish: "stop"},
	{file: "usage.sse", passed: []int{0, 1, 2}, text: "Hi", finish: "stop"},
}

// TestToolCallSinkReplays streams the recordings through a ToolCallSink,
// once over HTTP into a plain Sink and once arriving in one read into a
// BatchSink: the same chunks, byte for byte, reach Next, and the calls,
// text and finish reason are assembled.
func TestToolCallSinkReplays(t *testing.T) {
	for _, tt := range toolReplays {
		lines := chunkLines(t, tt.file)
		var want []string
		for _, i := range tt.passed {
			want = append(want, lines[i])
		}
		check := func(t *testing.T, s *ToolCallSink, got []string) {
			t.Helper()
			if !slices.Equal(got, want) {
				t.Errorf("passed on\n%q\nwant\n%q", got, want)
			}
			if calls := s.Calls(); !slices.Equal(calls, tt.calls) {
				t.Errorf("Calls() =\n%q\nwant\n%q", calls, tt.calls)
			}
			if s.Text() != tt.text || s.FinishReason() != tt.finish {
				t.Errorf("Text() = %q, FinishReason() = %q; want %q, %q", s.Text(), s.FinishReason(), tt.text, tt.finish)
			}
		}
		t.Run(tt.file+"/http", func(t *testing.T) {
			u := newUpstream(t, replayFile(t, tt.file))
			next := &recordSink{}
			s := &ToolCallSink{Next: next}
			if _, err := newTestClient(t, u, Config{}).Stream(context.Background(), simpleRequest, s); err != nil {
				t.Fatal(err)
			}
			check(t, s, next.list())
		})
		t.Run(tt.file+"/burst", func(t *testing.T) {
			c := burstClient(t, tt.file)
			next := &batchSink{}
			s := &ToolCallSink{Next: next}
			if _, err := c.Stream(context.Background(), simpleRequest, s); err != nil {
				t.Fatal(err)
			}
			if err := s.Flush(); err != nil { // what End does
				t.Fatal(err)
			}
			calls, got, held := next.state()
			if held != 0 || (len(want) > 1 && !slices.Contains(calls, "buffer")) {
				t.Errorf("calls %q, %d held: want the chunks batched and all flushed", calls, held)
			}
			check(t, s, got)
		})
	}
}

// TestToolCallSinkFlushesWhenItDrops: text chunks that arrive in one read
// with a tool call chunk are buffered; the tool call chunk, last of the
// read, comes through Chunk, which must flush them although it drops its
// own chunk. Otherwise the text waits for the end of the stream.
func TestToolCallSinkFlushesWhenItDrops(t *testing.T) {
	lines := chunkLines(t, "text_then_tool_calls.sse")
	var burst []byte
	for _, l := range lines[:4] { // role, two texts, the first tool call fragment
		burst = append(burst, "data: "+l+"\n\n"...)
	}
	c, pw := pipeClient(t)
	flushed := make(chan int, 10)
	next := &batchSink{onFlush: func(sent int) { flushed <- sent }}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = pw.Write(burst)
		if !waitSent(flushed, 3) {
			t.Error("the text chunks were not flushed while the upstream waited")
		}
		pw.Close()
	}()
	s := &ToolCallSink{Next: next}
	if _, err := c.Stream(context.Background(), simpleRequest, s); !okOrTruncated(err) {
		t.Fatal(err)
	}
	<-done
	calls, got, held := next.state()
	if want := []string{"buffer", "buffer", "buffer", "flush"}; !slices.Equal(calls, want) || held != 0 {
		t.Errorf("calls %q (%d held), want %q", calls, held, want)
	}
	if !slices.Equal(got, lines[:3]) {
		t.Errorf("passed on %q", got)
	}
}

// TestToolCallSinkThroughWriter: what the plugin gets for a turn that
// writes text and then calls a tool: the text chunks, with the gateway's
// id, and the usage-only chunk; no tool call data.
func TestToolCallSinkThroughWriter(t *testing.T) {
	u := newUpstream(t, replayFile(t, "text_then_tool_calls.sse"))
	var out bytes.Buffer
	w := sse.NewWriter(&out, sse.Options{ID: "chatcmpl-gw", Model: "gpt-4o", Created: 1700000000})
	s := &ToolCallSink{Next: w}
	if _, err := newTestClient(t, u, Config{}).Stream(context.Background(), simpleRequest, s); err != nil {
		t.Fatal(err)
	}
	if err := w.End(); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/text_then_tool_calls.out.sse", out.Bytes())
	if bytes.Contains(out.Bytes(), []byte("tool_calls")) {
		t.Error("tool call data reached the plugin")
	}
}

// TestToolCallSinkJSONUpstream: an upstream that answers a non-streamed
// chat.completion with tool calls has it converted into one chunk whose
// fragments carry no index.
func TestToolCallSinkJSONUpstream(t *testing.T) {
	answer, err := os.ReadFile(filepath.Join("testdata", "completion_tool_calls.json"))
	if err != nil {
		t.Fatal(err)
	}
	u := newUpstream(t, llmtest.Repeat(llmtest.JSON(http.StatusOK, string(answer))))
	next := &recordSink{}
	s := &ToolCallSink{Next: next}
	if _, err := newTestClient(t, u, Config{}).Stream(context.Background(), simpleRequest, s); err != nil {
		t.Fatal(err)
	}
	want := []ToolCall{
		{ID: "call_j1", Name: "get_weather", Arguments: `{"city":"Paris"}`},
		{ID: "call_j2", Name: "get_time", Arguments: `{"tz":"Europe/Paris"}`},
	}
	if got := s.Calls(); !slices.Equal(got, want) || s.FinishReason() != "tool_calls" || len(next.list()) != 0 {
		t.Errorf("Calls() = %q, finish %q, passed %q", got, s.FinishReason(), next.list())
	}
}
