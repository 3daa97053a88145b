package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestChunkFastPath(t *testing.T) {
	tests := []struct {
		name, in, want string
		fast           bool
	}{
		{"typical", `{"id":"up-1","object":"chat.completion.chunk","choices":[]}`,
			`{"id":"chatcmpl-42","object":"chat.completion.chunk","choices":[]}`, true},
		{"id only", `{"id":"up"}`, `{"id":"chatcmpl-42"}`, true},
		{"empty id", `{"id":"","x":1}`, `{"id":"chatcmpl-42","x":1}`, true},
		{"escape in id", `{"id":"u\"p","x":1}`, `{"id":"chatcmpl-42","x":1}`, false},
		{"space after id", `{"id":"up" ,"x":1}`, `{"id":"chatcmpl-42" ,"x":1}`, false},
		{"space before id", `{ "id":"up","x":1}`, `{ "id":"chatcmpl-42","x":1}`, false},
		{"numeric id", `{"id":1,"x":1}`, `{"id":"chatcmpl-42","x":1}`, false},
		{"second id", `{"id":"a","x":1,"id":"b"}`, `{"id":"chatcmpl-42","x":1,"id":"chatcmpl-42"}`, false},
		{"escaped second id", `{"id":"a","\u0069d":"b"}`, `{"id":"chatcmpl-42","\u0069d":"chatcmpl-42"}`, false},
		{"nested id", `{"id":"a","c":[{"id":"call_1"}]}`, `{"id":"chatcmpl-42","c":[{"id":"call_1"}]}`, false},
		{"id as a value", `{"id":"a","k":"id"}`, `{"id":"chatcmpl-42","k":"id"}`, false},
		{"quoted id in content", `{"id":"a","c":"say \"id\""}`, `{"id":"chatcmpl-42","c":"say \"id\""}`, true},
		{"line break", "{\"id\":\"a\",\n\"x\":1}", `{"id":"chatcmpl-42", "x":1}`, false},
		{"trailing space", `{"id":"a","x":1} `, `{"id":"chatcmpl-42","x":1} `, false},
		{"garbage after the object", `{"id":"a"}x}`, "", false},
		// The documented cost of the fast path: malformed JSON after the id
		// is relayed as it came, on one line and with our id.
		{"malformed after the id", `{"id":"a","x":}`, `{"id":"chatcmpl-42","x":}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, fast := fastRest([]byte(tt.in)); fast != tt.fast {
				t.Errorf("fast path = %v, want %v", fast, tt.fast)
			}
			var out strings.Builder
			err := NewWriter(&out, goldenOptions).Chunk([]byte(tt.in))
			if tt.want == "" {
				if !errors.Is(err, ErrMalformedChunk) || out.Len() != 0 {
					t.Errorf("Chunk(%s) = %v, wrote %q; want ErrMalformedChunk", tt.in, err, out.String())
				}
				return
			}
			if err != nil || out.String() != "data: "+tt.want+"\n\n" {
				t.Errorf("Chunk(%s) = %v\n got %q\nwant %q", tt.in, err, out.String(), "data: "+tt.want+"\n\n")
			}
		})
	}
}

func TestBufferChunkAndFlush(t *testing.T) {
	fr := &flushRecorder{}
	w := NewWriter(fr, goldenOptions)
	w.last.Store(-1)
	chunk := []byte(upstreamChunk)
	for range 3 {
		if err := w.BufferChunk(chunk); err != nil {
			t.Fatal(err)
		}
	}
	frame := "data: " + strings.Replace(upstreamChunk, "chatcmpl-upstream-1", "chatcmpl-42", 1) + "\n\n"
	if fr.flushes != 0 || fr.writes != 0 {
		t.Fatalf("after 3 BufferChunk: %d writes, %d flushes; want the frames held", fr.writes, fr.flushes)
	}
	if w.last.Load() != -1 {
		t.Error("BufferChunk counted as a flushed frame for KeepAlive")
	}
	if err := w.Flush(); err != nil || fr.flushes != 1 || fr.unflushed != 0 || fr.writes != 1 || fr.String() != strings.Repeat(frame, 3) {
		t.Fatalf("Flush = %v: %d writes, %d flushes, %d bytes unflushed, wrote %q; want the 3 frames in one write and a flush",
			err, fr.writes, fr.flushes, fr.unflushed, fr.String())
	}
	if w.last.Load() < 0 {
		t.Error("Flush did not record the time for KeepAlive")
	}
	if err := w.Flush(); err != nil || fr.flushes != 1 {
		t.Errorf("Flush with nothing written = %v, %d flushes; want no flush", err, fr.flushes)
	}
	// Any flushed frame takes the buffered ones along.
	if err := w.BufferChunk(chunk); err != nil {
		t.Fatal(err)
	}
	if err := w.Text("t"); err != nil || fr.flushes != 2 || fr.unflushed != 0 {
		t.Fatalf("Text after BufferChunk = %v: %d flushes, %d bytes unflushed", err, fr.flushes, fr.unflushed)
	}
	if err := w.BufferChunk([]byte(`{"id":1`)); !errors.Is(err, ErrMalformedChunk) {
		t.Errorf("BufferChunk(truncated) = %v, want ErrMalformedChunk", err)
	}
	if err := w.End(); err != nil || fr.flushes != 3 {
		t.Fatalf("End = %v, %d flushes", err, fr.flushes)
	}
	if err := w.BufferChunk(chunk); !errors.Is(err, ErrEnded) {
		t.Errorf("BufferChunk after End = %v, want ErrEnded", err)
	}
	if err := w.Flush(); err != nil || fr.flushes != 3 {
		t.Errorf("Flush after End = %v, %d flushes", err, fr.flushes)
	}
}

// TestBufferChunkBounded checks that a long burst is written out (without a
// flush) whenever the held frames fill the Writer's buffer, which never
// grows for it: a stream holds at most frameBufSize bytes.
func TestBufferChunkBounded(t *testing.T) {
	fr := &flushRecorder{}
	w := NewWriter(fr, goldenOptions)
	chunk := []byte(upstreamChunk)
	size := cap(w.buf)
	for range 100 {
		if err := w.BufferChunk(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if cap(w.buf) != size || size < frameBufSize {
		t.Errorf("buffer of %d bytes became %d; want %d at least, unchanged", size, cap(w.buf), frameBufSize)
	}
	frame := len("data: "+strings.Replace(upstreamChunk, "chatcmpl-upstream-1", "chatcmpl-42", 1)) + 2
	perWrite := size / frame
	if fr.flushes != 0 || fr.writes < 100/perWrite-1 || fr.writes > 100/perWrite+1 {
		t.Errorf("100 frames of %d bytes: %d writes, %d flushes; want about %d writes of %d frames, no flush",
			frame, fr.writes, fr.flushes, 100/perWrite, perWrite)
	}
	if err := w.End(); err != nil || fr.flushes != 1 || cap(w.buf) != size {
		t.Errorf("End = %v: %d flushes, buffer %d", err, fr.flushes, cap(w.buf))
	}
	if got, want := strings.Count(fr.String(), "chatcmpl-42"), 100+1; got != want {
		t.Errorf("%d frames with our id written, want %d", got, want)
	}
}

// TestChunkSizeBound: a chunk without an id, which gets `"id":<id>,`
// inserted, does not grow the buffer when the held frames leave just less
// room than its rewritten frame takes; the held frames are written first.
func TestChunkSizeBound(t *testing.T) {
	noID := []byte(`{"object":"chat.completion.chunk","choices":[]}`)
	var one bytes.Buffer
	if err := NewWriter(&one, goldenOptions).Chunk(noID); err != nil {
		t.Fatal(err)
	}
	frame := one.Len() // the rewritten frame
	for short := 1; short <= len(idKey)+1; short++ {
		fr := &flushRecorder{}
		w := NewWriter(fr, goldenOptions)
		size := cap(w.buf)
		// Frames held up to short bytes less room than the chunk's frame
		// takes.
		filler := size - frame + short
		w.buf = append(w.buf, strings.Repeat("x", filler)...)
		if err := w.BufferChunk(noID); err != nil {
			t.Fatal(err)
		}
		if cap(w.buf) != size {
			t.Errorf("%d bytes held, %d left short: buffer of %d bytes grew to %d", filler, short, size, cap(w.buf))
		}
		if got := string(w.buf); got != one.String() || fr.String() != strings.Repeat("x", filler) {
			t.Errorf("%d bytes held: then %d written and %d held; want them written and the chunk's frame (%d) held",
				filler, fr.Len(), len(got), frame)
		}
	}
}

// failFlusher accepts writes and fails flushes.
type failFlusher struct{ io.Writer }

var errFlushTest = errors.New("connection reset")

func (failFlusher) FlushError() error { return errFlushTest }

func TestFlushErrorIsSticky(t *testing.T) {
	w := NewWriter(failFlusher{io.Discard}, goldenOptions)
	if err := w.BufferChunk([]byte(upstreamChunk)); err != nil {
		t.Fatalf("BufferChunk = %v; it must not flush", err)
	}
	err := w.Flush()
	if !errors.Is(err, errFlushTest) {
		t.Fatalf("Flush = %v, want it to wrap the flush error", err)
	}
	if w.Err() != err || w.BufferChunk([]byte(upstreamChunk)) != err || w.Flush() != err {
		t.Error("the flush error is not sticky")
	}
}

func TestReaderBuffered(t *testing.T) {
	const first, second = "data: a\n\n", ": c\ndata: b\r\n\r\n"
	r := NewReader(strings.NewReader(first + second))
	if n := r.Buffered(); n != 0 {
		t.Errorf("Buffered before reading = %d", n)
	}
	if ev, err := r.Next(); err != nil || string(ev.Data) != "a" {
		t.Fatalf("Next = %q, %v", ev.Data, err)
	}
	if n := r.Buffered(); n != len(second) {
		t.Errorf("Buffered after the first event = %d, want %d", n, len(second))
	}
	if ev, err := r.Next(); err != nil || string(ev.Data) != "b" {
		t.Fatalf("Next = %q, %v", ev.Data, err)
	}
	if n := r.Buffered(); n != 0 {
		t.Errorf("Buffered after the last event = %d, want 0", n)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("Next at the end = %v", err)
	}
}

// TestReaderReadsOnlyWhenNeeded checks that Next returns the events already
// buffered without reading again: the source fails every read after the
// first, so a second read would turn into an error.
func TestReaderReadsOnlyWhenNeeded(t *testing.T) {
	boom := errors.New("read after the data at hand")
	r := NewReader(io.MultiReader(strings.NewReader("data: 1\n\ndata: 2\n\ndata: 3"), errReader{boom}))
	for _, want := range []string{"1", "2"} {
		if ev, err := r.Next(); err != nil || string(ev.Data) != want {
			t.Fatalf("Next = %q, %v; want %q", ev.Data, err, want)
		}
	}
	if r.Buffered() != len("data: 3") {
		t.Errorf("Buffered = %d", r.Buffered())
	}
	if _, err := r.Next(); !errors.Is(err, boom) {
		t.Errorf("Next of the incomplete event = %v, want the read error", err)
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// TestReaderGrowsForLongLines reads lines longer than the initial buffer,
// split over many reads.
func TestReaderGrowsForLongLines(t *testing.T) {
	long := strings.Repeat("x", 3*readBufSize+17)
	in := "data: " + long + "\n\ndata: short\n\n"
	got := readAll(t, &chunkedReader{s: in, n: 1000})
	if len(got) != 2 || string(got[0].Data) != long || string(got[1].Data) != "short" {
		t.Fatalf("read %d events", len(got))
	}
}

// chunkedReader returns s in reads of at most n bytes.
type chunkedReader struct {
	s string
	n int
}

func (c *chunkedReader) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.n)], c.s)
	c.s = c.s[n:]
	return n, nil
}

func TestReaderNoProgress(t *testing.T) {
	r := NewReader(errReader{nil})
	if _, err := r.Next(); !errors.Is(err, io.ErrNoProgress) {
		t.Errorf("Next on a source that never returns data = %v, want io.ErrNoProgress", err)
	}
}

func TestHasQuotedID(t *testing.T) {
	for in, want := range map[string]bool{
		``: false, `"id"`: true, `,"id":1`: true, `d"`: false, `"idd"`: false, `"i"d"`: false,
		`,"model":"m","index":0}`: false, `{"x":"d","b":"id"}`: true, `id"`: false, `"id`: false,
	} {
		if got := hasQuotedID([]byte(in)); got != want {
			t.Errorf("hasQuotedID(%s) = %v, want %v", in, got, want)
		}
	}
}

// TestNoAllocs checks the allocation budget: a Writer costs three
// allocations (itself, its done channel, one buffer for everything else)
// and no frame allocates.
func TestNoAllocs(t *testing.T) {
	opts := Options{ID: "chatcmpl-9xYzAbCdEfGhIjKlMnOpQrStUvW", Model: "gpt-4o-2024-08-06", Created: 1712345678}
	if n := testing.AllocsPerRun(100, func() { NewWriter(io.Discard, opts) }); n > 3 {
		t.Errorf("NewWriter allocates %.1f times, want 3", n)
	}
	w := NewWriter(discardFlusher{}, opts)
	chunk, toolCall, action := []byte(typicalChunk), []byte(toolCallChunk), []byte(actionPayload)
	frames := map[string]func() error{
		"Chunk":       func() error { return w.Chunk(chunk) },
		"slow Chunk":  func() error { return w.Chunk(toolCall) },
		"BufferChunk": func() error { return w.BufferChunk(chunk) },
		"Flush":       w.Flush,
		"Text":        func() error { return w.Text("Hello, \"world\"") },
		"Event":       func() error { return w.Event("copilot_action", action) },
		"Comment":     func() error { return w.Comment("ping") },
	}
	for name, frame := range frames {
		if n := testing.AllocsPerRun(100, func() {
			if err := frame(); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%s allocates %.1f times per frame", name, n)
		}
	}
}

// TestWriterPool: a Writer from the pool writes what NewWriter's would; once
// released it only answers ErrEnded, so a late write cannot reach the next
// stream, which reuses its buffer; and the pool does nothing before End.
func TestWriterPool(t *testing.T) {
	var pool WriterPool
	write := func(w *Writer) {
		t.Helper()
		for _, err := range []error{w.Text("Hello"), w.BufferChunk([]byte(typicalChunk)), w.Chunk([]byte(toolCallChunk)),
			w.Event("copilot_action", []byte(actionPayload)), w.End()} {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	var want bytes.Buffer
	write(NewWriter(&want, goldenOptions))
	var late *Writer
	for i := range 5 {
		var got bytes.Buffer
		w := pool.NewWriter(&got, goldenOptions)
		if i == 1 {
			pool.Release(w) // before End: a no-op
			if err := w.Text("still open"); err != nil {
				t.Fatalf("a Writer released before End stopped writing: %v", err)
			}
			got.Reset()
		}
		write(w)
		if got.String() != want.String() {
			t.Fatalf("stream %d from the pool:\n%s\nwant\n%s", i, got.String(), want.String())
		}
		if late != nil {
			for _, err := range []error{late.Text("late"), late.Chunk([]byte(typicalChunk)), late.Comment("ping"), late.End()} {
				if !errors.Is(err, ErrEnded) && err != nil {
					t.Fatalf("a released Writer wrote: %v", err)
				}
			}
			if late.Text("late") == nil {
				t.Fatal("a released Writer accepted a frame")
			}
		}
		pool.Release(w)
		late = w
	}
	var nilPool *WriterPool
	w := nilPool.NewWriter(io.Discard, goldenOptions)
	nilPool.Release(w)
}
