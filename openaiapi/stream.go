package openaiapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/agentgw/agentgw/sse"
)

// chunkJSON is one chat.completion.chunk, in OpenAI's member order.
type chunkJSON struct {
	ID      string          `json:"id"`
	Object  string          `json:"object"`
	Created int64           `json:"created"`
	Model   string          `json:"model"`
	Choices []choiceJSON    `json:"choices"`
	Usage   json.RawMessage `json:"usage,omitempty"`
}

// choiceJSON is a chunk's choice.
type choiceJSON struct {
	Index        int       `json:"index"`
	Delta        deltaJSON `json:"delta"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

// deltaJSON is a choice's delta: the role in the first chunk, content in
// the others, nothing in the last.
type deltaJSON struct {
	Role    string  `json:"role,omitempty"`
	Content *string `json:"content,omitempty"`
}

// nullUsage is the usage every chunk but the usage chunk carries when the
// client asked for usage, as OpenAI sends it.
var nullUsage = json.RawMessage("null")

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
	// (content), made once per stream; buf is where its frames are built.
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
	empty := ""
	return s.frame(s.chunkOf(deltaJSON{Role: "assistant", Content: &empty}, nil), false)
}

// content implements out. A content chunk, one per piece of the answer,
// is built around the text from two parts encoded once per stream, byte
// for byte what chunk would encode (FuzzContentFrame checks it against
// encoding/json). With llm.ChunkText's scan of the upstream chunk,
// BenchmarkStreamChunk (a 250-byte chunk in, its 100 bytes of text out)
// went from 17 allocations and 17-30 µs to 3 allocations and 2-3 µs on 2
// loaded cores (2026-11-29): encoding/json's reflection on both sides was
// most of the endpoint's cost per chunk. With flush the frame and any
// written before it are flushed.
func (s *streamOut) content(text string, flush bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.partsLocked(); err != nil {
		return err
	}
	s.buf = append(sse.AppendString(append(s.buf[:0], s.head...), text), s.tail...)
	return s.writeLocked(s.buf, flush)
}

// plain implements out: content for a text that is its own JSON string
// between quotes (llm.ChunkPlainText's), copied rather than escaped
// (FuzzPlainFrame checks it against content).
func (s *streamOut) plain(text []byte, flush bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.partsLocked(); err != nil {
		return err
	}
	s.buf = append(append(append(append(append(s.buf[:0], s.head...), '"'), text...), '"'), s.tail...)
	return s.writeLocked(s.buf, flush)
}

// flush implements out: what was written goes to the client.
func (s *streamOut) flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flushLocked()
}

// partsLocked makes head and tail once; mu is held.
func (s *streamOut) partsLocked() error {
	if s.head != nil {
		return nil
	}
	var err error
	s.head, s.tail, err = s.contentParts()
	return err
}

// contentParts encodes a content chunk with empty text and returns what
// comes before and after the text's JSON string.
func (s *streamOut) contentParts() (head, tail []byte, err error) {
	empty := ""
	frame, err := encodeFrame(s.chunkOf(deltaJSON{Content: &empty}, nil))
	if err != nil {
		return nil, nil, err
	}
	const member = `"content":`
	i := bytes.Index(frame, []byte(member+`""`))
	if i < 0 {
		return nil, nil, fmt.Errorf("openaiapi: no content member in %q", frame)
	}
	i += len(member)
	return frame[:i:i], frame[i+2:], nil
}

// finish writes the last chunk, with the answer's finish reason, the usage
// chunk when asked for, and the terminator, flushed together.
func (s *streamOut) finish(u usage, reason string) error {
	if err := s.frame(s.chunkOf(deltaJSON{}, &reason), false); err != nil {
		return err
	}
	if s.includeUsage {
		data, _ := json.Marshal(u)
		if err := s.frame(chunkJSON{ID: s.id, Object: "chat.completion.chunk", Created: s.created, Model: s.model,
			Choices: []choiceJSON{}, Usage: data}, false); err != nil {
			return err
		}
	}
	return s.end()
}

// fail writes an error inside the stream as OpenAI does, an object with
// the error member the SDKs raise, then the terminator.
func (s *streamOut) fail(o errorObject) error {
	if err := s.frame(errorBody{Error: o}, false); err != nil {
		return err
	}
	return s.end()
}

// chunkOf is the stream's chunk with delta d and finish reason finish.
func (s *streamOut) chunkOf(d deltaJSON, finish *string) chunkJSON {
	c := chunkJSON{ID: s.id, Object: "chat.completion.chunk", Created: s.created, Model: s.model,
		Choices: []choiceJSON{{Delta: d, FinishReason: finish}}}
	if s.includeUsage {
		c.Usage = nullUsage
	}
	return c
}

// frame writes data: <v as JSON>, flushed with flush.
func (s *streamOut) frame(v any, flush bool) error {
	b, err := encodeFrame(v)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writeLocked(b, flush)
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

// end writes the terminator and flushes the stream.
func (s *streamOut) end() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writeLocked([]byte("data: [DONE]\n\n"), true)
}

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
