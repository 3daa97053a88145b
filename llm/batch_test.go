package llm

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/internal/golden"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/sse"
)

// TestStreamBatchesABurst: ten chunks that arrive in one read leave with
// one flush: that of the last chunk; or, when the terminator came in the
// same read, none: they stay held for the caller's End to flush with its
// own frames.
func TestStreamBatchesABurst(t *testing.T) {
	burst, chunks := events(10)
	buffered := slices.Repeat([]string{"buffer"}, 9)
	tests := []struct {
		name, tail string
		want       []string
	}{
		{"then silence", "", slices.Concat(buffered, []string{"chunk"})},
		{"with the terminator", llmtest.Done, slices.Concat(buffered, []string{"buffer"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, pw := pipeClient(t)
			flushed := make(chan int, 10)
			sink := &batchSink{onFlush: func(sent int) { flushed <- sent }}
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, _ = pw.Write([]byte(burst + tt.tail))
				if tt.tail == "" && !waitSent(flushed, 10) {
					t.Error("the burst was not flushed")
				}
				pw.Close()
			}()
			res, err := c.Stream(context.Background(), simpleRequest, sink)
			<-done
			if !okOrTruncated(err) || res.Chunks != 10 {
				t.Fatalf("Stream = %+v, %v", res, err)
			}
			calls, _, _ := sink.state()
			if err := sink.Flush(); err != nil { // what End does
				t.Fatal(err)
			}
			_, got, held := sink.state()
			if !slices.Equal(calls, tt.want) || !slices.Equal(got, chunks) || held != 0 {
				t.Errorf("calls %q (held %d), want %q; chunks in order: %v", calls, held, tt.want, slices.Equal(got, chunks))
			}
		})
	}
}

// TestStreamThroughWriterBatches relays a stream that arrives in one read
// into an sse.Writer: the bytes are those of the unbatched relay (the golden
// file of TestStreamThroughWriter), sent with End's one flush.
func TestStreamThroughWriterBatches(t *testing.T) {
	c := burstClient(t, "normal.sse")
	out := &countFlusher{}
	w := sse.NewWriter(out, sse.Options{ID: "chatcmpl-gw", Model: "gpt-4o", Created: 1700000000})
	if _, err := c.Stream(context.Background(), simpleRequest, w); err != nil {
		t.Fatal(err)
	}
	if out.flushes != 0 {
		t.Errorf("%d flushes before End for one upstream read ending with the terminator, want 0", out.flushes)
	}
	if err := w.End(); err != nil {
		t.Fatal(err)
	}
	if out.flushes != 1 {
		t.Errorf("%d flushes in all, want 1", out.flushes)
	}
	golden.Check(t, "testdata/normal.out.sse", out.buf.Bytes())
}

// TestStreamBatchesOverHTTP sends ten chunks in one Write through a real
// HTTP upstream: the sink must see fewer flushes than chunks.
func TestStreamBatchesOverHTTP(t *testing.T) {
	stream, chunks := events(10)
	// The ten chunks in one write.
	u := newUpstream(t, llmtest.Repeat(llmtest.Stream(llmtest.Raw(stream), llmtest.DoneEvent())))
	sink := &batchSink{}
	if _, err := newTestClient(t, u, Config{}).Stream(context.Background(), simpleRequest, sink); err != nil {
		t.Fatal(err)
	}
	calls, _, _ := sink.state()
	if err := sink.Flush(); err != nil { // what End does
		t.Fatal(err)
	}
	_, got, held := sink.state()
	flushes := len(calls) - strings.Count(strings.Join(calls, " "), "buffer")
	if !slices.Equal(got, chunks) || held != 0 || flushes >= len(chunks) {
		t.Errorf("calls %q, %d held; want every chunk, in order, with fewer flushes than chunks", calls, held)
	}
}

// TestStreamNoChunkWaits: the upstream sends a chunk together with the
// first half of the next one and sends the rest only once the client has
// the first chunk. A relay that held the first chunk until more data came
// would never finish.
func TestStreamNoChunkWaits(t *testing.T) {
	c, pw := pipeClient(t)
	_, chunks := events(3)
	second := "data: " + chunks[1] + "\n\n"
	flushed := make(chan int, 10)
	sink := &batchSink{onFlush: func(sent int) { flushed <- sent }}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer pw.Close()
		steps := []struct {
			write string
			// sent is how many chunks the client must have before the
			// next write.
			sent int
		}{
			{"data: " + chunks[0] + "\n\n" + second[:20], 1},
			{second[20:], 2},
			{"data: " + chunks[2] + "\n\n", 3},
		}
		for _, step := range steps {
			if _, err := pw.Write([]byte(step.write)); err != nil {
				t.Error(err)
				return
			}
			if !waitSent(flushed, step.sent) {
				t.Errorf("chunk %d was not flushed while the upstream waited", step.sent)
				return
			}
		}
	}()
	res, err := c.Stream(context.Background(), simpleRequest, sink)
	<-done
	if !okOrTruncated(err) || res.Chunks != 3 {
		t.Fatalf("Stream = %+v, %v", res, err)
	}
	calls, got, _ := sink.state()
	if want := []string{"buffer", "flush", "chunk", "chunk"}; !slices.Equal(calls, want) || !slices.Equal(got, chunks) {
		t.Errorf("calls %q, want %q", calls, want)
	}
}

// TestStreamFlushesOnEveryEnd: chunks held when the stream ends are flushed
// before Stream returns, whatever ends it, but the terminator: then they
// stay held for the caller's End, and Stream returns without waiting for
// the rest of the body, which it drains in the background.
func TestStreamFlushesOnEveryEnd(t *testing.T) {
	burst, chunks := events(3)
	tests := []struct {
		name, tail string
		// open keeps the body open until the client has the chunks.
		open bool
		kind ErrorKind
	}{
		{"terminator, body kept open", llmtest.Done, true, 0},
		{"end of body", "", false, KindTruncated},
		{"error event", "event: error\ndata: {\"message\":\"Overloaded\"}\n\n", false, KindStream},
		{"error chunk", `data: {"error":{"message":"boom"}}` + "\n\n", false, KindStream},
		{"malformed chunk", "data: {oops\n\n", false, KindStream},
		{"broken body", "data: {\"id\":", false, KindStream},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, pw := pipeClient(t)
			flushed := make(chan int, 10)
			sink := &batchSink{onFlush: func(sent int) { flushed <- sent }}
			done := make(chan struct{})
			returned := make(chan struct{})
			go func() {
				defer close(done)
				_, _ = pw.Write([]byte(burst + tt.tail))
				if tt.open {
					<-returned
					// Stream returned; the drain is still reading: the call
					// has not been abandoned.
					if _, err := pw.Write([]byte(": after the terminator\n\n")); err != nil {
						t.Errorf("the body was abandoned instead of drained: %v", err)
					}
				}
				if tt.name == "broken body" {
					pw.CloseWithError(io.ErrUnexpectedEOF)
					return
				}
				pw.Close()
			}()
			res, err := c.Stream(context.Background(), simpleRequest, sink)
			close(returned)
			<-done
			if tt.kind == 0 && err != nil {
				t.Fatalf("Stream: %v", err)
			}
			if tt.kind != 0 {
				asError(t, err, tt.kind)
			}
			if _, _, held := sink.state(); tt.open && held != 3 {
				t.Errorf("%d chunks held after the terminator, want 3 (for End)", held)
			}
			if tt.open {
				if err := sink.Flush(); err != nil {
					t.Fatal(err)
				}
			}
			_, got, held := sink.state()
			if res.Chunks != 3 || !slices.Equal(got, chunks) || held != 0 {
				t.Errorf("Result.Chunks %d, sink got %d chunks, %d still held", res.Chunks, len(got), held)
			}
		})
	}
}

func TestStreamBatchSinkFailures(t *testing.T) {
	errGone := errors.New("client went away")
	tests := []struct {
		name string
		sink *batchSink
	}{
		{"flush fails", &batchSink{failFlush: errGone}},
		{"buffer fails", &batchSink{failBuffer: errGone}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, pw := pipeClient(t)
			burst, _ := events(3)
			// Half an event follows the burst: the relay flushes before
			// reading the rest, which never comes.
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, _ = pw.Write([]byte(burst + "data: {"))
			}()
			_, err := c.Stream(context.Background(), simpleRequest, tt.sink)
			<-done // the canceled call broke the pipe
			if e := asError(t, err, KindCanceled); !errors.Is(e, errGone) {
				t.Errorf("error %v does not wrap the sink's", e)
			}
		})
	}
}
