package echomodel

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func post(t *testing.T, body string) string {
	t.Helper()
	srv := httptest.NewServer(Handler(0))
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return string(data)
}

// contents joins the content deltas of a stream.
func contents(stream string) string {
	var b strings.Builder
	for _, l := range strings.Split(stream, "\n") {
		if i := strings.Index(l, `"content":"`); i >= 0 {
			rest := l[i+len(`"content":"`):]
			b.WriteString(strings.ReplaceAll(rest[:strings.Index(rest, `"`)], `\n`, "\n"))
		}
	}
	return b.String()
}

// TestEcho: the answer says what the model received, streamed a word at a
// time and ended as OpenAI ends a stream; "call TOOL {json}" calls an
// offered tool; a tool result is answered with what it said.
func TestEcho(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"what it got", `{"model":"m1","stream":true,"messages":[{"role":"system","content":"Be brief.\nReally."},{"role":"user","content":"hi there"}],"tools":[{"type":"function","function":{"name":"read_file"}}]}`,
			"echo model (m1) got 2 messages:\n- system: Be brief.\n  Really.\n- user: hi there\nTools offered: read_file.\n"},
		{"first lines", `{"stream":true,"messages":[{"role":"user","content":[{"type":"text","text":"a\n\nb\nc\nd\ne"}]}]}`,
			"echo model (no model named) got 1 messages:\n- user: a\n  b\n  c (+2 more lines)\n"},
		{"a tool result", `{"stream":true,"messages":[{"role":"user","content":"x"},{"role":"tool","tool_call_id":"c","content":"42"}]}`,
			"The tool said: 42"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := post(t, tc.body)
			if c := contents(got); c != tc.want {
				t.Fatalf("content %q, want %q\n%s", c, tc.want, got)
			}
			if !strings.Contains(got, `"finish_reason":"stop"`) || !strings.HasSuffix(got, "data: [DONE]\n\n") {
				t.Fatalf("not ended: %s", got)
			}
		})
	}
	called := post(t, `{"stream":true,"messages":[{"role":"user","content":"call read_file {\"path\":\"a.go\"}"}],"tools":[{"type":"function","function":{"name":"read_file"}}]}`)
	if !strings.Contains(called, `"tool_calls":[{"function":{"arguments":"{\"path\":\"a.go\"}","name":"read_file"}`) || !strings.Contains(called, `"finish_reason":"tool_calls"`) {
		t.Fatalf("no tool call: %s", called)
	}
	if got := post(t, `{"messages":[{"role":"user","content":"hi"}]}`); !strings.Contains(got, `"object":"chat.completion"`) || !strings.Contains(got, `got 1 messages`) {
		t.Fatalf("non-streamed: %s", got)
	}
}

// TestTokens: the pieces streamed are words with the spaces after them,
// and they join into the text again.
func TestTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"one", []string{"one"}},
		{"a b\n  c ", []string{"a ", "b\n  ", "c "}},
		{"  lead", []string{"  lead"}},
	}
	for _, tc := range tests {
		got := tokens(tc.in)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
			t.Errorf("tokens(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
