package jsonlog

import (
	"context"
	"io"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// Handler is a slog.Handler writing JSON lines exactly as
// slog.NewJSONHandler(w, opts) does, without reflection for the basic
// kinds of attributes.
type Handler struct {
	// json is slog's handler, over out: the records the direct path does
	// not take, and the handlers derived from this one.
	json *slog.JSONHandler
	out  *lockedWriter
	opts slog.HandlerOptions
	// direct is false when an option changes what slog writes
	// (ReplaceAttr, AddSource): every record is then slog's.
	direct bool
}

var _ slog.Handler = (*Handler)(nil)

// NewHandler returns a Handler writing to w; opts are slog's (nil: the
// defaults).
func NewHandler(w io.Writer, opts *slog.HandlerOptions) *Handler {
	if opts == nil {
		opts = &slog.HandlerOptions{}
	}
	out := &lockedWriter{w: w}
	return &Handler{json: slog.NewJSONHandler(out, opts), out: out, opts: *opts,
		direct: opts.ReplaceAttr == nil && !opts.AddSource}
}

// lockedWriter serializes the writes of the direct path and of slog's
// handler, so that lines never interleave.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Enabled implements slog.Handler.
func (h *Handler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.json.Enabled(ctx, level)
}

// WithAttrs implements slog.Handler: the derived handler is slog's.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler { return h.json.WithAttrs(attrs) }

// WithGroup implements slog.Handler: the derived handler is slog's.
func (h *Handler) WithGroup(name string) slog.Handler { return h.json.WithGroup(name) }

// maxPooled is the largest buffer kept for the next line.
const maxPooled = 16 << 10

var bufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// Handle implements slog.Handler.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if !h.direct || !simple(r) {
		return h.json.Handle(ctx, r)
	}
	bp := bufs.Get().(*[]byte)
	b := (*bp)[:0]
	b = append(b, '{')
	if !r.Time.IsZero() {
		b = append(b, `"time":"`...)
		b = r.Time.Round(0).AppendFormat(b, time.RFC3339Nano)
		b = append(b, `",`...)
	}
	b = append(b, `"level":`...)
	b = appendString(b, r.Level.String())
	b = append(b, `,"msg":`...)
	b = appendString(b, r.Message)
	r.Attrs(func(a slog.Attr) bool {
		b = appendAttr(b, a)
		return true
	})
	b = append(b, "}\n"...)
	_, err := h.out.Write(b)
	if cap(b) <= maxPooled {
		*bp = b
		bufs.Put(bp)
	}
	return err
}

// simple reports whether every attribute of r is one appendAttr writes as
// slog does.
func simple(r slog.Record) bool {
	if y := r.Time.Year(); !r.Time.IsZero() && (y < 0 || y >= 10000) {
		return false // slog writes an error there
	}
	ok := true
	r.Attrs(func(a slog.Attr) bool {
		ok = simpleAttr(a)
		return ok
	})
	return ok
}

func simpleAttr(a slog.Attr) bool {
	switch a.Value.Kind() {
	case slog.KindString, slog.KindInt64, slog.KindUint64, slog.KindBool, slog.KindDuration:
		return true
	case slog.KindFloat64:
		f := a.Value.Float64()
		return !math.IsInf(f, 0) && !math.IsNaN(f) // slog writes an error there
	case slog.KindGroup:
		if a.Key != "" {
			return false
		}
		for _, g := range a.Value.Group() {
			if !simpleAttr(g) {
				return false
			}
		}
		return true
	}
	return false
}

// appendAttr appends ,"key":value for a simple attribute; an inline group
// (empty key) appends its attributes.
func appendAttr(b []byte, a slog.Attr) []byte {
	v := a.Value
	if v.Kind() == slog.KindGroup {
		for _, g := range v.Group() {
			b = appendAttr(b, g)
		}
		return b
	}
	b = append(b, ',')
	b = appendString(b, a.Key)
	b = append(b, ':')
	switch v.Kind() {
	case slog.KindString:
		b = appendString(b, v.String())
	case slog.KindInt64:
		b = strconv.AppendInt(b, v.Int64(), 10)
	case slog.KindUint64:
		b = strconv.AppendUint(b, v.Uint64(), 10)
	case slog.KindBool:
		b = strconv.AppendBool(b, v.Bool())
	case slog.KindDuration:
		b = strconv.AppendInt(b, int64(v.Duration()), 10)
	case slog.KindFloat64:
		b = appendFloat(b, v.Float64())
	}
	return b
}

// appendFloat appends f as encoding/json writes a float64 (which is what
// slog's handler writes): like 'f' formatting, but 'e' for very small and
// very large magnitudes, with a two-digit exponent for small ones.
// Copied from encoding/json's floatEncoder (bits 64).
func appendFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendString appends s quoted and escaped as slog's handler does
// (encoding/json's escaping without the HTML one). Copied from log/slog's
// appendEscapedJSONString.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if safe(c) {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			b = append(b, '\\')
			switch c {
			case '\\', '"':
				b = append(b, c)
			case '\n':
				b = append(b, 'n')
			case '\r':
				b = append(b, 'r')
			case '\t':
				b = append(b, 't')
			default:
				// The bytes < 0x20 but \t, \n and \r.
				b = append(b, 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		// U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR, escaped
		// for JSONP as slog does.
		if c == '\u2028' || c == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, `\u202`...)
			b = append(b, hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const hex = "0123456789abcdef"

// safe reports whether the ASCII byte c is written in a JSON string as it
// is: all but the control characters, '"' and '\\' (encoding/json's
// safeSet).
func safe(c byte) bool { return c >= 0x20 && c != '"' && c != '\\' }
