package llm

import (
	"bytes"
	"io"
)

// NewReader returns a reader of src's bytes with every credential r knows
// replaced by "[REDACTED]", as Redact does, for a body relayed as it
// arrives (a stream). A credential split across src's reads is caught: the
// reader holds back the end of what it read only while that end is the
// start of a credential, so an SSE event that ends with its blank line is
// passed on whole, without waiting for the next. With a nil r, src is
// returned as it is.
func (r *Redactor) NewReader(src io.Reader) io.Reader {
	if r == nil || r.r == nil {
		return src
	}
	rd := &redactReader{src: src, forms: r.r.forms, buf: make([]byte, 0, 32<<10)}
	for _, f := range rd.forms {
		rd.first[f[0]] = true
	}
	return rd
}

// redactReader is the reader of NewReader.
type redactReader struct {
	src   io.Reader
	forms [][]byte // the longest first
	// first marks the bytes a credential starts with.
	first [256]bool
	// buf holds what was read from src and not yet scanned: the start of a
	// credential, at most as long as the longest one.
	buf []byte
	// out is what was scanned and is ready to be read.
	out    []byte
	outBuf []byte
	err    error
}

// Read implements io.Reader.
func (r *redactReader) Read(p []byte) (int, error) {
	for len(r.out) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		held := len(r.buf)
		if cap(r.buf)-held < 4<<10 {
			r.buf = append(r.buf, make([]byte, 32<<10)...)[:held]
		}
		n, err := r.src.Read(r.buf[held:cap(r.buf)])
		r.buf = r.buf[:held+n]
		if err != nil {
			r.err = err
		}
		if n == 0 && err == nil {
			continue
		}
		r.scan(err != nil)
	}
	n := copy(p, r.out)
	r.out = r.out[n:]
	return n, nil
}

// scan moves what buf holds to out, credentials replaced, and keeps in
// buf only a possible credential's start at its end (none when final).
func (r *redactReader) scan(final bool) {
	out, in := r.outBuf[:0], r.buf
	start, i := 0, 0
	for i < len(in) {
		if !r.first[in[i]] {
			i++
			continue
		}
		n, partial := r.match(in[i:], final)
		if partial {
			break
		}
		if n == 0 {
			i++
			continue
		}
		out = append(append(out, in[start:i]...), redacted...)
		i += n
		start = i
	}
	out = append(out, in[start:i]...)
	r.outBuf, r.out = out, out
	r.buf = r.buf[:copy(r.buf, in[i:])]
}

// match reports the length of the credential b starts with (the longest),
// 0 for none, or partial when b, not final, is the start of one: the rest
// may come with the next read.
func (r *redactReader) match(b []byte, final bool) (n int, partial bool) {
	for _, f := range r.forms {
		switch {
		case len(b) >= len(f):
			if n == 0 && bytes.HasPrefix(b, f) {
				n = len(f)
			}
		case !final && bytes.HasPrefix(f, b):
			return 0, true
		}
	}
	return n, false
}
