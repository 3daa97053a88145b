package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"
)

// scannerReader is the Reader as it was built on bufio.Scanner, kept as the
// reference the rewritten Reader is fuzzed against.
type scannerReader struct {
	sc       *bufio.Scanner
	skipLF   bool
	first    bool
	name, id string
	data     []byte
}

func newScannerReader(r io.Reader) *scannerReader {
	rd := &scannerReader{first: true}
	rd.sc = bufio.NewScanner(r)
	rd.sc.Buffer(make([]byte, 64), MaxLineSize+2)
	rd.sc.Split(rd.splitLine)
	return rd
}

func (r *scannerReader) splitLine(data []byte, atEOF bool) (int, []byte, error) {
	if r.skipLF && len(data) > 0 {
		r.skipLF = false
		if data[0] == '\n' {
			return 1, nil, nil
		}
	}
	lf := bytes.IndexByte(data, '\n')
	limit := lf
	if limit < 0 {
		limit = len(data)
	}
	if cr := bytes.IndexByte(data[:limit], '\r'); cr >= 0 {
		switch {
		case cr+1 < len(data) && data[cr+1] == '\n':
			return cr + 2, data[:cr], nil
		case cr+1 == len(data):
			r.skipLF = true
		}
		return cr + 1, data[:cr], nil
	}
	if lf >= 0 {
		return lf + 1, data[:lf], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

func (r *scannerReader) Next() (Event, error) {
	r.data = r.data[:0]
	hasData := false
	for r.sc.Scan() {
		line := r.sc.Bytes()
		if r.first {
			r.first = false
			line = bytes.TrimPrefix(line, []byte("\uFEFF"))
		}
		if len(line) == 0 {
			if hasData {
				return r.event(), nil
			}
			r.name = ""
			continue
		}
		hasData = r.field(line) || hasData
	}
	if err := r.sc.Err(); err != nil {
		return Event{}, err
	}
	if hasData {
		return r.event(), nil
	}
	return Event{}, io.EOF
}

func (r *scannerReader) event() Event {
	ev := Event{Name: r.name, Data: r.data[:len(r.data)-1], ID: r.id}
	r.name = ""
	return ev
}

func (r *scannerReader) field(line []byte) bool {
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		r.data = append(append(r.data, value...), '\n')
		return true
	case "event":
		r.name = string(value)
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			r.id = string(value)
		}
	}
	return false
}

// FuzzReaderMatchesScanner reads the same input, cut into reads of the same
// random sizes, with the Reader and with the bufio.Scanner reference: the
// events must be the same, and Buffered must account for every byte read.
func FuzzReaderMatchesScanner(f *testing.F) {
	for _, s := range []string{
		"data: a\n\n", "data: a\r\n\r\ndata: b\r\r", "event: e\ndata: 1\ndata: 2\n\nid: 3\ndata\n", "data: a\r",
		"\uFEFFdata: x\n\n: c\n\n", "data: a\r\ndata: b\n\r\n", "data: " + typicalChunk + "\n\n",
	} {
		f.Add([]byte(s), uint8(1))
		f.Add([]byte(s), uint8(7))
	}
	f.Fuzz(func(t *testing.T, in []byte, step uint8) {
		n := max(int(step), 1)
		src := &countingReader{r: &chunkedReader{s: string(in), n: n}}
		got := NewReader(src)
		want := newScannerReader(&chunkedReader{s: string(in), n: n})
		for i := 0; ; i++ {
			g, gerr := got.Next()
			w, werr := want.Next()
			if (gerr == nil) != (werr == nil) || (gerr != nil && !errors.Is(gerr, werr)) {
				t.Fatalf("event %d: error %v, reference %v", i, gerr, werr)
			}
			if gerr != nil {
				return
			}
			if g.Name != w.Name || g.ID != w.ID || !bytes.Equal(g.Data, w.Data) {
				t.Fatalf("event %d: %q, reference %q", i, g, w)
			}
			if consumed := src.n - got.Buffered(); consumed < 0 || consumed > len(in) {
				t.Fatalf("event %d: read %d bytes, %d buffered", i, src.n, got.Buffered())
			}
		}
	})
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
