package sse

import (
	"bytes"
	"errors"
	"testing"

	"github.com/agentgw/agentgw/internal/golden"
)

// goldenOptions are the options of every golden test writer.
var goldenOptions = Options{ID: "chatcmpl-42", Model: "happy", Created: 1700000000}

const upstreamChunk = `{"id":"chatcmpl-upstream-1","object":"chat.completion.chunk","created":1712345678,` +
	`"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}`

func TestFramesGolden(t *testing.T) {
	tests := []struct {
		golden string
		opts   Options
		write  func(w *Writer) error
	}{
		{"text", goldenOptions, func(w *Writer) error { return w.Text("Hello, world") }},
		{"text_empty", goldenOptions, func(w *Writer) error { return w.Text("") }},
		{"text_escapes", goldenOptions, func(w *Writer) error {
			return w.Text("say \"hi\"\\n\n\r\t\b\f\x01\x1f\x7f<>&\xff\u2028\u2029é世界😀")
		}},
		{"chunk", goldenOptions, func(w *Writer) error { return w.Chunk([]byte(upstreamChunk)) }},
		{"event", goldenOptions, func(w *Writer) error {
			return w.Event("copilot_action", []byte(`{"action":"confirm","state":{},"data":{"title":"Go"}}`))
		}},
		{"event_multiline", goldenOptions, func(w *Writer) error {
			return w.Event("copilot_error", []byte("line one\r\nline two\n\rline four"))
		}},
		{"event_unnamed", goldenOptions, func(w *Writer) error { return w.Event("", []byte("just data")) }},
		{"comment", goldenOptions, func(w *Writer) error { return w.Comment("ping") }},
		{"comment_multiline", goldenOptions, func(w *Writer) error { return w.Comment("first\nsecond") }},
		{"end", goldenOptions, func(w *Writer) error { return w.End() }},
		{"end_done_seed", Options{ID: "chatcmpl-42", Model: "happy", Created: 1700000000, Terminator: "[Done]"},
			func(w *Writer) error { return w.End() }},
		// After an in-stream error the final chunk says so.
		{"end_error", goldenOptions, func(w *Writer) error {
			return errors.Join(w.Event("copilot_error", []byte(`{"errorCode":"UPSTREAM_ERROR"}`)), w.EndWith(FinishError))
		}},
		// The final chunk names the model that answered (the first relayed
		// chunk's), not the one the writer was made with.
		{"end_upstream_model", goldenOptions, func(w *Writer) error {
			return errors.Join(w.Chunk([]byte(upstreamChunk)), w.Text("!"),
				w.BufferChunk([]byte(`{"id":"x","model":"gpt-4o-mini","choices":[]}`)), w.End())
		}},
		{"end_upstream_model_escaped", goldenOptions, func(w *Writer) error {
			return errors.Join(w.Chunk([]byte(`{"model":"gpt-\u00e9\"4","choices":[]}`)), w.EndWith(FinishError))
		}},
		// Chunks without a model (a nested one does not count) are passed
		// over; the first that names one decides.
		{"end_first_chunk_no_model", goldenOptions, func(w *Writer) error {
			return errors.Join(w.Chunk([]byte(`{"choices":[],"x":{"model":"nested"}}`)), w.Chunk([]byte(upstreamChunk)),
				w.Chunk([]byte(`{"id":"x","model":"other"}`)), w.End())
		}},
		// A model that is not a string leaves the writer's own.
		{"end_model_null", goldenOptions, func(w *Writer) error {
			return errors.Join(w.Chunk([]byte(`{"model":null,"choices":[]}`)), w.Chunk([]byte(upstreamChunk)), w.End())
		}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			var out bytes.Buffer
			if err := tt.write(NewWriter(&out, tt.opts)); err != nil {
				t.Fatalf("write: %v", err)
			}
			golden.Check(t, "testdata/frames/"+tt.golden+".sse", out.Bytes())
		})
	}
}

func TestEndOnceThenErrEnded(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, goldenOptions)
	if err := w.End(); err != nil {
		t.Fatalf("End: %v", err)
	}
	once := out.String()
	if err := w.End(); err != nil {
		t.Errorf("second End = %v, want nil", err)
	}
	writes := map[string]func() error{
		"Text":    func() error { return w.Text("x") },
		"Chunk":   func() error { return w.Chunk([]byte(`{}`)) },
		"Event":   func() error { return w.Event("e", []byte("d")) },
		"Comment": func() error { return w.Comment("c") },
	}
	for name, write := range writes {
		if err := write(); !errors.Is(err, ErrEnded) {
			t.Errorf("%s after End = %v, want ErrEnded", name, err)
		}
	}
	if out.String() != once {
		t.Errorf("output changed after End: %q", out.String())
	}
}

func TestRejectedWritesWriteNothing(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, goldenOptions)
	if err := w.Chunk([]byte(`[1,2]`)); !errors.Is(err, ErrMalformedChunk) {
		t.Errorf("Chunk(array) = %v, want ErrMalformedChunk", err)
	}
	if err := w.Chunk([]byte(`{"id":"x"`)); !errors.Is(err, ErrMalformedChunk) {
		t.Errorf("Chunk(truncated) = %v, want ErrMalformedChunk", err)
	}
	if err := w.Event("bad\nname", []byte("d")); !errors.Is(err, ErrEventName) {
		t.Errorf("Event(name with newline) = %v, want ErrEventName", err)
	}
	if out.Len() != 0 {
		t.Errorf("rejected writes wrote %q", out.String())
	}
	if w.Err() != nil {
		t.Errorf("Err() = %v after rejected writes, want nil", w.Err())
	}
}

// failWriter fails every write.
type failWriter struct{ writes int }

func (f *failWriter) Write(p []byte) (int, error) {
	f.writes++
	return 0, errors.New("broken pipe")
}

func TestWriteErrorIsSticky(t *testing.T) {
	fw := &failWriter{}
	w := NewWriter(fw, goldenOptions)
	first := w.Text("a")
	if first == nil {
		t.Fatal("Text on a failing writer returned nil")
	}
	if err := w.Text("b"); !errors.Is(err, first) && err != first {
		t.Errorf("second Text = %v, want the first error %v", err, first)
	}
	if w.Err() != first {
		t.Errorf("Err() = %v, want %v", w.Err(), first)
	}
	if err := w.End(); err != first {
		t.Errorf("End() = %v, want %v", err, first)
	}
	if fw.writes != 1 {
		t.Errorf("underlying writes = %d, want 1", fw.writes)
	}
}

// flushRecorder counts flushes, in the style of http.ResponseWriter.
type flushRecorder struct {
	bytes.Buffer
	flushes, writes int
	// unflushed is the data written since the last flush.
	unflushed int
}

func (f *flushRecorder) Write(p []byte) (int, error) {
	f.unflushed += len(p)
	f.writes++
	return f.Buffer.Write(p)
}

func (f *flushRecorder) Flush() { f.flushes++; f.unflushed = 0 }

func TestEveryFrameIsFlushed(t *testing.T) {
	fr := &flushRecorder{}
	w := NewWriter(fr, goldenOptions)
	steps := []func() error{
		func() error { return w.Text("a") },
		func() error { return w.Chunk([]byte(`{"choices":[]}`)) },
		func() error { return w.Event("e", []byte("d")) },
		func() error { return w.Comment("c") },
		w.End,
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if fr.flushes != i+1 || fr.unflushed != 0 {
			t.Fatalf("after step %d: %d flushes, %d bytes unflushed", i, fr.flushes, fr.unflushed)
		}
	}
}

func TestGeneratedDefaults(t *testing.T) {
	w := NewWriter(&bytes.Buffer{}, Options{})
	if id := w.ID(); len(id) != len("chatcmpl-")+24 || id[:9] != "chatcmpl-" {
		t.Errorf("generated id %q", id)
	}
	if NewWriter(&bytes.Buffer{}, Options{}).ID() == w.ID() {
		t.Error("two writers generated the same id")
	}
}
