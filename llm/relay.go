package llm

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/agentgw/agentgw/internal/watchdog"
	"github.com/agentgw/agentgw/sse"
)

// relay is the state of one streamed call.
type relay struct {
	ctx    context.Context // the caller's
	call   context.Context // the call's, canceled by the watchdog or a sink error
	cancel context.CancelCauseFunc
	wd     *watchdog.Watchdog
	sink   Sink
	// batch is sink as a BatchSink, nil when it is not one.
	batch BatchSink
	// pending is set while batch holds chunks.
	pending bool
	// src is the upstream body as the reader sees it: it flushes batch
	// before every read.
	src flushingReader
	// sinkErr is the error of a flush made by src.
	sinkErr error
	// ended is set when the upstream sent its terminator.
	ended bool
	start time.Time
	// chunks and firstByte make the attempt's Result.
	chunks    int
	firstByte time.Duration
	// finished is set by the first chunk with a finish_reason: the answer
	// is complete even if the terminator does not follow.
	finished bool
	// readers is the client's pool of SSE reader buffers.
	readers *sse.ReaderPool
	// layout tells the chunks that have the keys of one searched before
	// and found without an "error" or "usage" key.
	layout chunkLayout
	// observed is set when the call is observed: the chunks are read for
	// usage and finish reason (inspect), and status kept.
	observed     bool
	status       int
	usage        TokenUsage
	finishReason string
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

// events relays an SSE body. After the upstream's terminator the last
// chunks may still be held by a BatchSink: the caller's next frame or End
// flushes them with its own, one write instead of two. On every other
// outcome nothing is left held.
func (r *relay) events(body io.Reader) error {
	src := body
	if r.batch != nil {
		r.src = flushingReader{relay: r, body: body}
		src = &r.src
	}
	rd := r.readers.NewReader(src)
	err := r.relayEvents(rd)
	r.readers.Release(rd) // sinks copy what they keep; errors hold strings
	if r.ended && err == nil {
		return nil
	}
	if ferr := r.flush(); err == nil {
		err = ferr
	}
	return err
}

// relayEvents relays the events of rd until the terminator, the end of the
// body or an error.
func (r *relay) relayEvents(rd *sse.Reader) error {
	for {
		ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			switch {
			case r.finished:
				return nil
			case r.chunks > 0:
				return &Error{Kind: KindTruncated, Message: "the upstream ended the stream before the answer's end " +
					"(no finish_reason, no [DONE]): the answer is incomplete"}
			}
			return &Error{Kind: KindStream, Message: "the upstream ended the stream without sending anything"}
		}
		if err != nil {
			if r.sinkErr != nil {
				return r.sinkErr
			}
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
			r.ended = true
			return nil
		}
		// Most chunks have the keys of one searched before (see
		// chunkLayout); the others are searched.
		usage := false
		if !r.layout.same(data) {
			// A key spelled with escapes ({"\u0065rror":…}) is the same
			// key to any JSON reader: a chunk with an escaped ASCII letter
			// is read by its members, as one with the literal key is.
			escaped := hasEscapedLetter(data)
			hasError := escaped || bytes.Contains(data, errorKey)
			if hasError {
				if v, ok := sse.Field(data, "error"); ok && string(v) != "null" {
					return &Error{Kind: KindStream, Message: upstreamMessage(data)}
				}
			}
			usage = escaped || bytes.Contains(data, usageKey) && !bytes.Contains(data, usageNull)
			r.layout.searched(data, !hasError && !usage)
		}
		if err := r.chunk(data, rd.Buffered() > 0, usage); err != nil {
			return err
		}
	}
}

// result is the Result of the attempt, asking for model.
func (r *relay) result(model string) Result {
	return Result{Chunks: r.chunks, FirstByte: r.firstByte, Model: model, Attempts: 1, Status: r.status,
		Usage: r.usage, FinishReason: r.finishReason}
}

// event records the arrival of an upstream event.
func (r *relay) event() {
	if r.firstByte == 0 {
		r.firstByte = time.Since(r.start)
	}
	r.wd.Activity()
}

// hasEscapedLetter reports whether data has a \u escape of an ASCII
// character from '@' on (every letter), which a key spelled with escapes
// needs. Escaped text (\n, \", \u00e9) does not count; a false positive
// costs only a reading of the chunk's members.
func hasEscapedLetter(data []byte) bool {
	for {
		i := bytes.IndexByte(data, '\\')
		if i < 0 || i+5 >= len(data) {
			return false
		}
		if data[i+1] == 'u' && data[i+2] == '0' && data[i+3] == '0' && data[i+4] >= '4' && data[i+4] <= '7' {
			return true
		}
		data = data[i+2:] // past the escaped character: \\u0065 is no escape of 'e'
	}
}

// chunk passes one chunk to the sink; with more (more upstream data is
// already buffered) a BatchSink may hold it. usage is set when the chunk
// may have a usage object (see inspect).
func (r *relay) chunk(data []byte, more, usage bool) error {
	var err error
	if more && r.batch != nil {
		if err = r.batch.BufferChunk(data); err == nil {
			r.pending = true
		}
	} else if err = r.sink.Chunk(data); err == nil {
		r.pending = false // Chunk flushed what BufferChunk held
	}
	if err != nil {
		if errors.Is(err, sse.ErrMalformedChunk) {
			return &Error{Kind: KindStream, Message: "the upstream sent a chunk that is not a JSON object", Err: err}
		}
		return r.sinkFailed(err)
	}
	r.chunks++
	// Most chunks end with a null finish_reason: HasFinishReason tells
	// them by their last bytes.
	finished := false
	if !r.finished {
		finished = sse.HasFinishReason(data)
		r.finished = finished
	}
	if r.observed {
		r.inspect(data, finished, usage)
	}
	return nil
}

// flush sends the chunks the sink holds, if any.
func (r *relay) flush() error {
	if !r.pending {
		return nil
	}
	r.pending = false
	if err := r.batch.Flush(); err != nil {
		return r.sinkFailed(err)
	}
	return nil
}

// sinkFailed abandons the upstream call after the sink failed to write to
// the client.
func (r *relay) sinkFailed(err error) *Error {
	r.cancel(errClientGone)
	return &Error{Kind: KindCanceled, Message: "writing to the client failed", Err: err}
}

// flushingReader reads the upstream body for the sse.Reader, which reads
// only when it holds no complete line: before a read, which may wait for
// the upstream, it flushes the chunks the sink holds.
type flushingReader struct {
	relay *relay
	body  io.Reader
}

// Read flushes the sink, then reads from the body.
func (f *flushingReader) Read(p []byte) (int, error) {
	if err := f.relay.flush(); err != nil {
		f.relay.sinkErr = err
		return 0, err
	}
	return f.body.Read(p)
}

// drainAndClose reads what follows the terminator, briefly, so that the
// connection can be reused once the upstream ends the body, then closes the
// body and ends the call. Stream runs it in the background: the client's
// stream does not wait for the upstream's end of body.
func drainAndClose(body io.ReadCloser, cancel context.CancelCauseFunc) {
	t := time.AfterFunc(drainGrace, func() { cancel(nil) })
	_, _ = io.Copy(io.Discard, io.LimitReader(body, drainLimit))
	t.Stop()
	_ = body.Close()
	cancel(nil)
}

// fail turns an error of the call into an *Error: the caller's context
// ending is KindCanceled, a watchdog timeout KindTimeout, anything else
// kind with msg.
func (r *relay) fail(err error, kind ErrorKind, msg string) *Error {
	if r.ctx.Err() != nil {
		return &Error{Kind: KindCanceled, Message: "the request was canceled", Err: context.Cause(r.ctx)}
	}
	var te *watchdog.TimeoutError
	if errors.As(context.Cause(r.call), &te) {
		return &Error{Kind: KindTimeout, Message: te.Error(), Err: err}
	}
	return &Error{Kind: kind, Message: msg, Err: err}
}

// statusError reads the body of a failed response for its message,
// decoded first (DecodeBody), so that the redaction sees its text.
func (r *relay) statusError(resp *http.Response) *Error {
	var msg string
	if err := DecodeBody(resp); err != nil {
		msg = err.Error()
	} else {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		msg = upstreamMessage(body)
	}
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	return &Error{Kind: KindStatus, Status: resp.StatusCode, Message: msg, retryAfter: retryAfter(resp.Header, time.Now())}
}
