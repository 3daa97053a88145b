package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/chat/chattest"
)

const calcGo = "package calc\n\nfunc Add(a, b int) int { return a - b }\n"

// toolFixture is a workspace for the tools, and a directory outside it.
type toolFixture struct {
	dir, outside string
}

// newToolFixture builds a workspace with nested directories, text, empty,
// binary, big and long-lined files, directories walks skip, and symlinks
// into and out of it.
func newToolFixture(t *testing.T) toolFixture {
	t.Helper()
	fx := toolFixture{dir: t.TempDir(), outside: t.TempDir()}
	files := map[string]string{
		"calc/add.go":               calcGo,
		"README.md":                 "# Calc\nAdds numbers.\n",
		"notes.txt":                 "one\ntwo\nthree",
		"empty.txt":                 "",
		"crlf.txt":                  "a\r\nneedle here\r\n",
		"a.txt":                     "sorted before a/\n",
		"a/b.txt":                   "nested\n",
		"bin/logo.png":              "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		".env":                      "KEY=1\n",
		".hidden/secret.txt":        "hidden TOPSECRET\n",
		".git/config":               "[core] Add\n",
		"node_modules/x/index.js":   "function Add() {}\n",
		"vendor/y/y.go":             "func Add() {}\n",
		"big.txt":                   bigText(),
		"long.txt":                  "a" + strings.Repeat("é", 100000) + "NEEDLE" + strings.Repeat("é", 100000) + "\n",
		"deep/er/still/deepest.txt": "deep\n",
	}
	for name, content := range files {
		chattest.WriteFile(t, fx.dir, name, content)
	}
	chattest.WriteFile(t, fx.outside, "secret.txt", "outside TOPSECRET\n")
	links := map[string]string{
		"link-in":      filepath.Join(fx.dir, "calc", "add.go"),
		"link-out":     filepath.Join(fx.outside, "secret.txt"),
		"dir-link-out": fx.outside,
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(fx.dir, name)); err != nil {
			t.Skipf("symlinks: %v", err)
		}
	}
	return fx
}

// bigText is 3000 lines of 100 bytes: more than readCap.
func bigText() string {
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&b, "line %04d %s\n", i, strings.Repeat("x", 89))
	}
	return b.String()
}

// fixedClock advances by step on every reading.
func fixedClock(step time.Duration) func() time.Time {
	now := time.Date(2025, 12, 1, 15, 30, 45, 0, time.UTC)
	return func() time.Time {
		now = now.Add(step)
		return now
	}
}

// runTool runs one call over dir and returns the result's JSON without
// its callId and executionTime, or its status and error code.
func runTool(t *testing.T, dir, name, params string) (result, code string) {
	t.Helper()
	tb := newToolbox(dir)
	tb.now = fixedClock(time.Millisecond)
	res := tb.run(context.Background(), wireToolCall{CallID: "c", Name: name, Parameters: json.RawMessage(params)})
	if res.ExecutionTime != 1 {
		t.Errorf("executionTime %d, want 1 (one clock step)", res.ExecutionTime)
	}
	if res.Status != toolspec.StatusSuccess {
		if res.Error == nil || res.Result != nil {
			t.Fatalf("%s result %+v", res.Status, res)
		}
		return "", res.Status + " " + res.Error.Code
	}
	data, err := json.Marshal(res.Result)
	if err != nil {
		t.Fatal(err)
	}
	return string(data), ""
}
