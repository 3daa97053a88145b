package llm

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/agentgw/agentgw/internal/watchdog"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/sse"
)

// Sink receives the relayed chunks; *sse.Writer satisfies it. Chunk sends
// one chunk to the client at once.
type Sink interface {
	Chunk(raw []byte) error
}

// BatchSink is a Sink that can hold chunks until Flush. Stream hands it a
// chunk with BufferChunk while more upstream data is already buffered and
// flushes as soon as none is, so chunks that arrived together leave together
// and none waits for data that has not arrived. Its Chunk must do what
// BufferChunk followed by Flush does (Stream uses it for the last chunk of a
// burst). *sse.Writer satisfies it.
type BatchSink interface {
	Sink
	// BufferChunk takes a chunk like Chunk but may hold it until Flush.
	BufferChunk(raw []byte) error
	// Flush sends every chunk held.
	Flush() error
}

var _ BatchSink = (*sse.Writer)(nil)

// Result describes a finished stream.
type Result struct {
	// Chunks is the number of chunks passed to the sink.
	Chunks int
	// FirstByte is the time from sending the first attempt's request to
	// the first event.
	FirstByte time.Duration
	// Model is the model of the last attempt: the one asked for, or the
	// fallback model that answered.
	Model string
	// Attempts is the number of calls made, retries and fallbacks included.
	Attempts int
	// Status is the last attempt's HTTP status, 0 when none came.
	Status int
	// Usage and FinishReason are read from the chunks only when the call
	// is observed (observe.From(ctx) is not nil): otherwise they are zero.
	Usage        TokenUsage
	FinishReason string
}

// errClientGone cancels the upstream call when the sink fails.
var errClientGone = errors.New("llm: the sink failed; upstream call abandoned")

// Stream makes the streamed call and passes each upstream chunk to sink as
// it arrives, undecoded (docs/protocol.md §9). The upstream's terminator
// ("[DONE]" or "[Done]") ends the stream and is not passed on; so does the
// end of the body after at least one chunk. An upstream answering a
// non-streamed chat.completion (application/json) has it converted into one
// chunk.
//
// When sink is a BatchSink, chunks read from the upstream in one read are
// relayed with one flush, as a reverse proxy relays what one read returns:
// every chunk but the last of those already read goes to BufferChunk, and
// whatever is held is flushed before Stream waits for more upstream data
// and before it returns, except after the upstream's terminator: then the
// last chunks may still be held, for the caller's next frame or End to
// flush with its own. Other sinks get every chunk through Chunk. The rest
// of the body after the terminator is drained in the background, so the
// connection is reused without the caller waiting for it.
//
// Stream looks into a chunk only for a top-level "error" key (an error
// object mid-stream); validating the chunk and rewriting its id is the
// sink's job, done in one pass by *sse.Writer, whose ErrMalformedChunk is
// reported as KindStream. Any other sink error (the client went away)
// cancels the upstream call at once and is reported as KindCanceled.
// Failures are *Error, except a request that cannot be encoded (invalid raw
// JSON in req).
func (c *Client) Stream(ctx context.Context, req *ChatRequest, sink Sink) (Result, error) {
	req = c.guard(ctx, req)
	body, err := req.Body()
	if err != nil {
		return Result{}, err
	}
	start := time.Now()
	ctx, observed := watch(ctx, req, true)
	res, err := c.stream(ctx, req, body, sink, start)
	if err != nil {
		res, err = c.streamAgain(ctx, req, sink, start, res, err)
	}
	observed.end(res, err)
	if c.log.Enabled(ctx, slog.LevelDebug) {
		c.log.DebugContext(ctx, "upstream stream finished", "model", res.Model, "attempts", res.Attempts,
			"chunks", res.Chunks, "first_byte", res.FirstByte, "error", err)
	}
	return res, err
}

// streamAgain retries a stream whose first attempt failed with err, as the
// retry policy and the fallback models allow.
func (c *Client) streamAgain(ctx context.Context, req *ChatRequest, sink Sink, start time.Time, res Result, err error) (Result, error) {
	attempts := 1
	model, err := c.retry(ctx, req, start, err, res.Chunks == 0, func(r *ChatRequest) (bool, error) {
		body, err := r.Body()
		if err != nil {
			return false, err
		}
		attempts++
		res, err = c.stream(ctx, r, body, sink, start)
		return res.Chunks == 0, err
	})
	res.Model, res.Attempts = model, attempts
	return res, err
}

// stream makes one attempt of the streamed call with body, the request
// built for req. The first-byte timeout counts from start, the first
// attempt's start.
func (c *Client) stream(ctx context.Context, req *ChatRequest, body []byte, sink Sink, start time.Time) (Result, error) {
	// The call outlives the caller's context only to drain the body after
	// the terminator (an HTTP handler's context ends when it returns, before
	// the upstream's end of body arrives): until then the caller's end
	// cancels it.
	call, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	unlink := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
	wd := watchdog.Start(cancel, start, c.cfg.FirstByteTimeout, c.cfg.IdleTimeout)
	hreq, err := c.newRequest(call, c.url, body, req.Header, "text/event-stream")
	if err != nil {
		unlink()
		wd.Stop()
		cancel(nil)
		return Result{}, err
	}
	r := &relay{ctx: ctx, call: call, cancel: cancel, wd: wd, sink: sink, start: start, readers: &c.readers}
	r.batch, _ = sink.(BatchSink)
	r.observed = observe.From(ctx) != nil
	resp, err := c.http.Do(hreq)
	if err != nil {
		unlink()
		wd.Stop()
		cancel(nil)
		return r.result(req.Model), c.cleanError(r.fail(err, KindUnavailable, "cannot connect to the upstream model platform"), req.Header)
	}
	r.status = resp.StatusCode
	if resp.StatusCode >= 400 {
		err = r.statusError(resp)
	} else if isJSON(resp.Header.Get("Content-Type")) {
		err = r.completion(resp.Body)
	} else {
		err = r.events(resp.Body)
	}
	wd.Stop()
	if unlink() && r.ended && err == nil {
		go drainAndClose(resp.Body, cancel)
	} else {
		_ = resp.Body.Close()
		cancel(nil)
	}
	if err != nil {
		err = c.cleanError(err, req.Header)
	}
	return r.result(req.Model), err
}

// isJSON reports whether a Content-Type is application/json, parameters
// aside.
func isJSON(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "application/json")
}
