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
// unknown fields are ignored; one leading space of a value is dropped.
type Reader struct {
	sc *bufio.Scanner
	// skipLF is set after a line ended by a \r at the end of the buffered
	// input, so that an \n arriving next is not read as an empty line.
	skipLF bool
	first  bool
	name   string
	id     string
	data   []byte
}

// NewReader returns a Reader reading from r. Lines may be up to MaxLineSize
// bytes long.
func NewReader(r io.Reader) *Reader {
	rd := &Reader{first: true}
	rd.sc = bufio.NewScanner(r)
	rd.sc.Buffer(make([]byte, 4096), MaxLineSize+2)
	rd.sc.Split(rd.splitLine)
	return rd
}

// splitLine is a bufio.SplitFunc cutting lines at \r\n, \n or \r. A \r at
// the end of the buffered input ends its line at once (an event must not
// wait for the next byte); a \n that then follows is skipped.
func (r *Reader) splitLine(data []byte, atEOF bool) (int, []byte, error) {
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

// Next returns the next event that has data. An event cut short by the end
// of the stream is still returned, then io.EOF. Read errors are wrapped.
func (r *Reader) Next() (Event, error) {
	r.data = r.data[:0]
	hasData := false
	for r.sc.Scan() {
		line := r.sc.Bytes()
		if len(line) > MaxLineSize {
			return Event{}, errLineTooLong
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
	if err := r.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return Event{}, errLineTooLong
		}
		return Event{}, fmt.Errorf("sse: reading stream: %w", err)
	}
	if hasData {
		return r.event(), nil
	}
	return Event{}, io.EOF
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
