package server

import (
	"io"
	"net"
	"sync"
	"time"
)

// firstRequestListener hands a connection to the HTTP server only once its
// first request starts to arrive (one byte read), and closes one that stays
// silent for idle: the first request of a connection is waited for as
// net/http waits for the next request of a kept-alive one (IdleTimeout,
// then ReadHeaderTimeout from its first byte, golang/go#54784).
//
// net/http alone bounds the wait for a new connection's first request by
// ReadHeaderTimeout, from the accept. A client may open a connection and
// keep it unused in its pool: Go's Transport dials one for a request that
// then gets an idle connection first, browsers preconnect. The server
// closed such a connection after ReadHeaderTimeout (10 s) while the client
// meant to keep it up to its own idle time; a POST it sent on it as the
// server closed it got EOF, with nothing answered or logged, and the client
// cannot send a POST again by itself (F9 of bench/soak/README.md).
type firstRequestListener struct {
	net.Listener
	idle  time.Duration
	ready chan net.Conn // connections whose first byte came
	errc  chan error    // the inner listener's errors, in order
	done  chan struct{} // closed by Close

	mu      sync.Mutex
	closed  bool
	waiting map[net.Conn]struct{} // accepted, no byte yet
	once    sync.Once
}

// newFirstRequestListener wraps ln; idle bounds the wait for a connection's
// first byte.
func newFirstRequestListener(ln net.Listener, idle time.Duration) *firstRequestListener {
	l := &firstRequestListener{Listener: ln, idle: idle, ready: make(chan net.Conn), errc: make(chan error),
		done: make(chan struct{}), waiting: map[net.Conn]struct{}{}}
	go l.acceptLoop()
	return l
}

// acceptLoop accepts connections from the inner listener and waits for
// each one's first byte in a goroutine of its own. An error is handed to
// Accept; after a temporary one (too many open files) it accepts again
// once Accept has taken it, so http.Server's back-off paces it.
func (l *firstRequestListener) acceptLoop() {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			select {
			case l.errc <- err:
			case <-l.done:
				return
			}
			if isTemporary(err) {
				continue
			}
			return
		}
		if !l.track(c) {
			_ = c.Close()
			return
		}
		go l.waitFirstByte(c)
	}
}

// isTemporary reports the accept errors http.Server retries (it asks the
// error itself, not what it wraps).
func isTemporary(err error) bool {
	t, ok := err.(interface{ Temporary() bool })
	return ok && t.Temporary()
}

// track notes c as waiting; false once the listener is closed.
func (l *firstRequestListener) track(c net.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	l.waiting[c] = struct{}{}
	return true
}

// untrack forgets c; false when Close already took it (and closes it).
func (l *firstRequestListener) untrack(c net.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.waiting[c]; !ok {
		return false
	}
	delete(l.waiting, c)
	return true
}

// waitFirstByte reads c's first byte within idle and hands c, the byte put
// back, to Accept; a connection silent that long, or closed, is closed.
func (l *firstRequestListener) waitFirstByte(c net.Conn) {
	var b [1]byte
	err := c.SetReadDeadline(time.Now().Add(l.idle))
	n := 0
	if err == nil {
		n, err = io.ReadFull(c, b[:])
	}
	if err == nil {
		// net/http sets its own deadlines from here (ReadHeaderTimeout).
		err = c.SetReadDeadline(time.Time{})
	}
	if !l.untrack(c) {
		return // closed by Close
	}
	if err != nil || n != 1 {
		_ = c.Close()
		return
	}
	select {
	case l.ready <- &firstByteConn{Conn: c, first: b[0], has: true}:
	case <-l.done:
		_ = c.Close()
	}
}

// Accept returns the next connection whose first request has started.
func (l *firstRequestListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ready:
		return c, nil
	case err := <-l.errc:
		return nil, err
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close closes the inner listener and the connections still silent.
func (l *firstRequestListener) Close() error {
	err := net.ErrClosed
	l.once.Do(func() {
		close(l.done)
		err = l.Listener.Close()
		l.mu.Lock()
		l.closed = true
		waiting := l.waiting
		l.waiting = map[net.Conn]struct{}{}
		l.mu.Unlock()
		for c := range waiting {
			_ = c.Close()
		}
	})
	return err
}

// firstByteConn is a connection whose first byte was read to see that a
// request started: its first Read returns it. net/http reads a connection
// from one goroutine at a time, in order, so has needs no lock.
type firstByteConn struct {
	net.Conn
	first byte
	has   bool
}

// Read returns the byte read ahead, then reads the connection.
func (c *firstByteConn) Read(p []byte) (int, error) {
	if c.has && len(p) > 0 {
		p[0], c.has = c.first, false
		return 1, nil
	}
	return c.Conn.Read(p)
}

// CloseWrite half-closes the connection when it can (net/http does before
// closing after an error answer, so that the client reads the answer).
func (c *firstByteConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// ReadFrom lets net/http copy a file to the connection with sendfile.
func (c *firstByteConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(writerOnly{c.Conn}, r)
}

// writerOnly hides a writer's ReadFrom, so that io.Copy does not call it
// back.
type writerOnly struct{ io.Writer }
