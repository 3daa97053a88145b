package emit

import (
	"strings"
	"testing"
)

// TestSequencerOrder: steps finishing out of order still show their output
// in step order; the earliest unfinished step writes through at once.
func TestSequencerOrder(t *testing.T) {
	rec := &Recorder{}
	s := NewSequencer(rec, 3)
	e0, e1, e2 := s.Emitter(0), s.Emitter(1), s.Emitter(2)
	_ = e2.Text("c1 ")
	_ = e1.Text("b1 ")
	_ = e0.Text("a1 ")
	if got := rec.Transcript(); got != "a1 " {
		t.Fatalf("step 0 writes through; got %q", got)
	}
	s.Finish(2)
	_ = e1.Chunk([]byte(`{"choices":[{"delta":{"content":"b2 "}}]}`))
	if got := rec.Transcript(); got != "a1 " {
		t.Fatalf("later steps wait; got %q", got)
	}
	s.Finish(0) // step 1 becomes live: its held output goes out
	if got := rec.Transcript(); got != "a1 b1 b2 " {
		t.Fatalf("got %q", got)
	}
	_ = e1.Text("b3 ")
	s.Finish(1) // step 2 already finished: its output follows
	if got := rec.Transcript(); got != "a1 b1 b2 b3 c1 " {
		t.Fatalf("got %q", got)
	}
	if n := strings.Count(rec.Transcript(), "c1"); n != 1 {
		t.Fatalf("step 2's output went out %d times", n)
	}
}
