package openaiapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/agentgw/agentgw/sse"
)

// streamOut writes an answer as OpenAI streams one: chunks that share one
// id, the role in the first delta, the finish_reason in the last, the
// usage chunk when asked for, then data: [DONE]. A frame is written as it
// is made but flushed only when the writer asks (content and plain with
// flush, flush, the ends of the stream, a keep-alive ping), so that chunks
// that arrived from the upstream together leave in one write to the
// client's socket, as the agent route's relay sends them (llm.BatchSink);
// the first chunk, which carries the role, leaves with the first of
// them. After a failed write every write fails (the client went away and
// the run is cancelled).
type streamOut struct {
	mu           sync.Mutex
	w            http.ResponseWriter
	rc           *http.ResponseController
	id, model    string
	created      int64
	includeUsage bool
	// head and tail surround the JSON string of a content chunk's text
	// (content), made once per stream (parts); buf is where its frames
	// are built.
	head, tail, buf []byte
	// unflushed is set while something was written and not flushed.
	unflushed bool
	// last is when the last frame was flushed, for the keep-alive; quiet
	// stops it.
	last  time.Time
	quiet bool
	err   error
}

func newStreamOut(w http.ResponseWriter, id, model string, created int64, includeUsage bool) *streamOut {
	return &streamOut{w: w, rc: http.NewResponseController(w), id: id, model: model, created: created, includeUsage: includeUsage}
}

// start writes the headers and the first chunk, which carries the role,
// unflushed: they leave with the answer's first frames.
func (s *streamOut) start() error {
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	s.w.WriteHeader(http.StatusOK)
	// A stream outlives any server write timeout.
	if err := s.rc.SetWriteDeadline(time.Time{}); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partsLocked()
	s.buf = append(append(append(s.buf[:0], s.head[:len(s.head)-len(contentMember)]...), roleDelta...), s.tail...)
	return s.writeLocked(s.buf, false)
}

// content implements out. A content chunk, one per piece of the answer,
// is built around the text from two parts made once per stream, byte for
// byte what encoding/json encodes of the chunk (FuzzContentFrame checks
// it). With llm.ChunkText's scan of the upstream chunk,
// BenchmarkStreamChunk (a 250-byte chunk in, its 100 bytes of text out)
// went from 17 allocations and 17-30 µs to 3 allocations and 2-3 µs on 2
// loaded cores (2026-11-29): encoding/json's reflection on both sides was
// most of the endpoint's cost per chunk. With flush the frame and any
// written before it are flushed.
func (s *streamOut) content(text string, flush bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partsLocked()
	s.buf = append(sse.AppendString(append(s.buf[:0], s.head...), text), s.tail...)
	return s.writeLocked(s.buf, flush)
}

// plain implements out: content for a text that is its own JSON string
// between quotes (llm.ChunkPlainText's), copied rather than escaped
// (FuzzPlainFrame checks it against content).
func (s *streamOut) plain(text []byte, flush bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partsLocked()
	s.buf = append(append(append(append(append(s.buf[:0], s.head...), '"'), text...), '"'), s.tail...)
	return s.writeLocked(s.buf, flush)
}

// flush implements out: what was written goes to the client.
func (s *streamOut) flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flushLocked()
}

// Parts of the stream's chunks, as encoding/json writes a chunkJSON
// (FuzzStreamFrames checks them against it).
const (
	// contentMember ends a content chunk's head, before the text.
	contentMember = `"content":`
	// roleDelta is the first chunk's delta after "delta":{.
	roleDelta = `"role":"assistant","content":""`
	// tailNull ends a chunk without a finish reason, after its delta.
	tailNull = `},"logprobs":null,"finish_reason":null}]`
	// usageNull is the usage of every chunk but the usage chunk when the
	// client asked for usage, as OpenAI sends it.
	usageNull = `,"usage":null`
)

// partsLocked makes head and tail once, with the stream's id, created time
// and model encoded as encoding/json encodes them; mu is held.
func (s *streamOut) partsLocked() {
	if s.head != nil {
		return
	}
	h := append(make([]byte, 0, 160+len(s.id)+len(s.model)), "data: {\"id\":"...)
	h = sse.AppendString(h, s.id)
	h = append(h, `,"object":"chat.completion.chunk","created":`...)
	h = strconv.AppendInt(h, s.created, 10)
	h = append(h, `,"model":`...)
	h = sse.AppendString(h, s.model)
	h = append(h, `,"choices":[{"index":0,"delta":{`+contentMember...)
	s.head = h[:len(h):len(h)]
	s.tail = append(append([]byte(tailNull), s.usageNull()...), "}\n\n"...)
}

// usageNull is the usage member of a chunk other than the usage chunk.
func (s *streamOut) usageNull() string {
	if s.includeUsage {
		return usageNull
	}
	return ""
}

// choices is the head up to the choices' array, within it.
func (s *streamOut) choices() []byte {
	return s.head[:len(s.head)-len(`{"index":0,"delta":{`+contentMember)]
}

// finish writes the last chunk, with the answer's finish reason, the usage
// chunk when asked for, and the terminator, flushed together.
func (s *streamOut) finish(u usage, reason string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partsLocked()
	b := append(s.buf[:0], s.choices()...)
	b = append(b, `{"index":0,"delta":{},"logprobs":null,"finish_reason":`...)
	b = append(sse.AppendString(b, reason), "}]"...)
	b = append(append(b, s.usageNull()...), "}\n\n"...)
	if s.includeUsage {
		b = append(b, s.choices()...)
		b = append(b, `],"usage":{"prompt_tokens":`...)
		b = strconv.AppendInt(b, int64(u.PromptTokens), 10)
		b = append(b, `,"completion_tokens":`...)
		b = strconv.AppendInt(b, int64(u.CompletionTokens), 10)
		b = append(b, `,"total_tokens":`...)
		b = strconv.AppendInt(b, int64(u.TotalTokens), 10)
		b = append(b, "}}\n\n"...)
	}
	s.buf = append(b, done...)
	return s.writeLocked(s.buf, true)
}

// fail writes an error inside the stream as OpenAI does, an object with
// the error member the SDKs raise, then the terminator.
func (s *streamOut) fail(o errorObject) error {
	b, err := encodeFrame(errorBody{Error: o})
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writeLocked(append(b, done...), true)
}

// encodeFrame returns the event data: <v as JSON>. HTML characters are
// not escaped: OpenAI does not.
func encodeFrame(v any) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("data: ")
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	b.WriteByte('\n') // Encode ended the line; a blank one ends the event
	return b.Bytes(), nil
}

// done is the stream's terminator.
const done = "data: [DONE]\n\n"

// writeLocked writes one event, and with flush flushes it and every one
// written before; mu is held.
func (s *streamOut) writeLocked(p []byte, flush bool) error {
	if s.err != nil {
		return s.err
	}
	if _, err := s.w.Write(p); err != nil {
		s.err = err
		return err
	}
	s.unflushed = true
	if !flush {
		return nil
	}
	return s.flushLocked()
}

// flushLocked flushes what was written since the last flush, if anything
// was; mu is held.
func (s *streamOut) flushLocked() error {
	if s.err != nil {
		return s.err
	}
	if !s.unflushed {
		return nil
	}
	s.unflushed = false
	if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		s.err = err
		return err
	}
	s.last = time.Now()
	return nil
}

// keepAlive writes a ": ping" comment, which SSE clients skip, whenever
// nothing was written for every, until stop is called, so that proxies
// and clients do not time out while a tool or model is slow. It runs on a
// timer (time.AfterFunc), as the agent route's keep-alive does
// (sse.Writer.StartKeepAlive), rather than on a goroutine per stream; once
// stop returned no ping is written.
func (s *streamOut) keepAlive(every time.Duration) (stop func()) {
	var t *time.Timer
	fire := func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.quiet {
			return
		}
		idle := time.Since(s.last)
		if idle >= every {
			if s.writeLocked([]byte(": ping\n\n"), true) != nil {
				return
			}
			idle = 0
		}
		t.Reset(every - idle)
	}
	// Armed only once t is set: fire reads it.
	t = time.AfterFunc(time.Duration(1<<62), fire)
	t.Reset(every)
	return func() {
		s.mu.Lock()
		s.quiet = true
		s.mu.Unlock()
		t.Stop()
	}
}
