package llm

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

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
	// FirstByte is the time from sending the request to the first event.
	FirstByte time.Duration
}

// errClientGone cancels the upstream call when the sink fails.
var errClientGone = errors.New("llm: the sink failed; upstream call abandoned")

// Stream makes the streamed call and passes each upstream chunk to sink as
// it arrives, undecoded (PROTOCOL.md section 9). The upstream's terminator
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
	body, err := req.Body()
	if err != nil {
		return Result{}, err
	}
	// The call outlives the caller's context only to drain the body after
	// the terminator (an HTTP handler's context ends when it returns, before
	// the upstream's end of body arrives): until then the caller's end
	// cancels it.
	call, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	unlink := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
	wd := startWatchdog(cancel, c.cfg.FirstByteTimeout, c.cfg.IdleTimeout)
	hreq, err := c.newRequest(call, c.url, body, req.Header, "text/event-stream")
	if err != nil {
		unlink()
		wd.stop()
		cancel(nil)
		return Result{}, err
	}
	r := &relay{ctx: ctx, call: call, cancel: cancel, wd: wd, sink: sink, start: time.Now(), readers: &c.readers}
	r.batch, _ = sink.(BatchSink)
	resp, err := c.http.Do(hreq)
	if err != nil {
		unlink()
		wd.stop()
		cancel(nil)
		return Result{}, r.fail(err, KindUnavailable, "cannot connect to the upstream model platform")
	}
	if resp.StatusCode >= 400 {
		err = r.statusError(resp)
	} else if isJSON(resp.Header.Get("Content-Type")) {
		err = r.completion(resp.Body)
	} else {
		err = r.events(resp.Body)
	}
	wd.stop()
	if unlink() && r.ended && err == nil {
		go drainAndClose(resp.Body, cancel)
	} else {
		_ = resp.Body.Close()
		cancel(nil)
	}
	if c.log.Enabled(ctx, slog.LevelDebug) {
		c.log.DebugContext(ctx, "upstream stream finished", "chunks", r.res.Chunks, "first_byte", r.res.FirstByte, "error", err)
	}
	return r.res, err
}

// isJSON reports whether a Content-Type is application/json, parameters
// aside.
func isJSON(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "application/json")
}
