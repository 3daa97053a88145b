package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxLineSize is the longest line a Reader accepts.
const MaxLineSize = 16 << 20

// Initial buffer sizes of a Reader: readBufSize for the input (it grows for
// longer lines, up to MaxLineSize plus a line break) and dataBufSize for the
// data of an event (it grows as needed). Both come from one allocation.
// One read of an HTTP/1.1 response body seldom returns more than the 4 KiB
// net/http's transport buffers, so a larger buffer would rarely batch more
// events per read.
const (
	readBufSize = 4096
	dataBufSize = 512
)

// maxEmptyReads is how many reads returning neither data nor an error in a
// row end the stream with io.ErrNoProgress, as in bufio.
const maxEmptyReads = 100

// errLineTooLong is returned for a line longer than MaxLineSize.
var errLineTooLong = fmt.Errorf("sse: line longer than %d bytes: %w", MaxLineSize, bufio.ErrTooLong)

// Event is one event read from a stream.
type Event struct {
	// Name is the event type ("event:" field), "" when none was given.
	Name string
	// Data is the event's data lines joined with "\n". It is valid until the
	// next call of Next.
	Data []byte
	// ID is the last event id seen on the stream ("id:" field); as in the
	// SSE specification it carries over to later events.
	ID string
}

// Reader reads the events of a Server-Sent-Events stream following the
// WHATWG parsing rules: lines end with \r\n, \n or \r; comments, retry and
// unknown fields are ignored; one leading space of a value is dropped. It
// reads from its source only when the data it holds has no complete line,
// so an event is returned as soon as its last byte has been read.
type Reader struct {
	src io.Reader
	// mem is the initial allocation behind buf and data, which a
	// ReaderPool recycles.
	mem *[]byte
	// buf[r:w] has been read from src but not consumed yet.
	buf  []byte
	r, w int
	// err is the error of src (io.EOF included) or errLineTooLong; it is
	// returned once the buffered lines are used up.
	err error
	// skipLF is set after a line ended by a \r at the end of the buffered
	// input, so that an \n arriving next is not read as an empty line.
	skipLF bool
	first  bool
	name   string
	id     string
	data   []byte
}

// NewReader returns a Reader reading from src. Lines may be up to
// MaxLineSize bytes long.
func NewReader(src io.Reader) *Reader {
	return newReader(src, make([]byte, readBufSize+dataBufSize), nil)
}

// newReader makes a Reader over b, which mem, when not nil, points to for
// a ReaderPool to take back.
func newReader(src io.Reader, b []byte, mem *[]byte) *Reader {
	return &Reader{
		src:   src,
		mem:   mem,
		buf:   b[:readBufSize:readBufSize],
		data:  b[readBufSize:readBufSize],
		first: true,
	}
}

// ReaderPool hands out Readers whose initial buffers are recycled: a relay
// that reads one stream after another allocates them once per concurrent
// stream instead of once per stream. The zero value is ready to use; it is
// safe for concurrent use.
type ReaderPool struct {
	bufs bufPool
}

// NewReader is NewReader with a recycled buffer when there is one. A nil
// pool recycles nothing.
func (p *ReaderPool) NewReader(src io.Reader) *Reader {
	if p == nil {
		return NewReader(src)
	}
	mem := p.bufs.get(readBufSize + dataBufSize)
	return newReader(src, (*mem)[:readBufSize+dataBufSize], mem)
}

// Release gives the initial buffers of r back to the pool. Neither r nor
// the Data of any Event it returned may be used afterwards.
func (p *ReaderPool) Release(r *Reader) {
	if p != nil && r.mem != nil {
		p.bufs.Put(r.mem)
	}
	r.mem, r.buf, r.data = nil, nil, nil
}

// Buffered returns the number of bytes read from the source but not yet
// consumed by Next. When it is 0 the next call of Next reads from the
// source; when it is not, those bytes may still hold only part of an event,
// in which case Next reads too.
func (r *Reader) Buffered() int { return r.w - r.r }

// Next returns the next event that has data. An event cut short by the end
// of the stream is still returned, then io.EOF. Read errors are wrapped.
func (r *Reader) Next() (Event, error) {
	r.data = r.data[:0]
	hasData := false
	for {
		line, err := r.line()
		switch {
		case err == io.EOF:
			if hasData {
				return r.event(), nil
			}
			return Event{}, io.EOF
		case err == errLineTooLong:
			return Event{}, err
		case err != nil:
			return Event{}, fmt.Errorf("sse: reading stream: %w", err)
		}
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
}

// line returns the next line without its line break, reading from the
// source only when no whole line is buffered. At the end of the stream the
// remaining bytes are the last line. The line is valid until the next call.
func (r *Reader) line() ([]byte, error) {
	for {
		if r.skipLF && r.r < r.w {
			r.skipLF = false
			if r.buf[r.r] == '\n' {
				r.r++
			}
		}
		if line, ok := r.cut(); ok {
			if len(line) > MaxLineSize {
				return nil, r.tooLong()
			}
			return line, nil
		}
		if r.err != nil {
			if r.r == r.w {
				return nil, r.err
			}
			line := r.buf[r.r:r.w]
			r.r = r.w
			return line, nil
		}
		if r.w-r.r > MaxLineSize {
			return nil, r.tooLong()
		}
		r.fill()
	}
}

// cut consumes the first buffered line, which ends with \r\n, \n or \r. A
// \r at the end of the buffered input ends its line at once (an event must
// not wait for the next byte); a \n that then follows is skipped.
func (r *Reader) cut() ([]byte, bool) {
	data := r.buf[r.r:r.w]
	lf := bytes.IndexByte(data, '\n')
	limit := lf
	if limit < 0 {
		limit = len(data)
	}
	if cr := bytes.IndexByte(data[:limit], '\r'); cr >= 0 {
		switch {
		case cr+1 < len(data) && data[cr+1] == '\n':
			r.r += cr + 2
		case cr+1 == len(data):
			r.skipLF = true
			r.r += cr + 1
		default:
			r.r += cr + 1
		}
		return data[:cr], true
	}
	if lf >= 0 {
		r.r += lf + 1
		return data[:lf], true
	}
	return nil, false
}

// tooLong drops the buffered input and makes errLineTooLong sticky.
func (r *Reader) tooLong() error {
	r.r, r.w, r.err = 0, 0, errLineTooLong
	return r.err
}

// fill moves the unconsumed bytes to the front of the buffer, grows it when
// they fill it, and reads once from the source, retrying empty reads.
func (r *Reader) fill() {
	if r.r > 0 {
		r.w = copy(r.buf, r.buf[r.r:r.w])
		r.r = 0
	}
	if r.w == len(r.buf) {
		grown := make([]byte, min(2*len(r.buf), MaxLineSize+2))
		copy(grown, r.buf[:r.w])
		r.buf = grown
	}
	for range maxEmptyReads {
		n, err := r.src.Read(r.buf[r.w:])
		if n < 0 || n > len(r.buf)-r.w {
			r.err = errors.New("sse: the source returned an invalid count from Read")
			return
		}
		r.w += n
		if err != nil {
			r.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	r.err = io.ErrNoProgress
}

// event completes the event being read and resets the per-event state.
func (r *Reader) event() Event {
	ev := Event{Name: r.name, Data: r.data[:len(r.data)-1], ID: r.id}
	r.name = ""
	return ev
}

// field applies one non-empty line and reports whether it was a data line.
func (r *Reader) field(line []byte) bool {
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
		if string(value) != r.name {
			r.name = string(value)
		}
	case "id":
		if bytes.IndexByte(value, 0) < 0 && string(value) != r.id {
			r.id = string(value)
		}
	}
	return false
}
