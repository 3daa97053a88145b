package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// readmeCall is one curl command of a README recipe and the output its
// comment line shows, cut into the pieces between "…".
type readmeCall struct {
	line, method, path, file string
	want                     []string
	code                     int // the status it got
}

// readmeCurls reads the first ```sh block after marker in docs/multi-agent.md: each
// curl line and the "# " line under it.
func readmeCurls(t *testing.T, marker string) []readmeCall {
	t.Helper()
	_, section, ok := strings.Cut(readDoc(t, "docs/multi-agent.md"), marker)
	if !ok {
		t.Fatalf("docs/multi-agent.md has no %q", marker)
	}
	_, block, _ := strings.Cut(section, "```sh\n")
	block, _, _ = strings.Cut(block, "```")
	var calls []readmeCall
	for line := range strings.Lines(block) {
		line = strings.TrimSpace(line)
		if out, ok := strings.CutPrefix(line, "# "); ok {
			if len(calls) == 0 {
				t.Fatalf("README: output %q before any command", line)
			}
			calls[len(calls)-1].want = strings.Split(out, "…")
			continue
		}
		args := strings.Fields(line)
		if len(args) == 0 || args[0] != "curl" {
			t.Fatalf("README: not a curl command: %q", line)
		}
		c := readmeCall{line: line, method: http.MethodGet}
		for i, a := range args {
			switch {
			case a == "-X" && i+1 < len(args):
				c.method = args[i+1]
			case strings.HasPrefix(a, "localhost:18080/"):
				c.path = strings.TrimPrefix(a, "localhost:18080")
			case strings.HasPrefix(a, "@"):
				c.file = strings.TrimPrefix(a, "@")
			}
		}
		if c.path == "" {
			t.Fatalf("README: no localhost:18080 URL in %q", line)
		}
		calls = append(calls, c)
	}
	return calls
}

// matchesInOrder reports whether every piece is in s, each after the one
// before it.
func matchesInOrder(s string, pieces []string) bool {
	for _, p := range pieces {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return true
}

// TestHandoffREADMEOffline runs the "Try it offline" hand-off
// recipe of docs/multi-agent.md against the gateway as `serve` starts with no flags (the embedded
// agents, the built-in model, the SQLite store): it posts the sample file
// the README names, as it is, and each answer must be what the README
// shows under its command. GETs are polled until then, as the queue runs
// the message in the background.
func TestHandoffREADMEOffline(t *testing.T) {
	calls := readmeCurls(t, "\n**Try it offline.**")
	if len(calls) < 3 {
		t.Fatalf("README: %d curl commands, want the POST, GET /handoffs/{id} and GET /tasks/{id}", len(calls))
	}
	base := startGateway(t, testConfig(t, ""), nil)
	posted := map[string]bool{}
	for _, c := range calls {
		if len(c.want) == 0 {
			t.Fatalf("README: no output shown under %q", c.line)
		}
		body := ""
		if c.file != "" {
			data, err := os.ReadFile(filepath.Join("..", "..", c.file))
			if err != nil {
				t.Fatalf("README names %s: %v", c.file, err)
			}
			// curl -d @FILE sends the file without its line breaks.
			body = strings.NewReplacer("\r", "", "\n", "").Replace(string(data))
		}
		deadline := time.Now().Add(20 * time.Second)
		for {
			code, got := rawCall(t, c.method, base+c.path, body)
			c.code = code
			if code/100 == 2 && matchesInOrder(got, c.want) {
				break
			}
			if c.method != http.MethodGet || time.Now().After(deadline) {
				t.Fatalf("%s\n= %d %s\nwant the README's %q", c.line, code, got, strings.Join(c.want, "…"))
			}
			time.Sleep(50 * time.Millisecond)
		}
		if c.method == http.MethodPost {
			// The prose: 202 queued the first time, 200 for the same file again.
			want := map[bool]int{false: http.StatusAccepted, true: http.StatusOK}[posted[c.file]]
			if c.code != want {
				t.Errorf("%s = %d, want %d", c.line, c.code, want)
			}
			posted[c.file] = true
		}
	}
}

// rawCall sends a request and returns the status and the body as text.
func rawCall(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(newRequest(t, method, url, body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(data)
}
