package collab

import (
	"context"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// collect feeds parts to a collector and returns the progress lines it
// handed over, then the rest of the last line and the whole text.
func collect(t testing.TB, parts []string) (lines []string, rest, text string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := newCollector(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, p := range parts {
			if err := c.Text(p); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for {
		select {
		case l := <-c.lines:
			lines = append(lines, l)
			continue
		case <-done:
		}
		break
	}
	text, rest, _, _ = c.result()
	return lines, rest, text
}

// TestCollectorLines: progress is one line per line of text, blank lines
// and trailing spaces dropped, a long line cut at a rune boundary, the
// last line's rest kept for the end.
func TestCollectorLines(t *testing.T) {
	long := strings.Repeat("é", 200) // 400 bytes
	for _, tt := range []struct {
		name  string
		parts []string
		lines []string
		rest  string
	}{
		{"tokens", []string{"Hel", "lo\nwor", "ld\n"}, []string{"Hello", "world"}, ""},
		{"rest", []string{"a\nb"}, []string{"a"}, "b"},
		{"blank", []string{"a\n\n  \n\r\nb  \r\n"}, []string{"a", "b"}, ""},
		{"none", []string{"", "   "}, nil, ""},
		{"long", []string{long, "\n"}, []string{strings.Repeat("é", 120), strings.Repeat("é", 80)}, ""},
		{"long-rest", []string{long}, []string{strings.Repeat("é", 120)}, strings.Repeat("é", 80)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lines, rest, text := collect(t, tt.parts)
			if !slices.Equal(lines, tt.lines) || rest != tt.rest {
				t.Errorf("lines %q rest %q, want %q %q", lines, rest, tt.lines, tt.rest)
			}
			if text != strings.Join(tt.parts, "") {
				t.Errorf("text %q", text)
			}
		})
	}
}

// TestCollectorClosed: after the ask ended, writes fail, so the asked run
// stops at its next one.
func TestCollectorClosed(t *testing.T) {
	c := newCollector(t.Context())
	c.close()
	if err := c.Text("late"); err == nil {
		t.Error("a write after close was taken")
	}
	if err := c.Action(nil); err == nil {
		t.Error("an action after close was taken")
	}
}

// FuzzCollector: whatever text a remote agent streams, in whatever parts,
// the collector keeps all of it and hands over lines no longer than the
// limit, valid UTF-8 when the text is, none blank or holding a line break.
func FuzzCollector(f *testing.F) {
	f.Add("hello\nworld", 3)
	f.Add(strings.Repeat("x", 500)+"\n\n"+strings.Repeat("語", 100), 7)
	f.Add("\xff\xfe\x80\x80\x80\n", 1)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n <= 0 || n > 64 {
			n = 5
		}
		if len(s) > 4096 {
			s = s[:4096] // longer inputs find nothing new and slow every run
		}
		var parts []string
		for p := s; p != ""; {
			k := min(n, len(p))
			parts, p = append(parts, p[:k]), p[k:]
		}
		lines, rest, text := collect(t, parts)
		if text != s {
			t.Fatalf("text %q, want %q", text, s)
		}
		for _, l := range append(lines, rest) {
			if len(l) > maxProgressLine || strings.ContainsRune(l, '\n') {
				t.Fatalf("line %q", l)
			}
			if utf8.ValidString(s) && !utf8.ValidString(l) {
				t.Fatalf("line %q is not UTF-8", l)
			}
		}
		for _, l := range lines {
			if strings.TrimSpace(l) == "" {
				t.Fatalf("blank line %q", l)
			}
		}
	})
}
