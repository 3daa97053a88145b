package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// readAll reads every event of in; it fails the test on errors other than
// io.EOF.
func readAll(t testing.TB, in io.Reader) []Event {
	t.Helper()
	r := NewReader(in)
	var events []Event
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return events
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		ev.Data = bytes.Clone(ev.Data)
		events = append(events, ev)
	}
}

func TestReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Event
	}{
		{"one data event", "data: {\"a\":1}\n\n", []Event{{Data: []byte(`{"a":1}`)}}},
		{"two events", "data: a\n\ndata: b\n\n", []Event{{Data: []byte("a")}, {Data: []byte("b")}}},
		{"named event", "event: error\ndata: {\"message\":\"x\"}\n\n",
			[]Event{{Name: "error", Data: []byte(`{"message":"x"}`)}}},
		{"name resets after dispatch", "event: e\ndata: 1\n\ndata: 2\n\n",
			[]Event{{Name: "e", Data: []byte("1")}, {Data: []byte("2")}}},
		{"multi data lines joined", "data: a\ndata: b\ndata:\ndata: c\n\n", []Event{{Data: []byte("a\nb\n\nc")}}},
		{"comments skipped", ": ping\n\n: x\ndata: a\n: y\n\n", []Event{{Data: []byte("a")}}},
		{"no space after colon", "data:a\n\n", []Event{{Data: []byte("a")}}},
		{"only one space dropped", "data:  a \n\n", []Event{{Data: []byte(" a ")}}},
		{"field without colon", "data\n\n", []Event{{Data: []byte("")}}},
		{"empty data line", "data:\n\n", []Event{{Data: []byte("")}}},
		{"event without data skipped", "event: x\n\ndata: a\n\n", []Event{{Data: []byte("a")}}},
		{"CRLF", "data: a\r\n\r\ndata: b\r\n\r\n", []Event{{Data: []byte("a")}, {Data: []byte("b")}}},
		{"CR", "data: a\r\rdata: b\rdata: c\r\r", []Event{{Data: []byte("a")}, {Data: []byte("b\nc")}}},
		{"mixed line ends", "data: a\r\ndata: b\rdata: c\n\r\n", []Event{{Data: []byte("a\nb\nc")}}},
		{"id carries over", "id: 7\ndata: a\n\ndata: b\n\n",
			[]Event{{ID: "7", Data: []byte("a")}, {ID: "7", Data: []byte("b")}}},
		{"id with NUL ignored", "id: 1\ndata: a\n\nid: x\x00y\ndata: b\n\n",
			[]Event{{ID: "1", Data: []byte("a")}, {ID: "1", Data: []byte("b")}}},
		{"retry and unknown fields ignored", "retry: 10\nfoo: bar\ndata: a\n\n", []Event{{Data: []byte("a")}}},
		{"event at EOF without blank line", "data: a\n\ndata: last", []Event{{Data: []byte("a")}, {Data: []byte("last")}}},
		{"event at EOF with one newline", "data: last\n", []Event{{Data: []byte("last")}}},
		{"trailing comment at EOF", "data: a\n\n: bye", []Event{{Data: []byte("a")}}},
		{"BOM stripped", "\uFEFFdata: a\n\n", []Event{{Data: []byte("a")}}},
		{"DONE is plain data", "data: [DONE]\n\n", []Event{{Data: []byte("[DONE]")}}},
		{"empty stream", "", nil},
		{"only blank lines", "\n\n\r\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, split := range []struct {
				name string
				in   io.Reader
			}{
				{"whole", strings.NewReader(tt.in)},
				{"byte by byte", iotest.OneByteReader(strings.NewReader(tt.in))},
			} {
				got := readAll(t, split.in)
				if !sameEvents(got, tt.want) {
					t.Errorf("%s: got %q, want %q", split.name, got, tt.want)
				}
			}
		})
	}
}

func sameEvents(a, b []Event) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].ID != b[i].ID || !bytes.Equal(a[i].Data, b[i].Data) {
			return false
		}
	}
	return true
}

func TestReaderLongLines(t *testing.T) {
	long := strings.Repeat("x", MaxLineSize-len("data: "))
	got := readAll(t, strings.NewReader("data: "+long+"\r\n\r\n"))
	if len(got) != 1 || len(got[0].Data) != len(long) {
		t.Fatalf("a line of exactly MaxLineSize bytes was not read whole")
	}
	r := NewReader(strings.NewReader("data: " + long + "x\n\n"))
	if _, err := r.Next(); err == nil || errors.Is(err, io.EOF) {
		t.Errorf("a line over MaxLineSize: err = %v, want a too-long error", err)
	}
}

func TestReaderReadError(t *testing.T) {
	boom := errors.New("connection reset")
	r := NewReader(io.MultiReader(strings.NewReader("data: a\n\ndata: partial\n"), iotest.ErrReader(boom)))
	if ev, err := r.Next(); err != nil || string(ev.Data) != "a" {
		t.Fatalf("first Next = %q, %v", ev.Data, err)
	}
	if _, err := r.Next(); !errors.Is(err, boom) {
		t.Errorf("Next after a read error = %v, want it wrapped", err)
	}
}

// TestReaderCRDoesNotWait checks that an event whose blank line ends with a
// lone \r is returned before any later byte arrives.
func TestReaderCRDoesNotWait(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	go func() { _, _ = pw.Write([]byte("data: a\r\r")) }()
	ev, err := NewReader(pr).Next()
	if err != nil || string(ev.Data) != "a" {
		t.Errorf("Next = %q, %v", ev.Data, err)
	}
}

func TestReaderNoAllocsPerEvent(t *testing.T) {
	r := NewReader(strings.NewReader(strings.Repeat("data: "+upstreamChunk+"\n\n", 200)))
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0.1 {
		t.Errorf("Next allocates %.2f times per event", allocs)
	}
}

// TestReaderPool reads streams one after another with recycled buffers,
// one of them with a line longer than the initial buffer, and through a
// nil pool: every event comes out whole, whatever the buffer held before.
func TestReaderPool(t *testing.T) {
	long := strings.Repeat("x", 3*readBufSize)
	for _, pool := range []*ReaderPool{{}, nil} {
		for i := range 20 {
			want := fmt.Sprintf("event %d", i)
			if i == 7 {
				want = long
			}
			r := pool.NewReader(strings.NewReader("data: " + want + "\n\ndata: second\n\n"))
			for _, w := range []string{want, "second"} {
				ev, err := r.Next()
				if err != nil || string(ev.Data) != w {
					t.Fatalf("stream %d: Next = %.40q, %v; want %.40q", i, ev.Data, err, w)
				}
			}
			pool.Release(r)
			if r.buf != nil || r.data != nil {
				t.Fatalf("stream %d: Release left the buffers in the Reader", i)
			}
		}
	}
}
