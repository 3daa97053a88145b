package main

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// spec is the shape of one answer stream.
type spec struct {
	chunks int
	size   int
	gap    time.Duration
	usage  bool
	hold   bool
}

// stampWidth is the width of the zero-padded nanosecond timestamp after
// "t=" in a content chunk (enough until the year 2286).
const stampWidth = 19

// mock holds the defaults and the immutable frame templates.
type mock struct {
	def    spec
	prefix []byte // a content chunk up to the opening quote of its content
	suffix []byte // a content chunk after the closing quote of its content
	stop   []byte
	usage  []byte
	done   []byte
}

func newMock(def spec) *mock {
	created := strconv.FormatInt(time.Now().Unix(), 10)
	head := `data: {"id":"chatcmpl-mock","object":"chat.completion.chunk","created":` + created + `,"model":"mock-model",`
	return &mock{
		def:    def,
		prefix: []byte(head + `"choices":[{"index":0,"delta":{"content":"`),
		suffix: []byte(`"},"finish_reason":null}]}` + "\n\n"),
		stop:   []byte(head + `"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n"),
		usage:  []byte(head + `"choices":[],"usage":{"prompt_tokens":600,"completion_tokens":20,"total_tokens":620}}` + "\n\n"),
		done:   []byte("data: [DONE]\n\n"),
	}
}

// parseSpec applies the X-Mock-* headers of h over the defaults.
func (m *mock) parseSpec(h http.Header) (spec, error) {
	s := m.def
	var err error
	if v := h.Get("X-Mock-Chunks"); v != "" {
		if s.chunks, err = strconv.Atoi(v); err != nil || s.chunks < 1 {
			return s, fmt.Errorf("X-Mock-Chunks: %q is not a positive integer", v)
		}
	}
	if v := h.Get("X-Mock-Size"); v != "" {
		if s.size, err = strconv.Atoi(v); err != nil || s.size < 0 || s.size > 1<<20 {
			return s, fmt.Errorf("X-Mock-Size: %q is not a size up to 1 MiB", v)
		}
	}
	if v := h.Get("X-Mock-Gap"); v != "" {
		if s.gap, err = time.ParseDuration(v); err != nil {
			return s, fmt.Errorf("X-Mock-Gap: %w", err)
		}
	}
	if v := h.Get("X-Mock-Usage"); v != "" {
		if s.usage, err = strconv.ParseBool(v); err != nil {
			return s, fmt.Errorf("X-Mock-Usage: %w", err)
		}
	}
	if v := h.Get("X-Mock-Hold"); v != "" {
		if s.hold, err = strconv.ParseBool(v); err != nil {
			return s, fmt.Errorf("X-Mock-Hold: %w", err)
		}
	}
	return s, nil
}

// contentChunk builds a content chunk frame whose content is "t=" plus a
// zeroed timestamp, ";" and padding up to size bytes. It returns the frame
// and the offset of the timestamp in it.
func (m *mock) contentChunk(size int) ([]byte, int) {
	content := 2 + stampWidth + 1
	pad := max(size-content, 0)
	buf := make([]byte, 0, len(m.prefix)+content+pad+len(m.suffix))
	buf = append(buf, m.prefix...)
	at := len(buf) + 2
	buf = append(buf, "t="...)
	for range stampWidth {
		buf = append(buf, '0')
	}
	buf = append(buf, ';')
	for range pad {
		buf = append(buf, 'x')
	}
	return append(buf, m.suffix...), at
}

// stamp writes ns, zero-padded to stampWidth digits, into dst.
func stamp(dst []byte, ns int64) {
	for i := stampWidth - 1; i >= 0; i-- {
		dst[i] = byte('0' + ns%10)
		ns /= 10
	}
}

// serveChat answers one streamed chat completion.
func (m *mock) serveChat(w http.ResponseWriter, r *http.Request) {
	if _, err := io.Copy(io.Discard, r.Body); err != nil {
		return
	}
	s, err := m.parseSpec(r.Header)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	send := func(frame []byte) bool {
		if _, err := w.Write(frame); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	frame, at := m.contentChunk(s.size)
	var timer *time.Timer
	for i := range s.chunks {
		if i > 0 && s.gap > 0 {
			if timer == nil {
				timer = time.NewTimer(s.gap)
			} else {
				timer.Reset(s.gap)
			}
			select {
			case <-timer.C:
			case <-r.Context().Done():
				return
			}
		}
		stamp(frame[at:at+stampWidth], time.Now().UnixNano())
		if !send(frame) {
			return
		}
		if s.hold {
			<-r.Context().Done()
			return
		}
	}
	if !send(m.stop) || (s.usage && !send(m.usage)) {
		return
	}
	send(m.done)
}
