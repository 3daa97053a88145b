package chunk

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentgw/agentgw/internal/runes"
)

// Defaults for the zero fields of Options.
const (
	DefaultWindowLines  = 40
	DefaultOverlap      = 5
	DefaultMaxLines     = 200
	DefaultMaxBytes     = 16 << 10
	DefaultMaxFileBytes = 1 << 20
)

// Errors Split returns, wrapped with the file's name; test them with
// errors.Is.
var (
	// ErrBinary: the file holds a NUL byte or is not valid UTF-8. It is
	// skipped: no chunks.
	ErrBinary = errors.New("binary file (NUL byte or invalid UTF-8)")
	// ErrTruncated: the file is longer than Options.MaxFileBytes. Split
	// still returns the chunks of its head (cut at the last whole line),
	// so the caller logs the error and keeps them.
	ErrTruncated = errors.New("file truncated")
)

// Options bound how Split cuts a file. Zero fields take the defaults.
type Options struct {
	// WindowLines is the length of a line window, for files no language
	// splitter handles (default 40).
	WindowLines int
	// Overlap is how many lines consecutive windows share (default 5;
	// negative for none).
	Overlap int
	// MaxLines bounds a chunk's lines (default 200): a longer declaration
	// or section is cut into pieces that keep its Symbol.
	MaxLines int
	// MaxBytes bounds a chunk's Text in bytes (default 16 KiB). A single
	// line longer than that is cut, at a character boundary, into pieces
	// that all carry its line number.
	MaxBytes int
	// MaxFileBytes is how much of a file is chunked (default 1 MiB).
	MaxFileBytes int
}

// withDefaults fills the zero fields and clamps the others to sane values.
func (o Options) withDefaults() Options {
	if o.WindowLines <= 0 {
		o.WindowLines = DefaultWindowLines
	}
	if o.Overlap == 0 {
		o.Overlap = DefaultOverlap
	}
	if o.Overlap < 0 {
		o.Overlap = 0
	}
	if o.MaxLines <= 0 {
		o.MaxLines = DefaultMaxLines
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxBytes < utf8.UTFMax {
		o.MaxBytes = utf8.UTFMax
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	if o.WindowLines > o.MaxLines {
		o.WindowLines = o.MaxLines
	}
	if o.Overlap >= o.WindowLines {
		o.Overlap = o.WindowLines - 1
	}
	return o
}

// Split cuts a file into chunks, choosing how by the file's extension:
// Go, Python, JavaScript/TypeScript and Java at top-level declarations,
// Markdown at headings, anything else (and a file its language's splitter
// cannot follow) in line windows. fileName is the file's slash-separated
// path within source; both are copied into every chunk.
//
// Lines count from 1 and Text holds whole lines joined by "\n" (CRLF is
// read as LF, a leading byte-order mark is dropped). The chunks of a
// structured file do not overlap and cover every line that is not blank;
// blank lines at a chunk's edges (such as those between declarations)
// belong to no chunk. Windows overlap by Options.Overlap lines. Every chunk
// is within Options.MaxLines and Options.MaxBytes. The output depends only
// on the input.
//
// An empty file gives no chunks and no error. A binary file gives an error
// wrapping ErrBinary and no chunks; a file over Options.MaxFileBytes gives
// the chunks of its head and an error wrapping ErrTruncated.
func Split(fileName, source string, content []byte, opts Options) ([]Chunk, error) {
	o := opts.withDefaults()
	var warn error
	if len(content) > o.MaxFileBytes {
		head := content[:o.MaxFileBytes]
		if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
			head = head[:i+1]
		} else {
			head = runes.TrimPartial(head)
		}
		warn = fmt.Errorf("chunking %s: %w: kept the first %d of %d bytes", fileName, ErrTruncated, len(head), len(content))
		content = head
	}
	if bytes.IndexByte(content, 0) >= 0 || !utf8.Valid(content) {
		return nil, fmt.Errorf("chunking %s: %w", fileName, ErrBinary)
	}
	f := newFile(content, o)
	lang := languageOf(fileName)
	var spans []span
	ok := false
	if len(f.lines) > 0 {
		switch lang {
		case langGo:
			spans, ok = splitGo(f)
		case langPython:
			spans, ok = splitPython(f)
		case langJS:
			spans, ok = splitJS(f)
		case langJava:
			spans, ok = splitJava(f)
		case langMarkdown:
			spans, ok = splitMarkdown(f), true
		}
	}
	if ok {
		spans = f.assemble(spans)
	} else {
		spans = f.windows()
	}
	typ := TypeOf(fileName)
	var out []Chunk
	for _, s := range spans {
		for _, p := range f.bound(s) {
			out = append(out, Chunk{
				FileName:   fileName,
				Source:     source,
				SourceType: typ,
				StartLine:  p.start,
				EndLine:    p.end,
				Symbol:     p.symbol,
				Text:       p.text,
			})
		}
	}
	return out, warn
}

// span is a run of lines, 1-based and inclusive, that a splitter found.
type span struct {
	start, end int
	symbol     string
}

// piece is a span within the bounds, with its text.
type piece struct {
	span
	text string
}

// file is a file being split: its text and lines, and what the splitters
// tell the assembly about them.
type file struct {
	opts  Options
	text  string
	lines []string // without their "\n"
	// commentOnly marks the lines (0-based) that hold only comments, as a
	// splitter saw them; nil when it does not tell.
	commentOnly []bool
	// noBreak marks the lines (0-based) a bounded piece should rather not
	// start at (inside a fenced code block).
	noBreak []bool
}

func newFile(content []byte, o Options) *file {
	text := string(content)
	text = strings.TrimPrefix(text, "\uFEFF")
	if strings.Contains(text, "\r\n") {
		text = strings.ReplaceAll(text, "\r\n", "\n")
	}
	f := &file{opts: o, text: text}
	if text != "" {
		f.lines = strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	}
	return f
}

// blank reports whether line n (1-based) holds only white space.
func (f *file) blank(n int) bool {
	return strings.TrimSpace(f.lines[n-1]) == ""
}

// comment reports whether line n (1-based) holds only a comment.
func (f *file) comment(n int) bool {
	return f.commentOnly != nil && f.commentOnly[n-1]
}

// trim drops the blank lines at the edges of s; ok is false when nothing
// is left.
func (f *file) trim(s span) (span, bool) {
	for s.start <= s.end && f.blank(s.start) {
		s.start++
	}
	for s.end >= s.start && f.blank(s.end) {
		s.end--
	}
	return s, s.start <= s.end
}

// assemble turns a splitter's declarations (sorted by start) into spans
// covering every non-blank line: overlapping declarations merge; the
// comment lines just above a declaration join it, and so does a gap that
// holds only comments; any other gap becomes a span of its own with no
// symbol.
func (f *file) assemble(decls []span) []span {
	var merged []span
	for _, d := range decls {
		d.start = max(d.start, 1)
		d.end = min(d.end, len(f.lines))
		if d.start > d.end {
			continue
		}
		if n := len(merged); n > 0 && d.start <= merged[n-1].end {
			last := &merged[n-1]
			last.end = max(last.end, d.end)
			last.symbol = joinSymbols(last.symbol, d.symbol)
			continue
		}
		merged = append(merged, d)
	}
	var out []span
	prev := 0
	for _, d := range merged {
		if g, ok := f.trim(span{start: prev + 1, end: d.start - 1}); ok {
			if f.allComments(g) {
				d.start = g.start
			} else {
				// The comments right above the declaration are its own.
				for g.end >= g.start && g.end == d.start-1 && f.comment(g.end) {
					d.start = g.end
					g.end--
				}
				if g, ok := f.trim(g); ok {
					out = append(out, g)
				}
			}
		}
		if d, ok := f.trim(d); ok {
			out = append(out, d)
		}
		prev = d.end
	}
	if g, ok := f.trim(span{start: prev + 1, end: len(f.lines)}); ok {
		out = append(out, g)
	}
	return out
}

// allComments reports whether every non-blank line of s is a comment.
func (f *file) allComments(s span) bool {
	for n := s.start; n <= s.end; n++ {
		if !f.blank(n) && !f.comment(n) {
			return false
		}
	}
	return true
}

// windows cuts the whole file into overlapping line windows.
func (f *file) windows() []span {
	var out []span
	w, step := f.opts.WindowLines, f.opts.WindowLines-f.opts.Overlap
	for start := 1; start <= len(f.lines); start += step {
		end := min(start+w-1, len(f.lines))
		if s, ok := f.trim(span{start: start, end: end}); ok {
			out = append(out, s)
		}
		if end == len(f.lines) {
			break
		}
	}
	return out
}

// bound cuts s into pieces within MaxLines and MaxBytes, each keeping its
// symbol. It prefers to cut at a blank line in the second half of a piece,
// then at any line not marked noBreak; a single line over MaxBytes is cut
// at character boundaries.
func (f *file) bound(s span) []piece {
	var out []piece
	maxLines, maxBytes := f.opts.MaxLines, f.opts.MaxBytes
	for start := s.start; start <= s.end; {
		if len(f.lines[start-1]) > maxBytes {
			out = append(out, f.cutLine(start, s.symbol)...)
			start++
			continue
		}
		// The longest run from start within both bounds.
		end, size := start, len(f.lines[start-1])
		for end < s.end && end-start+1 < maxLines {
			next := size + 1 + len(f.lines[end])
			if next > maxBytes {
				break
			}
			end, size = end+1, next
		}
		if end < s.end {
			end = f.breakPoint(start, end)
		}
		if p, ok := f.trim(span{start: start, end: end, symbol: s.symbol}); ok {
			out = append(out, piece{span: p, text: strings.Join(f.lines[p.start-1:p.end], "\n")})
		}
		start = end + 1
	}
	return out
}

// breakPoint chooses where a piece from start that may run to end stops:
// before a blank line or, failing that, before a line that may start a
// piece, as late as possible but past the middle; else at end.
func (f *file) breakPoint(start, end int) int {
	half := start + (end-start)/2
	for n := end + 1; n > half; n-- {
		if f.blank(n) && !f.isNoBreak(n) {
			return n - 1
		}
	}
	for n := end + 1; n > half; n-- {
		if !f.isNoBreak(n) {
			return n - 1
		}
	}
	return end
}

func (f *file) isNoBreak(n int) bool {
	return f.noBreak != nil && f.noBreak[n-1]
}

// cutLine cuts line n, longer than MaxBytes, into pieces at character
// boundaries.
func (f *file) cutLine(n int, symbol string) []piece {
	var out []piece
	line := f.lines[n-1]
	for line != "" {
		k := min(len(line), f.opts.MaxBytes)
		part := runes.TrimPartial(line[:k])
		if part == "" { // cannot happen with valid UTF-8 and MaxBytes >= UTFMax
			part = line[:k]
		}
		out = append(out, piece{span: span{start: n, end: n, symbol: symbol}, text: part})
		line = line[len(part):]
	}
	return out
}

// joinSymbols names a chunk that declares several things.
func joinSymbols(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "" || a == b:
		return a
	}
	return a + ", " + b
}

// maxSymbolNames bounds how many names a group's symbol lists.
const maxSymbolNames = 8

// listSymbol names a group of declarations: the first few names, then
// "…".
func listSymbol(names []string) string {
	if len(names) > maxSymbolNames {
		return strings.Join(names[:maxSymbolNames], ", ") + ", …"
	}
	return strings.Join(names, ", ")
}
