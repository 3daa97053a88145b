package jsonlog

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// records are the records both handlers write in the tests.
func records() []slog.Record {
	at := time.Date(2026, 11, 29, 11, 20, 0, 123456789, time.UTC)
	var out []slog.Record
	add := func(t time.Time, level slog.Level, msg string, attrs ...slog.Attr) {
		r := slog.NewRecord(t, level, msg, 0)
		r.AddAttrs(attrs...)
		out = append(out, r)
	}
	add(at, slog.LevelInfo, "request",
		slog.String("request_id", "req-1"), slog.String("method", "POST"), slog.String("path", "/agents/a?b=<c>&d"),
		slog.Int("status", 200), slog.Int64("bytes", 4096), slog.Float64("ttfb_ms", 2.5), slog.Float64("duration_ms", 1234567.891),
		slog.String("remote", "192.0.2.1"), slog.Bool("tokens_estimated", true))
	add(time.Time{}, slog.LevelWarn+2, "zero time \u2028 \u2029 \x00 \x1f \x7f \"q\" \\ \t\r\n")
	add(at.In(time.FixedZone("X", 3600)), slog.Level(-8), "", slog.Attr{Value: slog.GroupValue(slog.Int("a", -1), slog.Attr{Value: slog.GroupValue(slog.Uint64("u", math.MaxUint64))})},
		slog.Attr{Key: "", Value: slog.GroupValue()}, slog.Duration("d", 1500*time.Millisecond), slog.String("", "empty key"))
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e-6, 9.99e-7, 1e-7, 123e-9, 5e-324, 1e20, 1e21, 1.5e300, -2.5e-8, 0.000001234, 123456789.125, math.MaxFloat64}
	for _, f := range floats {
		add(at, slog.LevelError, "float", slog.Float64("f", f))
	}
	// What slog's handler writes its own way: the direct path hands them on.
	add(at, slog.LevelInfo, "others", slog.Any("err", errors.New("boom")), slog.Time("t", at), slog.Float64("nan", math.NaN()),
		slog.Group("g", slog.Int("x", 1)), slog.Any("m", map[string]int{"a": 1}))
	add(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), slog.LevelInfo, "far")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		n := rng.IntN(40)
		p := make([]byte, n)
		for i := range p {
			switch rng.IntN(4) {
			case 0:
				p[i] = byte(rng.IntN(256))
			case 1:
				p[i] = byte(rng.IntN(0x20))
			default:
				p[i] = byte(0x20 + rng.IntN(0x5f))
			}
		}
		s := string(p)
		if rng.IntN(5) == 0 {
			s += "é\u2028日本"
		}
		add(at, slog.LevelInfo, s, slog.String(s, s), slog.Float64("f", rng.NormFloat64()*math.Pow(10, float64(rng.IntN(40)-20))),
			slog.Int("i", rng.Int()-rng.Int()))
	}
	return out
}

// TestSameAsSlog: every record is written byte for byte as slog's JSON
// handler writes it, with and without options.
func TestSameAsSlog(t *testing.T) {
	ctx := context.Background()
	for _, opts := range []*slog.HandlerOptions{nil, {Level: slog.LevelDebug}, {AddSource: true},
		{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr { a.Key += "_"; return a }}} {
		for _, r := range records() {
			var got, want bytes.Buffer
			if err := NewHandler(&got, opts).Handle(ctx, r.Clone()); err != nil {
				t.Fatal(err)
			}
			if err := slog.NewJSONHandler(&want, opts).Handle(ctx, r.Clone()); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("got  %s\nwant %s", got.Bytes(), want.Bytes())
			}
		}
	}
}

// TestDerived: WithAttrs and WithGroup are slog's, writing to the same
// place; Enabled is the level's.
func TestDerived(t *testing.T) {
	var got, want bytes.Buffer
	l := slog.New(NewHandler(&got, &slog.HandlerOptions{Level: slog.LevelWarn}))
	w := slog.New(slog.NewJSONHandler(&want, &slog.HandlerOptions{Level: slog.LevelWarn}))
	for _, l := range []*slog.Logger{l, w} {
		l.Info("not written")
		l.With("a", 1).WithGroup("g").Warn("derived", "b", 2.5)
	}
	if got.Len() == 0 || !bytes.Equal(dropTimes(got.Bytes()), dropTimes(want.Bytes())) {
		t.Errorf("got  %s\nwant %s", got.Bytes(), want.Bytes())
	}
}

// dropTimes cuts the time member of a line.
func dropTimes(b []byte) []byte {
	if i, j := bytes.Index(b, []byte(`"time":"`)), bytes.Index(b, []byte(`"level"`)); i >= 0 && j > i {
		return append(b[:i:i], b[j:]...)
	}
	return b
}

// BenchmarkAccessLine is the access log's record through slog's JSON
// handler and through this one.
func BenchmarkAccessLine(b *testing.B) {
	attrs := []slog.Attr{slog.String("request_id", "0123456789abcdef0123456789abcdef"), slog.String("method", "POST"),
		slog.String("path", "/agents/bench"), slog.Int("status", 200), slog.Int64("bytes", 4096),
		slog.Float64("ttfb_ms", 2.345), slog.Float64("duration_ms", 181.25), slog.String("remote", "192.0.2.1"),
		slog.String("agent", "bench"), slog.String("command", "default"), slog.String("outcome", "ok"),
		slog.String("model", "gpt-4o-mini"), slog.Int("tokens_in", 900), slog.Int("tokens_out", 20), slog.Bool("tokens_estimated", false)}
	for _, h := range []struct {
		name string
		h    slog.Handler
	}{{"slog", slog.NewJSONHandler(io.Discard, nil)}, {"jsonlog", NewHandler(io.Discard, nil)}} {
		b.Run(h.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
				r.AddAttrs(slog.Attr{Value: slog.GroupValue(attrs...)})
				_ = h.h.Handle(context.Background(), r)
			}
		})
	}
}
