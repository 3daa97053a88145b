package sse

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

var (
	// ErrEnded is returned by every write after End.
	ErrEnded = errors.New("sse: stream already ended")
	// ErrMalformedChunk is returned (wrapped) for a chunk that is not a
	// valid JSON object.
	ErrMalformedChunk = errors.New("sse: chunk is not a JSON object")
	// ErrEventName is returned for an event name containing a line break.
	ErrEventName = errors.New("sse: event name contains a line break")
)

// Options configure a Writer.
type Options struct {
	// ID is the response id put on every text chunk; relayed upstream
	// chunks get their top-level "id" rewritten to it. Empty means a random
	// "chatcmpl-…" id.
	ID string
	// Model is the "model" of the chunks the writer creates itself.
	Model string
	// Created is the unix time in seconds of the chunks the writer creates;
	// 0 means the time NewWriter is called.
	Created int64
	// Terminator is the data of the last frame; "" means "[DONE]". Plugins
	// that follow the seed's sample literally may need "[Done]".
	Terminator string
}

// Writer writes the frames of one response stream (PROTOCOL.md section 2)
// and flushes after each one. It is safe for concurrent use. The first write
// error is sticky: later writes return it without writing.
type Writer struct {
	mu    sync.Mutex
	out   io.Writer
	flush func() error
	id    string
	// idJSON is the id encoded as a JSON string, spliced into relayed chunks.
	idJSON []byte
	// textHead is a text frame up to its content.
	textHead []byte
	// endFrames are the final chunk and the terminator.
	endFrames []byte
	// buf is reused by every frame so that writing does not allocate.
	buf   []byte
	ended bool
	err   error
	// done is closed by End; it stops KeepAlive.
	done chan struct{}
	// start and last (nanoseconds since start) time the last frame.
	start time.Time
	last  atomic.Int64
}

// textTail closes a text frame after its content.
const textTail = `},"finish_reason":null}]}` + "\n\n"

// NewWriter returns a Writer writing to w. When w has a FlushError() error,
// Flush() error or Flush() method (an http.ResponseWriter has), every frame
// is flushed as soon as it is written.
func NewWriter(w io.Writer, o Options) *Writer {
	if o.ID == "" {
		o.ID = randomID()
	}
	if o.Created == 0 {
		o.Created = time.Now().Unix()
	}
	if o.Terminator == "" {
		o.Terminator = "[DONE]"
	}
	sw := &Writer{
		out:    w,
		flush:  flusherOf(w),
		id:     o.ID,
		idJSON: AppendString(nil, o.ID),
		done:   make(chan struct{}),
		start:  time.Now(),
		buf:    make([]byte, 0, 512),
	}
	head := append([]byte("data: {"+idKey), sw.idJSON...)
	head = append(head, `,"object":"chat.completion.chunk","created":`...)
	head = strconv.AppendInt(head, o.Created, 10)
	head = append(head, `,"model":`...)
	head = AppendString(head, o.Model)
	head = append(head, `,"choices":[{"index":0,"delta":{`...)
	sw.textHead = append(head[:len(head):len(head)], `"role":"assistant","content":`...)
	sw.endFrames = append(head, `},"finish_reason":"stop"}]}`+"\n\n"...)
	sw.endFrames = appendDataLines(sw.endFrames, o.Terminator)
	sw.endFrames = append(sw.endFrames, '\n')
	return sw
}

// flusherOf returns the flush method of w, nil when it has none.
func flusherOf(w io.Writer) func() error {
	switch f := w.(type) {
	case interface{ FlushError() error }:
		return f.FlushError
	case interface{ Flush() error }:
		return f.Flush
	case interface{ Flush() }:
		return func() error { f.Flush(); return nil }
	}
	return nil
}

// randomID returns a fresh "chatcmpl-" id with 96 random bits.
func randomID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return "chatcmpl-" + hex.EncodeToString(b[:])
}

// ID returns the response id of the stream.
func (w *Writer) ID() string { return w.id }

// Err returns the first write error, typically a client that went away.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// writable reports why nothing may be written any more, if so.
func (w *Writer) writable() error {
	if w.ended {
		return ErrEnded
	}
	return w.err
}

// send writes and flushes one frame; the caller holds mu.
func (w *Writer) send(frame []byte) error {
	if _, err := w.out.Write(frame); err != nil {
		w.err = fmt.Errorf("sse: writing frame: %w", err)
		return w.err
	}
	if w.flush != nil {
		if err := w.flush(); err != nil {
			w.err = fmt.Errorf("sse: flushing frame: %w", err)
			return w.err
		}
	}
	w.last.Store(int64(time.Since(w.start)))
	return nil
}
