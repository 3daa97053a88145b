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
		rd.longest = max(rd.longest, len(f))
	}
	return rd
}

// redactReader is the reader of NewReader.
type redactReader struct {
	src   io.Reader
	forms [][]byte // the longest first
	// longest is the length of the longest form.
	longest int
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
// buf only a possible credential's start at its end (none when final). It
// replaces as Redact does: the leftmost credential, the longest of those
// starting there; bytes.Index finds them, so text without a credential
// costs a few vectorised searches.
func (r *redactReader) scan(final bool) {
	out, in := r.outBuf[:0], r.buf
	start := 0
	for {
		end := len(in)
		if !final {
			end = r.partialFrom(in, start)
		}
		i, n := r.leftmost(in[start:])
		if i < 0 || start+i >= end {
			out = append(out, in[start:end]...)
			start = end
			break
		}
		out = append(append(out, in[start:start+i]...), redacted...)
		start += i + n
	}
	r.outBuf, r.out = out, out
	r.buf = r.buf[:copy(r.buf, in[start:])]
}

// leftmost returns the index in b of the leftmost credential and its
// length, the longest of those starting there; -1 for none.
func (r *redactReader) leftmost(b []byte) (at, n int) {
	at = -1
	for _, f := range r.forms {
		end := len(b)
		if at >= 0 {
			end = min(len(b), at+len(f)) // only one starting at or before at
		}
		if i := bytes.Index(b[:end], f); i >= 0 && (at < 0 || i < at) {
			at, n = i, len(f)
		}
	}
	return at, n
}

// partialFrom returns the first index p >= start of in whose rest is the
// start of a credential, and may be one once more is read; len(in) for
// none.
func (r *redactReader) partialFrom(in []byte, start int) int {
	for p := max(start, len(in)-r.longest+1); p < len(in); p++ {
		for _, f := range r.forms {
			if len(f) > len(in)-p && bytes.HasPrefix(f, in[p:]) {
				return p
			}
		}
	}
	return len(in)
}
