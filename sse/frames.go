package sse

import (
	"bytes"
	"strings"
)

// Text writes a text frame: a chat.completion.chunk whose delta carries the
// assistant role and content.
func (w *Writer) Text(content string) error {
	return w.frame(true, w.headLen+len(content)+len(textTail)+2, func(b []byte) ([]byte, error) {
		b = AppendString(append(b, w.textHead...), content)
		return append(b, textTail...), nil
	})
}

// Chunk relays one upstream chunk, a JSON object, as a data frame with its
// top-level "id" replaced by ID(); it is neither decoded nor re-encoded, and
// it is flushed together with any frame BufferChunk wrote before.
//
// A chunk in the common layout, `{"id":"<id without escapes>",...}` with no
// other "id" key anywhere and no line break, takes a fast path: its id is
// replaced and the rest is copied without being scanned. The frame is then
// one data line, and its only top-level "id" is ours for any input a JSON
// parser accepts (nothing after our id can spell the key "id"), but a chunk
// that is malformed after its id is relayed as it is, as a plain proxy
// would. Any other chunk is validated and rewritten as RewriteID does; one
// that is not a JSON object is an error wrapping ErrMalformedChunk and
// nothing is written.
func (w *Writer) Chunk(raw []byte) error { return w.chunk(raw, true) }

// BufferChunk is Chunk without the flush: the Writer holds the frame and
// writes it, in one write with the frames held with it, at the next flush,
// that of Flush, End or any other frame, or, unflushed, when its 2 KiB
// buffer is full. A relay uses it for a chunk that is followed by more
// upstream data already at hand, so that chunks that arrived together
// leave together, in a few writes through the HTTP stack instead of one
// per frame.
func (w *Writer) BufferChunk(raw []byte) error { return w.chunk(raw, false) }

func (w *Writer) chunk(raw []byte, flush bool) error {
	if reason, rest, ok := splitFinish(raw); ok {
		if rest == nil {
			// Nothing but the finish: its reason goes into the final chunk.
			return w.frame(flush, 0, func(b []byte) ([]byte, error) {
				w.upFinish = reason
				if !w.modelSeen {
					w.noteModel(raw)
				}
				return b, nil
			})
		}
		raw = rest
		defer func() { w.mu.Lock(); w.upFinish = reason; w.mu.Unlock() }()
	}
	// A rewritten chunk is at most its own length plus `"id":`, our id and a
	// comma: the most insertID adds to a chunk without an id. Replacing an
	// id value (at least one byte) adds less, but every top-level id is
	// replaced: a chunk with several (no upstream sends one) may outgrow
	// this bound and the buffer.
	return w.frame(flush, len("data: ")+len(raw)+len(idKey)+w.idLen+len(",")+2, func(b []byte) ([]byte, error) {
		b, err := appendChunk(append(b, "data: "...), raw, w.idJSON)
		if err == nil && !w.modelSeen {
			w.noteModel(raw)
		}
		return append(b, '\n', '\n'), err
	})
}

// noteModel keeps the "model" of the first relayed chunk that has a
// top-level one, when it is a JSON string, for the final chunk; the caller
// holds mu. A chunk without the text "model" is passed over with one
// vectorized search, and once a chunk named a model no other is looked at
// (every chunk of an OpenAI-style stream names the same model), so relayed
// chunks keep the fast path.
func (w *Writer) noteModel(raw []byte) {
	if !bytes.Contains(raw, modelKey) {
		return
	}
	v, ok := Field(raw, "model")
	if !ok {
		return
	}
	w.modelSeen = true
	if len(v) >= 2 && v[0] == '"' {
		w.upModel = append(w.upModelBuf[:0], v...)
	}
}

// modelKey is the key noteModel looks for.
var modelKey = []byte(`"model"`)

// Event writes a named event: "event: <name>\ndata: <data>\n\n". Data
// containing line breaks is split over several data lines, which a reader
// joins with "\n". An empty name writes a data-only frame.
func (w *Writer) Event(name string, data []byte) error {
	if strings.ContainsAny(name, "\r\n") {
		return ErrEventName
	}
	return w.frame(true, len(name)+len(data)+16, func(b []byte) ([]byte, error) {
		if name != "" {
			b = append(append(append(b, "event: "...), name...), '\n')
		}
		return append(appendDataLines(b, data), '\n'), nil
	})
}

// Comment writes a comment frame, ": <text>\n\n", which readers ignore; each
// line of a multi-line text becomes its own comment line.
func (w *Writer) Comment(text string) error {
	return w.frame(true, len(text)+8, func(b []byte) ([]byte, error) {
		return append(appendLines(b, ": ", text), '\n'), nil
	})
}

// frame builds a frame of about size bytes with build after the frames
// still held, unless the stream has ended or failed or build fails (then
// nothing is added); with flush, everything held is written and flushed.
// Frames are held in the buffer the Writer was made with and do not grow
// it: when a frame would not fit beside the held ones, they are written out
// first (unflushed). Only a frame larger than the buffer (or than its size)
// grows it.
func (w *Writer) frame(flush bool, size int, build func(b []byte) ([]byte, error)) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.writable(); err != nil {
		return err
	}
	if err := w.makeRoom(size); err != nil {
		return err
	}
	b, err := build(w.buf)
	if err != nil {
		return err
	}
	w.buf = b
	if flush {
		return w.flushLocked()
	}
	return nil
}

// makeRoom writes the held frames out (unflushed) when size more bytes
// would not fit beside them in the buffer; the caller holds mu.
func (w *Writer) makeRoom(size int) error {
	if len(w.buf) > 0 && len(w.buf)+size > cap(w.buf) {
		return w.writeHeld()
	}
	return nil
}

// Finish reasons of the final chunk.
const (
	// FinishStop ends a stream that ran to its end.
	FinishStop = "stop"
	// FinishError ends a stream after an error frame: a client that looks
	// only at the chunks can tell that the answer is not complete.
	FinishError = "error"
)

// End writes the final chunk with finish_reason "stop", or the finish
// reason of the last relayed upstream chunk that had one, and the
// terminator: EndWith(FinishStop).
func (w *Writer) End() error { return w.EndWith(FinishStop) }

// EndWith writes the final chunk (empty delta, the given finish_reason,
// the model of the first relayed chunk that named one, else Options.Model)
// and the terminator. Only the first call of End or EndWith writes; later
// calls return the stream's sticky error, and every write after it returns
// ErrEnded.
func (w *Writer) EndWith(finishReason string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended {
		return w.err
	}
	w.ended = true
	close(w.done)
	if w.err != nil {
		return w.err
	}
	if finishReason == FinishStop && w.upFinish != "" {
		// The upstream's own reason ("length", ...), whose finish chunk
		// was not relayed (splitFinish).
		finishReason = w.upFinish
	}
	model := w.textHead[w.modelAt:w.modelEnd]
	if w.upModel != nil {
		model = w.upModel
	}
	size := len(w.textHead) + len(model) + len(finishKey) + 2*len(finishReason) + len(endTail) + 8 + len(w.terminator)
	if err := w.makeRoom(size); err != nil {
		return err
	}
	b := append(w.buf, w.textHead[:w.modelAt]...)
	b = append(b, model...)
	b = append(b, w.textHead[w.modelEnd:len(w.textHead)-len(textDelta)]...)
	b = append(b, finishKey...)
	b = AppendString(b, finishReason)
	b = append(b, endTail...)
	w.buf = append(appendDataLines(b, w.terminator), '\n')
	return w.flushLocked()
}

// appendDataLines appends one "data: " line per line of data.
func appendDataLines[T []byte | string](b []byte, data T) []byte {
	return appendLines(b, "data: ", data)
}

// appendLines appends prefix+line+"\n" for every line of text, lines being
// separated by \r\n, \n or \r; an empty text gives one empty line.
func appendLines[T []byte | string](b []byte, prefix string, text T) []byte {
	for {
		b = append(b, prefix...)
		i := indexLineBreak(text)
		if i < 0 {
			b = append(b, text...)
			return append(b, '\n')
		}
		b = append(b, text[:i]...)
		b = append(b, '\n')
		if text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			i++
		}
		text = text[i+1:]
	}
}

// indexLineBreak returns the index of the first \r or \n of text, -1 when
// there is none, with vectorized searches rather than a byte loop.
func indexLineBreak[T []byte | string](text T) int {
	var lf, cr int
	switch t := any(text).(type) {
	case []byte:
		lf = bytes.IndexByte(t, '\n')
		if lf < 0 {
			lf = len(t)
		}
		cr = bytes.IndexByte(t[:lf], '\r')
	case string:
		lf = strings.IndexByte(t, '\n')
		if lf < 0 {
			lf = len(t)
		}
		cr = strings.IndexByte(t[:lf], '\r')
	}
	switch {
	case cr >= 0:
		return cr
	case lf < len(text):
		return lf
	}
	return -1
}
