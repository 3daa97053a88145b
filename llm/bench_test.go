package llm

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/sse"
)

// benchStream is a recorded-style stream of 22 chunks and the terminator.
func benchStream() []string {
	const head = `{"id":"chatcmpl-9xYzAbCdEfGhIjKlMnOpQrStUvW","object":"chat.completion.chunk","created":1712345678,` +
		`"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_abc123","choices":[{"index":0,"delta":`
	events := []string{"data: " + head + `{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}` + "\n\n"}
	for i := range 20 {
		events = append(events, fmt.Sprintf("data: %s{\"content\":\" token%02d\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n", head, i))
	}
	events = append(events, "data: "+head+`{},"logprobs":null,"finish_reason":"stop"}]}`+"\n\n", llmtest.Done)
	return events
}

// benchUpstream serves benchStream, flushing every event. A minimal
// handler, not llmtest, so that the fake costs nothing per request
// (llmtest records each one).
func benchUpstream(b *testing.B) *httptest.Server {
	events := benchStream()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range events {
			_, _ = io.WriteString(w, ev)
			w.(http.Flusher).Flush()
		}
	}))
	b.Cleanup(srv.Close)
	return srv
}

// burstUpstream serves benchStream in one write, as an upstream that
// produces tokens faster than they are read (a minimal handler, as
// benchUpstream's).
func burstUpstream(b *testing.B) *httptest.Server {
	stream := strings.Join(benchStream(), "")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, stream)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkStreamRelay relays whole streams of 22 chunks into an sse.Writer;
// one op is one stream.
func BenchmarkStreamRelay(b *testing.B) { benchRelay(b, benchUpstream(b)) }

// BenchmarkStreamRelayBurst is BenchmarkStreamRelay with the whole stream
// arriving at once: the chunks are batched.
func BenchmarkStreamRelayBurst(b *testing.B) { benchRelay(b, burstUpstream(b)) }

func benchRelay(b *testing.B, srv *httptest.Server) {
	client := defaultHTTPClient(false)
	b.Cleanup(client.CloseIdleConnections)
	c, err := New(Config{BaseURL: srv.URL + "/v1", HTTPClient: client, FirstByteTimeout: time.Minute, IdleTimeout: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		w := sse.NewWriter(io.Discard, sse.Options{ID: "chatcmpl-gw", Model: "m", Created: 1})
		res, err := c.Stream(ctx, simpleRequest, w)
		if err != nil || res.Chunks != 22 {
			b.Fatalf("Stream = %+v, %v", res, err)
		}
		if err := w.End(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStreamBaseline reads the same streams with a bare http.Client and
// io.Copy, the floor that BenchmarkStreamRelay is compared with.
func BenchmarkStreamBaseline(b *testing.B) {
	srv := benchUpstream(b)
	client := defaultHTTPClient(false)
	b.Cleanup(client.CloseIdleConnections)
	body, err := simpleRequest.Body()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		resp, err := client.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(string(body)))
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// BenchmarkRelayChunks is the relay's own CPU per chunk, without HTTP: one
// op relays 220 chunks read from memory (so 4 KiB at a time, batched) into
// an sse.Writer.
func BenchmarkRelayChunks(b *testing.B) {
	benchRelayChunks(b, func(w *sse.Writer) BatchSink { return w })
}

// benchRelayChunks relays 220 chunks from memory per op into the sink sink
// makes in front of an sse.Writer, with the reader buffers pooled as a
// Client pools them, and reports the time per chunk.
func benchRelayChunks(b *testing.B, sink func(w *sse.Writer) BatchSink) {
	events := benchStream()
	chunks := events[:len(events)-1]
	body := []byte(strings.Repeat(strings.Join(chunks, ""), 10) + events[len(events)-1])
	src := bytes.NewReader(body)
	w := sse.NewWriter(io.Discard, sse.Options{ID: "chatcmpl-gw", Model: "m", Created: 1})
	ctx := context.Background()
	var readers sse.ReaderPool
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		src.Reset(body)
		s := sink(w)
		r := &relay{ctx: ctx, call: ctx, cancel: func(error) {}, sink: s, batch: s, readers: &readers}
		if err := r.events(src); err != nil || r.chunks != 10*len(chunks) {
			b.Fatalf("relayed %d chunks: %v", r.chunks, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*10*len(chunks)), "ns/chunk")
}

// BenchmarkHasFinishReason is the per-chunk cost the relay added to tell a
// truncated stream: a chunk ending in a null finish_reason, as all but
// the last of a stream do.
func BenchmarkHasFinishReason(b *testing.B) {
	chunk := []byte(strings.TrimSuffix(strings.TrimPrefix(benchStream()[5], "data: "), "\n\n"))
	for b.Loop() {
		if sse.HasFinishReason(chunk) {
			b.Fatal("finished")
		}
	}
}
