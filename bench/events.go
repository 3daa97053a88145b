package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"
)

// stampKey starts the timestamped content of a mock chunk.
var stampKey = []byte(`"t=`)

// record notes one data frame that arrived at at.
func (r *streamResult) record(data []byte, at time.Time, start time.Time) {
	if bytes.Equal(data, []byte("[DONE]")) {
		r.done = true
		return
	}
	i := bytes.Index(data, stampKey)
	if i < 0 {
		return
	}
	sent, ok := parseStamp(data[i+len(stampKey):])
	if !ok {
		return
	}
	r.content++
	if r.content == 1 {
		r.ttfb = at.Sub(start)
	}
	r.lat = append(r.lat, time.Duration(at.UnixNano()-sent))
}

// parseStamp reads the decimal digits up to ";".
func parseStamp(b []byte) (int64, bool) {
	var n int64
	for i, c := range b {
		switch {
		case c >= '0' && c <= '9':
			n = n*10 + int64(c-'0')
		case c == ';' && i > 0:
			return n, true
		default:
			return 0, false
		}
	}
	return 0, false
}

// errInStream is an error event (event: copilot_error) in a stream.
var errInStream = errors.New("error event in the stream")

// readEvents calls fn with the payload of each "data:" line and its arrival
// time, until the body ends or fn returns false. An "event: copilot_error"
// line ends it with errInStream and the error's data.
func readEvents(br *bufio.Reader, fn func(data []byte, at time.Time) bool) error {
	failed := false
	for {
		line, err := br.ReadSlice('\n')
		at := time.Now()
		if errors.Is(err, bufio.ErrBufferFull) {
			return fmt.Errorf("a line longer than %d bytes", br.Size())
		}
		line = bytes.TrimRight(line, "\r\n")
		if data, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			data = bytes.TrimPrefix(data, []byte(" "))
			if failed {
				return fmt.Errorf("%w: %s", errInStream, data)
			}
			if !fn(data, at) {
				return nil
			}
		} else if bytes.Equal(line, []byte("event: copilot_error")) {
			failed = true
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
