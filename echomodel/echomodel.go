// Package echomodel is a model platform inside the binary (upstream.url:
// builtin:echo): an OpenAI-compatible /chat/completions that answers,
// token by token at a steady pace, with what it received — the model
// name, each message's role and first line, the tools offered — so that a
// gateway with no model configured still streams a real answer through
// its whole path. It can be scripted for demos and tests: a user message
// "call TOOL {json}" makes it call that tool (when offered), and a tool
// result is answered with what the tool said.
package echomodel

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// URL is the upstream.url that selects the built-in model.
const URL = "builtin:echo"

// Request is what a model reads of a chat completion request: its model,
// whether it streams, each message's role and content (a string or parts),
// and the names of the tools offered. Fakes of the upstream (agent tests)
// read requests with it too.
type Request struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

// Handler serves /chat/completions; pace is the wait between two tokens.
func Handler(pace time.Duration) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /chat/completions", func(w http.ResponseWriter, r *http.Request) {
		var req Request
		if err := json.NewDecoder(io.LimitReader(r.Body, 16<<20)).Decode(&req); err != nil {
			http.Error(w, `{"error":{"message":"the request is not JSON"}}`, http.StatusBadRequest)
			return
		}
		text, call := answer(&req)
		if !req.Stream {
			writeCompletion(w, &req, text, call)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		id := "chatcmpl-echo"
		if call != nil {
			chunk(w, id, req.Model, map[string]any{"role": "assistant", "tool_calls": []any{call}}, "")
			chunk(w, id, req.Model, map[string]any{}, "tool_calls")
		} else {
			for i, tok := range tokens(text) {
				if i > 0 && pace > 0 {
					select {
					case <-r.Context().Done():
						return
					case <-time.After(pace):
					}
				}
				delta := map[string]any{"content": tok}
				if i == 0 {
					delta["role"] = "assistant"
				}
				chunk(w, id, req.Model, delta, "")
			}
			chunk(w, id, req.Model, map[string]any{}, "stop")
		}
		_, _ = io.WriteString(w, "data: [DONE]\n\n")
	})
	return mux
}

// callPattern is a user's script: "call NAME {json}".
var callPattern = regexp.MustCompile(`(?m)^call ([A-Za-z0-9_.-]+)\s*(\{.*\})?\s*$`)

// answer is the model's answer: a tool call the last user message asks
// for, or the text saying what it received.
func answer(req *Request) (string, map[string]any) {
	last := ""
	if n := len(req.Messages); n > 0 {
		m := req.Messages[n-1]
		if m.Role == "tool" {
			return "The tool said: " + firstLine(text(m.Content), 300), nil
		}
		if m.Role == "user" {
			last = text(m.Content)
		}
	}
	if m := callPattern.FindStringSubmatch(last); m != nil {
		for _, t := range req.Tools {
			if t.Function.Name == m[1] {
				args := m[2]
				if args == "" {
					args = "{}"
				}
				return "", map[string]any{"index": 0, "id": "call_echo_1", "type": "function",
					"function": map[string]any{"name": m[1], "arguments": args}}
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "echo model (%s) got %d messages:\n", firstNonEmpty(req.Model, "no model named"), len(req.Messages))
	for _, m := range req.Messages {
		fmt.Fprintf(&b, "- %s: %s\n", m.Role, strings.Join(firstLines(text(m.Content), shownLines, 80), "\n  "))
	}
	if len(req.Tools) > 0 {
		names := make([]string, len(req.Tools))
		for i, t := range req.Tools {
			names[i] = t.Function.Name
		}
		fmt.Fprintf(&b, "Tools offered: %s.\n", strings.Join(names, ", "))
	}
	return b.String(), nil
}

// text is a message's content as text: a string, or the text parts.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct{ Text string }
	_ = json.Unmarshal(raw, &parts)
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		out = append(out, p.Text)
	}
	return strings.Join(out, " ")
}

// shownLines is how many lines of each message the answer shows.
const shownLines = 3

// firstLine is s's first non-empty line, at most n bytes (at a rune).
func firstLine(s string, n int) string {
	return firstLines(s, 1, n)[0]
}

// firstLines are s's first max non-empty lines, each at most n bytes (cut
// at a rune), the last saying how many more there are; "(empty)" for a
// blank s.
func firstLines(s string, max, n int) []string {
	var out []string
	more := 0
	for l := range strings.SplitSeq(s, "\n") {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		if len(out) == max {
			more++
			continue
		}
		out = append(out, clip(l, n))
	}
	if len(out) == 0 {
		return []string{"(empty)"}
	}
	if more > 0 {
		out[len(out)-1] += fmt.Sprintf(" (+%d more lines)", more)
	}
	return out
}

// clip cuts l to at most n bytes, at a rune, marking the cut.
func clip(l string, n int) string {
	if len(l) <= n {
		return l
	}
	cut := n
	for cut > 0 && !utf8Start(l[cut]) {
		cut--
	}
	return l[:cut] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// tokens splits text into the pieces streamed: words with the spaces and
// line breaks after them (leading ones go with the first word).
func tokens(s string) []string {
	var out []string
	start, word := 0, false
	for i := 0; i < len(s); i++ {
		switch {
		case !isSpace(s[i]) && word && isSpace(s[i-1]):
			out = append(out, s[start:i])
			start = i
		case !isSpace(s[i]):
			word = true
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' }

func chunk(w http.ResponseWriter, id, model string, delta map[string]any, finish string) {
	choice := map[string]any{"index": 0, "delta": delta, "finish_reason": nil}
	if finish != "" {
		choice["finish_reason"] = finish
	}
	data, _ := json.Marshal(map[string]any{"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(),
		"model": firstNonEmpty(model, "echo"), "choices": []any{choice}})
	fmt.Fprintf(w, "data: %s\n\n", data)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func writeCompletion(w http.ResponseWriter, req *Request, text string, call map[string]any) {
	msg := map[string]any{"role": "assistant", "content": text}
	finish := "stop"
	if call != nil {
		delete(call, "index")
		msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{call}}
		finish = "tool_calls"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-echo", "object": "chat.completion", "created": time.Now().Unix(),
		"model": firstNonEmpty(req.Model, "echo"), "choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage": map[string]any{"prompt_tokens": 0, "completion_tokens": len(tokens(text)), "total_tokens": len(tokens(text))}})
}

// Start serves the model on a loopback port until ctx ends and returns
// its base URL, for the gateway's upstream client.
func Start(ctx context.Context, pace time.Duration) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("starting the built-in model: %w", err)
	}
	srv := &http.Server{Handler: Handler(pace), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	return "http://" + ln.Addr().String(), nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
