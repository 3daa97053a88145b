package tools

import (
	"fmt"
	"io"
	"sync"
)

// stderrKeep is how much of a tool's stderr an error message keeps: the
// first and the last KiB.
const stderrKeep = 2 << 10

// headBuffer keeps the first max bytes written to it and counts the rest.
// Writes never fail, so a tool is never blocked by a full cap.
type headBuffer struct {
	mu    sync.Mutex
	max   int
	buf   []byte
	total int64
}

// Write implements io.Writer.
func (b *headBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total += int64(len(p))
	if room := b.max - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// bytes returns the kept bytes and whether anything was cut.
func (b *headBuffer) bytes() ([]byte, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf, b.total > int64(len(b.buf))
}

// stderrBuffer keeps the start and the end of what is written to it, half
// of max each: the first error line and the last words both survive.
type stderrBuffer struct {
	mu         sync.Mutex
	half       int
	head, tail []byte
	total      int64
}

// newStderrBuffer returns a buffer keeping about max bytes.
func newStderrBuffer(max int) *stderrBuffer { return &stderrBuffer{half: max / 2} }

// Write implements io.Writer.
func (b *stderrBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total += int64(len(p))
	rest := p
	if room := b.half - len(b.head); room > 0 {
		n := min(room, len(rest))
		b.head = append(b.head, rest[:n]...)
		rest = rest[n:]
	}
	if len(rest) >= b.half {
		b.tail = append(b.tail[:0], rest[len(rest)-b.half:]...)
		return len(p), nil
	}
	if over := len(b.tail) + len(rest) - b.half; over > 0 {
		b.tail = append(b.tail[:0], b.tail[over:]...)
	}
	b.tail = append(b.tail, rest...)
	return len(p), nil
}

// String returns the kept text with a marker where the middle was dropped.
func (b *stderrBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.total > int64(len(b.head)+len(b.tail)) {
		return string(b.head) + "\n[...]\n" + string(b.tail)
	}
	return string(b.head) + string(b.tail)
}

// readCapped reads r up to max bytes and reports whether more followed.
func readCapped(r io.Reader, max int) ([]byte, bool, error) {
	b, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
	if err != nil {
		return b, false, fmt.Errorf("reading output: %w", err)
	}
	if len(b) > max {
		return b[:max], true, nil
	}
	return b, false, nil
}
