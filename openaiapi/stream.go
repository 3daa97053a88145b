package openaiapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"
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
// usage chunk when asked for, then data: [DONE]. Each frame is flushed as
// it is written; after a failed write every write fails (the client went
// away and the run is cancelled).
type streamOut struct {
	mu           sync.Mutex
	w            http.ResponseWriter
	rc           *http.ResponseController
	id, model    string
	created      int64
	includeUsage bool
	// last is when the last frame was written, for the keep-alive.
	last  time.Time
	ended bool
	err   error
}

func newStreamOut(w http.ResponseWriter, id, model string, created int64, includeUsage bool) *streamOut {
	return &streamOut{w: w, rc: http.NewResponseController(w), id: id, model: model, created: created, includeUsage: includeUsage}
}

// start writes the headers and the first chunk, which carries the role.
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
	return s.chunk(deltaJSON{Role: "assistant", Content: &empty}, nil)
}

// content implements out.
func (s *streamOut) content(text string) error {
	return s.chunk(deltaJSON{Content: &text}, nil)
}

// finish writes the last chunk, with the answer's finish reason, the usage
// chunk when asked for, and the terminator.
func (s *streamOut) finish(u usage, reason string) error {
	if err := s.chunk(deltaJSON{}, &reason); err != nil {
		return err
	}
	if s.includeUsage {
		data, _ := json.Marshal(u)
		if err := s.frame(chunkJSON{ID: s.id, Object: "chat.completion.chunk", Created: s.created, Model: s.model,
			Choices: []choiceJSON{}, Usage: data}); err != nil {
			return err
		}
	}
	return s.end()
}

// fail writes an error inside the stream as OpenAI does, an object with
// the error member the SDKs raise, then the terminator.
func (s *streamOut) fail(o errorObject) error {
	if err := s.frame(errorBody{Error: o}); err != nil {
		return err
	}
	return s.end()
}

func (s *streamOut) chunk(d deltaJSON, finish *string) error {
	c := chunkJSON{ID: s.id, Object: "chat.completion.chunk", Created: s.created, Model: s.model,
		Choices: []choiceJSON{{Delta: d, FinishReason: finish}}}
	if s.includeUsage {
		c.Usage = nullUsage
	}
	return s.frame(c)
}

// frame writes data: <v as JSON> and flushes. HTML characters are not
// escaped: OpenAI does not.
func (s *streamOut) frame(v any) error {
	var b bytes.Buffer
	b.WriteString("data: ")
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.WriteByte('\n') // Encode ended the line; a blank one ends the event
	return s.write(b.Bytes())
}

func (s *streamOut) end() error {
	err := s.write([]byte("data: [DONE]\n\n"))
	s.mu.Lock()
	s.ended = true
	s.mu.Unlock()
	return err
}

// write writes one event and flushes it.
func (s *streamOut) write(p []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if _, err := s.w.Write(p); err != nil {
		s.err = err
		return err
	}
	if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		s.err = err
		return err
	}
	s.last = time.Now()
	return nil
}

// keepAlive writes a ": ping" comment, which SSE clients skip, whenever
// nothing was written for every, until stop is called, so that proxies
// and clients do not time out while a tool or model is slow.
func (s *streamOut) keepAlive(every time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTimer(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			s.mu.Lock()
			idle := time.Since(s.last)
			s.mu.Unlock()
			if idle >= every {
				if s.ping() != nil {
					return
				}
				idle = 0
			}
			t.Reset(every - idle)
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

// ping writes the keep-alive comment unless the stream ended.
func (s *streamOut) ping() error {
	s.mu.Lock()
	ended := s.ended
	s.mu.Unlock()
	if ended {
		return errors.New("ended")
	}
	return s.write([]byte(": ping\n\n"))
}
