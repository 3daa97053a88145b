package sse

import "strings"

// Text writes a text frame: a chat.completion.chunk whose delta carries the
// assistant role and content.
func (w *Writer) Text(content string) error {
	return w.frame(func(b []byte) ([]byte, error) {
		b = AppendString(append(b, w.textHead...), content)
		return append(b, textTail...), nil
	})
}

// Chunk relays one upstream chunk, a JSON object, as a data frame with its
// top-level "id" replaced by ID() (see RewriteID); it is neither decoded nor
// re-encoded. A raw that is not a JSON object is an error wrapping
// ErrMalformedChunk and nothing is written.
func (w *Writer) Chunk(raw []byte) error {
	return w.frame(func(b []byte) ([]byte, error) {
		b, err := appendRewritten(append(b, "data: "...), raw, w.idJSON)
		return append(b, '\n', '\n'), err
	})
}

// Event writes a named event: "event: <name>\ndata: <data>\n\n". Data
// containing line breaks is split over several data lines, which a reader
// joins with "\n". An empty name writes a data-only frame.
func (w *Writer) Event(name string, data []byte) error {
	if strings.ContainsAny(name, "\r\n") {
		return ErrEventName
	}
	return w.frame(func(b []byte) ([]byte, error) {
		if name != "" {
			b = append(append(append(b, "event: "...), name...), '\n')
		}
		return append(appendDataLines(b, data), '\n'), nil
	})
}

// Comment writes a comment frame, ": <text>\n\n", which readers ignore; each
// line of a multi-line text becomes its own comment line.
func (w *Writer) Comment(text string) error {
	return w.frame(func(b []byte) ([]byte, error) {
		return append(appendLines(b, ": ", text), '\n'), nil
	})
}

// frame builds a frame in the reused buffer with build and sends it, unless
// the stream has ended or failed or build fails.
func (w *Writer) frame(build func(b []byte) ([]byte, error)) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.writable(); err != nil {
		return err
	}
	b, err := build(w.buf[:0])
	if err != nil {
		return err
	}
	w.buf = b
	return w.send(b)
}

// End writes the final chunk (empty delta, finish_reason "stop") and the
// terminator. Only the first call writes; later calls return the stream's
// sticky error, and every write after End returns ErrEnded.
func (w *Writer) End() error {
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
	return w.send(w.endFrames)
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

func indexLineBreak[T []byte | string](text T) int {
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' || text[i] == '\r' {
			return i
		}
	}
	return -1
}
