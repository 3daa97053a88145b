package chat

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/internal/confine"
	"github.com/agentgw/agentgw/internal/runes"
)

const (
	// readCap bounds read_file's content.
	readCap = 256 << 10
	// sniffLen is how much of a file is checked for a NUL (binary).
	sniffLen = 8 << 10
)

// readParams are read_file's parameters: lines count from 1, both ends
// included.
type readParams struct {
	Path      string `json:"path"`
	StartLine *int   `json:"startLine"`
	EndLine   *int   `json:"endLine"`
}

// readResult is read_file's result. EndLine is the last line content
// holds (StartLine-1 when it holds none).
type readResult struct {
	Path      string `json:"path"`
	Content   string `json:"content"`
	StartLine int    `json:"startLine"`
	EndLine   int    `json:"endLine"`
	Truncated bool   `json:"truncated"`
}

// readFile is read_file: a text file's lines startLine to endLine, at most
// readCap bytes of them (cut after the last whole line that fits).
func (r *toolRoot) readFile(ctx context.Context, raw []byte) (any, *toolspec.ResultError) {
	var p readParams
	if fail := decodeParams(raw, &p); fail != nil {
		return nil, fail
	}
	start, end, fail := p.lines()
	if fail != nil {
		return nil, fail
	}
	name, rel, fail := r.resolve(p.Path)
	if fail != nil {
		return nil, fail
	}
	info, fail := r.stat(name, rel)
	if fail != nil {
		return nil, fail
	}
	f, fail := r.openText(name, rel, info, nil)
	if fail != nil {
		return nil, fail
	}
	defer f.Close()
	res, total, err := readLines(ctx, f, start, end)
	if err != nil {
		return nil, ioFailure(displayPath(rel), err)
	}
	if start > 1 && start > total {
		return nil, invalidParams("startLine %d is past the end of %s (%d lines)", start, displayPath(rel), total)
	}
	res.Path = rel
	return res, nil
}

// lines checks the line range; end 0 means the end of the file.
func (p readParams) lines() (start, end int, fail *toolspec.ResultError) {
	if strings.TrimSpace(p.Path) == "" {
		return 0, 0, invalidParams("path is required")
	}
	start = 1
	if p.StartLine != nil {
		if *p.StartLine < 1 {
			return 0, 0, invalidParams("startLine must be at least 1, not %d", *p.StartLine)
		}
		start = *p.StartLine
	}
	if p.EndLine != nil {
		if *p.EndLine < start {
			return 0, 0, invalidParams("endLine %d is before startLine %d", *p.EndLine, start)
		}
		end = *p.EndLine
	}
	return start, end, nil
}

// textFile is an open text file, read through a buffer that has sniffed it.
type textFile struct {
	*bufio.Reader
	f *os.File
}

func (t *textFile) Close() error { return t.f.Close() }

// openText opens the file the root names name, whose stat is info, when
// it is a regular file that has no NUL in its first sniffLen bytes,
// reading it through br (reset; a new reader when nil).
func (r *toolRoot) openText(name, rel string, info fs.FileInfo, br *bufio.Reader) (*textFile, *toolspec.ResultError) {
	if !info.Mode().IsRegular() {
		what := "not a regular file"
		if info.IsDir() {
			what = "a directory (list_files lists it)"
		}
		return nil, &toolspec.ResultError{Code: codeNotFile, Message: fmt.Sprintf("%s is %s", displayPath(rel), what)}
	}
	f, err := r.root.Open(name)
	switch {
	case confine.IsEscape(err):
		return nil, outside(displayPath(rel))
	case err != nil:
		return nil, ioFailure(displayPath(rel), err)
	}
	if br == nil {
		br = bufio.NewReaderSize(f, 64<<10)
	} else {
		br.Reset(f)
	}
	t := &textFile{Reader: br, f: f}
	head, err := t.Peek(sniffLen)
	if err != nil && !errors.Is(err, io.EOF) {
		f.Close()
		return nil, ioFailure(displayPath(rel), err)
	}
	if bytes.IndexByte(head, 0) >= 0 {
		f.Close()
		return nil, &toolspec.ResultError{Code: codeBinary, Message: fmt.Sprintf("%s is a binary file", displayPath(rel))}
	}
	return t, nil
}

// readLines reads lines start to end (0: to the end) of br, at most
// readCap bytes of them; total is the number of lines read through, which
// is the file's when the range reaches its end.
func readLines(ctx context.Context, br *textFile, start, end int) (res readResult, total int, err error) {
	var b strings.Builder
	res = readResult{StartLine: start, EndLine: start - 1}
	cur, lineStart := 1, 0 // the line being read; where it begins in b
	partial := false       // whether some of line cur was read
	for {
		if err := ctx.Err(); err != nil {
			return res, 0, err
		}
		chunk, rerr := br.ReadSlice('\n')
		partial = partial || len(chunk) > 0
		if len(chunk) > 0 && cur >= start {
			if b.Len()+len(chunk) > readCap {
				res.Content, res.EndLine = cutContent(b.String(), lineStart, chunk, cur, start)
				res.Truncated = true
				return res, cur, nil
			}
			b.Write(chunk)
			res.EndLine = cur
		}
		switch {
		case rerr == nil:
			cur++
			lineStart, partial = b.Len(), false
			if end > 0 && cur > end {
				res.Content = b.String()
				return res, cur - 1, nil
			}
		case errors.Is(rerr, bufio.ErrBufferFull):
		case errors.Is(rerr, io.EOF):
			if !partial {
				cur-- // the file ended with a line ending, or is empty
			}
			res.Content = b.String()
			return res, cur, nil
		default:
			return res, 0, rerr
		}
	}
}

// cutContent ends content within readCap: after the last whole line of
// it, or, when the first line alone is too long, inside that line at a
// character boundary. It returns the content and its last line.
func cutContent(content string, lineStart int, chunk []byte, cur, start int) (string, int) {
	if cur > start {
		return content[:lineStart], cur - 1
	}
	return runes.TrimPartial(content + string(chunk[:readCap-len(content)])), cur
}
