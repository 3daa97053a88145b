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
	// Model is the "model" of the chunks the writer creates itself. The
	// final chunk names the model of the first relayed chunk instead, when
	// that names one: the model that answered, which may differ from the
	// one asked for.
	Model string
	// Created is the unix time in seconds of the chunks the writer creates;
	// 0 means the time NewWriter is called.
	Created int64
	// Terminator is the data of the last frame; "" means "[DONE]". Plugins
	// that follow the seed's sample literally may need "[Done]".
	Terminator string
}

// Writer writes the frames of one response stream (docs/protocol.md §3)
// and flushes after each one, except BufferChunk, which lets a relay send
// chunks that arrived together with one flush. It is safe for concurrent
// use. The first write error is sticky: later writes return it without
// writing.
type Writer struct {
	mu    sync.Mutex
	out   io.Writer
	flush func() error
	id    string
	// idJSON is the id encoded as a JSON string, spliced into relayed chunks.
	idJSON []byte
	// textHead is a text frame up to its content; the final chunk shares
	// it up to the delta, and modelAt:modelEnd is the model's JSON in it.
	textHead          []byte
	modelAt, modelEnd int
	// terminator is the data of the last frame.
	terminator string
	// upModel is the "model" (a JSON string, quotes included) of the first
	// relayed chunk, nil until a chunk was relayed or when it named none;
	// modelSeen is set once a relayed chunk was looked at. upModelBuf
	// holds the usual short model name without an allocation.
	upModel    []byte
	modelSeen  bool
	upModelBuf [64]byte
	// upFinish is the finish reason of the last relayed chunk that had
	// one, which End puts in the final chunk instead of "stop"
	// (splitFinish).
	upFinish string
	// headLen and idLen are the lengths of textHead and idJSON, which
	// stay readable without mu after a WriterPool took the slices back.
	headLen, idLen int
	// mem is the allocation behind the slices above and buf's first
	// array, which a WriterPool recycles.
	mem *[]byte
	// buf holds the frames not yet written to out (those of BufferChunk
	// until the next flush, the one being built otherwise); it is reused,
	// so that writing does not allocate, and written out in one write.
	// Holding frames never grows it (see frame).
	buf   []byte
	ended bool
	// written is set while something was written to out but not flushed.
	written bool
	err     error
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
// but those of BufferChunk is flushed as soon as it is written.
func NewWriter(w io.Writer, o Options) *Writer {
	return newWriter(w, o, nil)
}

// newWriter is NewWriter building in a buffer from bufs, which Release
// gives back, or in a new one when bufs is nil.
func newWriter(w io.Writer, o Options, bufs *bufPool) *Writer {
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
		out:   w,
		flush: flusherOf(w),
		id:    o.ID,
		done:  make(chan struct{}),
		start: time.Now(),
	}
	var b []byte
	if bufs != nil {
		sw.mem = bufs.get(memSize(o))
		b = *sw.mem
	} else {
		b = make([]byte, 0, memSize(o))
	}
	sw.build(o, b)
	return sw
}

// WriterPool hands out Writers whose buffers are recycled: a gateway that
// serves one stream after another allocates them once per concurrent
// stream instead of once per stream. The zero value is ready to use; it is
// safe for concurrent use.
type WriterPool struct {
	bufs bufPool
}

// NewWriter is NewWriter with a recycled buffer when there is one. A nil
// pool recycles nothing.
func (p *WriterPool) NewWriter(w io.Writer, o Options) *Writer {
	if p == nil {
		return NewWriter(w, o)
	}
	return newWriter(w, o, &p.bufs)
}

// Release gives the buffers of an ended Writer back to the pool; it does
// nothing before End. The Writer stays usable as an ended one: every write
// returns ErrEnded (or its sticky error) without touching a buffer, so a
// late write cannot reach the stream that reuses them.
func (p *WriterPool) Release(w *Writer) {
	if p == nil {
		return
	}
	w.mu.Lock()
	mem := w.mem
	if !w.ended || mem == nil {
		w.mu.Unlock()
		return
	}
	w.mem, w.buf, w.idJSON, w.textHead, w.upModel = nil, nil, nil, nil, nil
	w.mu.Unlock()
	p.bufs.Put(mem)
}

// Pieces of the frames a Writer creates itself.
const (
	idHead     = "data: {" + idKey
	createdKey = `,"object":"chat.completion.chunk","created":`
	choices    = `,"choices":[{"index":0,"delta":{`
	textDelta  = `"role":"assistant","content":`
	finishKey  = `},"finish_reason":`
	endTail    = `}]}` + "\n\n"
	// frameBufSize is the size of the buffer frames are built and held in;
	// only a single larger frame grows it.
	frameBufSize = 2048
)

// memSize is the room build needs when the options need no escaping.
func memSize(o Options) int {
	head := len(idHead) + len(o.ID) + 2 + len(createdKey) + 20 + len(`,"model":`) + len(o.Model) + 2 + len(choices)
	return head + len(textDelta) + frameBufSize
}

// build makes the fixed parts of the frames, textHead (which the final
// chunk shares up to the delta), idJSON and the frame buffer in b, whose
// room of memSize bytes suffices when the options need no escaping.
func (w *Writer) build(o Options, b []byte) {
	b = append(b[:0], idHead...)
	b = AppendString(b, o.ID)
	w.idJSON = b[len(idHead):len(b):len(b)]
	b = append(b, createdKey...)
	b = strconv.AppendInt(b, o.Created, 10)
	b = append(b, `,"model":`...)
	w.modelAt = len(b)
	b = AppendString(b, o.Model)
	w.modelEnd = len(b)
	b = append(b, choices...)
	b = append(b, textDelta...)
	w.textHead = b[:len(b):len(b)]
	w.terminator = o.Terminator
	w.headLen, w.idLen = len(w.textHead), len(w.idJSON)
	if cap(b)-len(b) >= frameBufSize {
		w.buf = b[len(b):len(b)]
	}
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

// writeHeld writes the frames held in buf to the underlying writer in one
// write, without flushing it; the caller holds mu.
func (w *Writer) writeHeld() error {
	if len(w.buf) == 0 {
		return nil
	}
	_, err := w.out.Write(w.buf)
	w.buf = w.buf[:0]
	w.written = true
	if err != nil {
		w.err = fmt.Errorf("sse: writing frame: %w", err)
		return w.err
	}
	return nil
}

// flushLocked writes the frames held, if any, flushes the underlying writer
// when something was written since its last flush, and records the time for
// KeepAlive; the caller holds mu.
func (w *Writer) flushLocked() error {
	if err := w.writeHeld(); err != nil {
		return err
	}
	if !w.written {
		return nil
	}
	w.written = false
	if w.flush != nil {
		if err := w.flush(); err != nil {
			w.err = fmt.Errorf("sse: flushing frame: %w", err)
			return w.err
		}
	}
	w.last.Store(int64(time.Since(w.start)))
	return nil
}

// Flush flushes the frames BufferChunk wrote. It does nothing when every
// frame has been flushed already, and returns the sticky error if any.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	return w.flushLocked()
}
