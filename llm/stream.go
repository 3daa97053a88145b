package llm

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"time"

	"github.com/agentgw/agentgw/sse"
)

// Sink receives the relayed chunks; *sse.Writer satisfies it.
type Sink interface {
	Chunk(raw []byte) error
}

var _ Sink = (*sse.Writer)(nil)

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
// it arrives, unbuffered and undecoded (PROTOCOL.md section 9). The
// upstream's terminator ("[DONE]" or "[Done]") ends the stream and is not
// passed on; so does the end of the body after at least one chunk. An
// upstream answering a non-streamed chat.completion (application/json) has
// it converted into one chunk.
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
	call, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	wd := startWatchdog(cancel, c.cfg.FirstByteTimeout, c.cfg.IdleTimeout)
	defer wd.stop()
	hreq, err := c.newRequest(call, c.url, body, req.Header, "text/event-stream")
	if err != nil {
		return Result{}, err
	}
	r := relay{ctx: ctx, call: call, cancel: cancel, wd: wd, sink: sink, start: time.Now()}
	resp, err := c.http.Do(hreq)
	if err != nil {
		return Result{}, r.fail(err, KindUnavailable, "cannot connect to the upstream model platform")
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return Result{}, r.statusError(resp)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/json" {
		err = r.completion(resp.Body)
	} else {
		err = r.events(resp.Body)
	}
	if c.log.Enabled(ctx, slog.LevelDebug) {
		c.log.DebugContext(ctx, "upstream stream finished", "chunks", r.res.Chunks, "first_byte", r.res.FirstByte, "error", err)
	}
	return r.res, err
}

// relay is the state of one streamed call.
type relay struct {
	ctx    context.Context // the caller's
	call   context.Context // the call's, canceled by the watchdog or a sink error
	cancel context.CancelCauseFunc
	wd     *watchdog
	sink   Sink
	start  time.Time
	res    Result
}

// Events beyond this many bytes after the terminator are not drained.
const (
	drainLimit = 64 << 10
	drainGrace = 250 * time.Millisecond
)

var (
	errorKey  = []byte(`"error"`)
	doneUpper = []byte("[DONE]")
	doneSeed  = []byte("[Done]")
)

// events relays an SSE body.
func (r *relay) events(body io.Reader) error {
	rd := sse.NewReader(body)
	for {
		ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			if r.res.Chunks > 0 {
				return nil
			}
			return &Error{Kind: KindStream, Message: "the upstream ended the stream without sending anything"}
		}
		if err != nil {
			return r.fail(err, KindStream, "the upstream stream broke")
		}
		r.event()
		data := bytes.TrimSpace(ev.Data)
		switch {
		case ev.Name == "error":
			return &Error{Kind: KindStream, Message: upstreamMessage(data)}
		case ev.Name != "" && ev.Name != "message", len(data) == 0:
			continue // not a chunk: an upstream extension or an empty event
		case bytes.Equal(data, doneUpper) || bytes.Equal(data, doneSeed):
			r.drain(body)
			return nil
		}
		if bytes.Contains(data, errorKey) {
			if v, ok := sse.Field(data, "error"); ok && string(v) != "null" {
				return &Error{Kind: KindStream, Message: upstreamMessage(data)}
			}
		}
		if err := r.chunk(data); err != nil {
			return err
		}
	}
}

// event records the arrival of an upstream event.
func (r *relay) event() {
	if r.res.FirstByte == 0 {
		r.res.FirstByte = time.Since(r.start)
	}
	r.wd.event()
}

// chunk passes one chunk to the sink.
func (r *relay) chunk(data []byte) error {
	if err := r.sink.Chunk(data); err != nil {
		if errors.Is(err, sse.ErrMalformedChunk) {
			return &Error{Kind: KindStream, Message: "the upstream sent a chunk that is not a JSON object", Err: err}
		}
		r.cancel(errClientGone)
		return &Error{Kind: KindCanceled, Message: "writing to the client failed", Err: err}
	}
	r.res.Chunks++
	return nil
}

// drain reads what follows the terminator, briefly, so that the connection
// can be reused once the upstream ends the body.
func (r *relay) drain(body io.Reader) {
	t := time.AfterFunc(drainGrace, func() { r.cancel(nil) })
	defer t.Stop()
	_, _ = io.CopyN(io.Discard, body, drainLimit)
}

// fail turns an error of the call into an *Error: the caller's context
// ending is KindCanceled, a watchdog timeout KindTimeout, anything else
// kind with msg.
func (r *relay) fail(err error, kind ErrorKind, msg string) *Error {
	if r.ctx.Err() != nil {
		return &Error{Kind: KindCanceled, Message: "the request was canceled", Err: context.Cause(r.ctx)}
	}
	var te *timeoutError
	if errors.As(context.Cause(r.call), &te) {
		return &Error{Kind: KindTimeout, Message: te.Error(), Err: err}
	}
	return &Error{Kind: kind, Message: msg, Err: err}
}

// statusError reads the body of a failed response for its message.
func (r *relay) statusError(resp *http.Response) *Error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	msg := upstreamMessage(body)
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	return &Error{Kind: KindStatus, Status: resp.StatusCode, Message: msg}
}
