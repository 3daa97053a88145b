package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/chat/chattest"
)

// smallFixture is a small workspace with a symlink and a file outside;
// the outside file's text must never come back.
func smallFixture(tb testing.TB) (dir, outside string) {
	dir, outside = tb.TempDir(), tb.TempDir()
	for name, content := range map[string]string{
		"calc/add.go": calcGo, "notes.txt": "one\ntwo\nthree", "bin/x.bin": "a\x00b", ".hidden/h.txt": "h\n",
	} {
		chattest.WriteFile(tb, dir, name, content)
	}
	chattest.WriteFile(tb, outside, "secret.txt", "OUTSIDE-SECRET\n")
	for name, target := range map[string]string{"out": outside, "out.txt": filepath.Join(outside, "secret.txt"), "in.go": filepath.Join(dir, "calc", "add.go")} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			tb.Skipf("symlinks: %v", err)
		}
	}
	return dir, outside
}

// FuzzResolvePath: whatever path a model sends, resolve either refuses it
// or returns a name in the root: local (no "..", not absolute), naming the
// same file through the root as at its place under the workspace.
func FuzzResolvePath(f *testing.F) {
	dir, outside := smallFixture(f)
	root, err := newToolRoot(dir)
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range []string{"", ".", "calc/add.go", "../x", "calc/../notes.txt", "/etc/passwd", "out/secret.txt", "out.txt", "in.go",
		root.dir + "/notes.txt", outside + "/secret.txt", "a\x00b", "./././calc", "calc//add.go/", `..\x`, "~/x"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		name, rel, fail := root.resolve(p)
		if fail != nil {
			if fail.Code == "" || fail.Message == "" {
				t.Fatalf("failure without code or message: %+v", fail)
			}
			return
		}
		if !filepath.IsLocal(name) && name != "." {
			t.Fatalf("%q resolved to %q, not a name inside the root", p, name)
		}
		inRoot, err := root.root.Stat(name)
		if err != nil {
			t.Fatalf("%q resolved to %q, which the root cannot stat: %v", p, name, err)
		}
		if at, err := os.Stat(filepath.Join(root.dir, name)); err != nil || !os.SameFile(at, inRoot) {
			t.Fatalf("%q resolved to %q: not the file at %s (%v)", p, name, filepath.Join(root.dir, name), err)
		}
		if strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, "..") {
			t.Fatalf("%q has the relative path %q", p, rel)
		}
	})
}

// FuzzToolCallFrames: arbitrary copilot_tool_call frames and parameters,
// answered with --allow-tools: nothing panics, every readable call gets one
// result with its callId, results encode, and nothing outside the
// workspace is read.
func FuzzToolCallFrames(f *testing.F) {
	dir, _ := smallFixture(f)
	f.Add(toolCallFrame(`{"callId":"c1","name":"read_file","parameters":{"path":"out.txt"}}`))
	f.Add(toolCallFrame(`{"callId":"c1","name":"read_file","parameters":{"path":"notes.txt","startLine":2,"endLine":9}}`) +
		toolCallFrame(`{"callId":"c2","name":"list_files","parameters":{"pattern":"*.go","maxResults":1}}`))
	f.Add(toolCallFrame(`{"callId":"c1","name":"search_text","parameters":{"query":"SECRET","regex":true,"path":"out"}}`))
	f.Add(toolCallFrame(`{"callId":"c1","name":"search_text","parameters":{"query":"[a-z]+\\(","regex":true}}`) + toolCallFrame(`{"callId":7}`))
	f.Add(toolCallFrame(`{"callId":"c1","name":"nope","parameters":[1]}`) + toolCallFrame(`{"callId":"c2","name":"list_files","parameters":null}`))
	f.Fuzz(func(t *testing.T, stream string) {
		r := &streamRenderer{out: io.Discard}
		_ = r.render(strings.NewReader(stream))
		c := &chatClient{opts: chatOptions{dir: dir, allowTools: true}, out: io.Discard}
		results, err := c.answerTools(context.Background(), r.calls)
		if err != nil || len(results) != len(r.calls) {
			t.Fatalf("%d results for %d calls, %v", len(results), len(r.calls), err)
		}
		for i, res := range results {
			if res.CallID != r.calls[i].CallID || (res.Status != toolspec.StatusSuccess) != (res.Error != nil) {
				t.Fatalf("result %+v for call %+v", res, r.calls[i])
			}
			data, err := json.Marshal(res)
			if err != nil {
				t.Fatalf("encoding %+v: %v", res, err)
			}
			if strings.Contains(string(data), "OUTSIDE-SECRET") {
				t.Fatalf("a result read outside the workspace: %s", data)
			}
		}
	})
}

// benchWorkspace is 100 Go-like files of 200 lines each.
func benchWorkspace(b *testing.B) string {
	dir := b.TempDir()
	var src strings.Builder
	for i := range 200 {
		fmt.Fprintf(&src, "func f%03d(a, b int) int { return a*%d + b } // some comment text\n", i, i)
	}
	for i := range 100 {
		chattest.WriteFile(b, dir, fmt.Sprintf("pkg%02d/file%03d.go", i%10, i), src.String())
	}
	return dir
}

func BenchmarkSearchText(b *testing.B) {
	tb := newToolbox(benchWorkspace(b))
	for _, bc := range []struct{ name, params string }{
		{"literal", `{"query":"return a*199 ","maxResults":1000}`},
		{"regex", `{"query":"a\\*19[0-9] \\+","regex":true,"maxResults":1000}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res := tb.run(context.Background(), wireToolCall{CallID: "c", Name: "search_text", Parameters: json.RawMessage(bc.params)})
				if res.Status != toolspec.StatusSuccess {
					b.Fatalf("%+v", res)
				}
			}
		})
	}
}

func BenchmarkReadFile(b *testing.B) {
	dir := b.TempDir()
	chattest.WriteFile(b, dir, "big.txt", bigText())
	tb := newToolbox(dir)
	b.ReportAllocs()
	for b.Loop() {
		res := tb.run(context.Background(), wireToolCall{CallID: "c", Name: "read_file", Parameters: json.RawMessage(`{"path":"big.txt","startLine":100}`)})
		if res.Status != toolspec.StatusSuccess {
			b.Fatalf("%+v", res)
		}
	}
}
