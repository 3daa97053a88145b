package agenttest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/agentgw/agentgw/agent"
)

// golden compares the request body sent upstream, indented, with the file
// g names (relative to the test file), or writes it there with Update.
func (c *checker) golden(g *agent.Text, what string, body []byte) {
	path := filepath.Join(filepath.Dir(c.file.Path), filepath.FromSlash(g.Src))
	got := goldenText(body)
	if c.update {
		if err := c.write(path, got); err != nil {
			c.fail(g.Pos, fmt.Sprintf("%s.golden: %v", what, err))
			return
		}
		c.updated++
		return
	}
	want, err := c.read(path)
	if errors.Is(err, fs.ErrNotExist) {
		c.fail(g.Pos, fmt.Sprintf("%s.golden: %s does not exist; agentgw test --update writes it", what, path))
		return
	}
	if err != nil {
		c.fail(g.Pos, fmt.Sprintf("%s.golden: %v", what, err))
		return
	}
	if bytes.Equal(want, got) {
		return
	}
	line, w, h := firstDiff(string(want), string(got))
	c.differ(g.Pos, fmt.Sprintf("%s.golden: the request differs from %s at its line %d (agentgw test --update rewrites it)", what, path, line), quote(w), quote(h))
}

// goldenText is a request body as golden files hold it: indented JSON,
// keys in the order sent, and a final newline.
func goldenText(body []byte) []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, body, "", "  "); err != nil {
		return append(append([]byte(nil), body...), '\n')
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// firstDiff is the first line (from 1) where a and b differ, with the
// line of each ("" past the end).
func firstDiff(a, b string) (int, string, string) {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y || i >= len(al) || i >= len(bl) {
			return i + 1, x, y
		}
	}
	return 0, "", ""
}
