package chat

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/llm/llmtest"
)

// textFrame is an OpenAI-style text chunk frame.
func textFrame(s string) string {
	c, _ := json.Marshal(s)
	return `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":` + string(c) + `},"finish_reason":null}]}` + "\n\n"
}

const (
	stopFrame = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n"
	doneFrame = llmtest.Done
	// treeFrame is a tree whose nodes are listed out of order.
	treeFrame = `event: copilot_action
data: {"action":"tree","state":"s1","data":{"treeId":"files","rootPId":"0","nodes":[
data: {"id":"n3","pId":"n1","type":"file","name":"main.go","description":"","labels":[]},
data: {"id":"n1","pId":"0","type":"dir","name":"src","description":"sources","labels":[]},
data: {"id":"n4","pId":"n1","type":"dir","name":"util","labels":[]},
data: {"id":"n5","pId":"n4","type":"file","name":"util.go","labels":["new"]},
data: {"id":"n2","pId":"0","type":"file","name":"README.md"}],
data: "nodeActions":[{"nodeType":"dir","nodeAction":"expand"},{"nodeType":"file","nodeAction":"click","promptByNodeProperty":"name"},{"nodeType":"file","nodeAction":"expand","command":"open"}]}}

`
	treeOut = "\n  tree files:\n" +
		"    - src (dir): sources\n" +
		"      - main.go (file)\n" +
		"      - util (dir)\n" +
		"        - util.go (file)\n" +
		"    - README.md (file)\n" +
		"    (expand on dir nodes → sends feedback)\n" +
		"    (click on file nodes → asks the node's name)\n" +
		"    (expand on file nodes → runs command open)\n"
)

func actionFrame(data string) string { return "event: copilot_action\ndata: " + data + "\n\n" }
func errorFrame(data string) string  { return "event: copilot_error\ndata: " + data + "\n\n" }

func TestStreamRenderer(t *testing.T) {
	tests := []struct {
		name       string
		stream     string
		want       string
		wantFailed bool
		wantErr    string
	}{
		{
			name:   "text",
			stream: textFrame("Hel") + textFrame("lo") + stopFrame + doneFrame,
			want:   "Hello\n",
		},
		{
			name:   "text ending a line gets no extra newline",
			stream: textFrame("Hello\n") + stopFrame + doneFrame,
			want:   "Hello\n",
		},
		{
			name:   "the seed's [Done] and keep-alive comments",
			stream: ": ping\n\n" + textFrame("a") + ": ping\n\n" + textFrame("b") + "data: [Done]\n\n",
			want:   "ab\n",
		},
		{
			name: "confirm with a command",
			stream: textFrame("Hi!") + actionFrame(`{"action":"confirm","state":"x","data":{"title":"Get version","message":"Shows the version of agent hello","command":"version"}}`) +
				stopFrame + doneFrame,
			want: "Hi!\n\n  [ Get version ]  Shows the version of agent hello → runs command version\n",
		},
		{
			name:   "confirm with a prompt",
			stream: actionFrame(`{"action":"confirm","state":1,"data":{"title":"Explain","message":"Explain it","prompt":"explain this"}}`) + doneFrame,
			want:   "\n  [ Explain ]  Explain it → asks \"explain this\"\n",
		},
		{
			name:   "confirm with feedback",
			stream: actionFrame(`{"action":"confirm","state":{},"data":{"title":"Apply","message":"Apply the fix?"}}`) + doneFrame,
			want:   "\n  [ Apply ]  Apply the fix? → sends feedback\n",
		},
		{
			name:   "tree",
			stream: treeFrame + doneFrame,
			want:   treeOut,
		},
		{
			name: "a tree with a cycle ends",
			stream: actionFrame(`{"action":"tree","data":{"treeId":"t","rootPId":"a","nodes":[{"id":"a","pId":"a","name":"self"},{"id":"b","pId":"a","name":"child"},{"id":"a","pId":"b","name":"loop"}]}}`) +
				doneFrame,
			want: "\n  tree t:\n    - self\n      - child\n        - loop\n",
		},
		{
			name:   "an unknown action",
			stream: actionFrame(`{"action":"diff","data":{}}`) + doneFrame,
			want:   "  [diff action]\n",
		},
		{
			name:   "an unreadable action",
			stream: actionFrame(`{"action":`) + doneFrame,
			want:   "[unreadable action: unexpected end of JSON input]\n",
		},
		{
			name: "an error with a hint",
			stream: textFrame("Thinking") +
				errorFrame(`{"errorCode":"UPSTREAM_ERROR","message":"the model platform answered 429: slow down","recoverable":true,"suggestedAction":"try again in a minute","requestId":"r1"}`) +
				stopFrame + doneFrame,
			want:       "Thinking\n\nerror UPSTREAM_ERROR: the model platform answered 429: slow down\n  hint: try again in a minute\n",
			wantFailed: true,
		},
		{
			name:       "an error that is not JSON",
			stream:     errorFrame(`oops`) + doneFrame,
			want:       "\nerror: oops\n",
			wantFailed: true,
		},
		{
			name:    "no terminator",
			stream:  textFrame("cut") + stopFrame,
			want:    "cut\n",
			wantErr: "the stream ended without its terminator",
		},
		{
			name:   "non-JSON data is skipped",
			stream: "data: hello\n\n" + textFrame("ok") + doneFrame,
			want:   "ok\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			r := &streamRenderer{out: &out}
			err := r.render(strings.NewReader(tt.stream))
			if got := errString(err); got != tt.wantErr {
				t.Errorf("error = %q, want %q", got, tt.wantErr)
			}
			if out.String() != tt.want {
				t.Errorf("output:\n%q\nwant:\n%q", out.String(), tt.want)
			}
			if r.failed != tt.wantFailed {
				t.Errorf("failed = %v, want %v", r.failed, tt.wantFailed)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// FuzzStreamRenderer renders arbitrary streams: it must not panic or hang.
func FuzzStreamRenderer(f *testing.F) {
	f.Add(textFrame("Hello") + stopFrame + doneFrame)
	f.Add(treeFrame + doneFrame)
	f.Add(actionFrame(`{"action":"confirm","data":{"title":"t","message":"m","command":"c"}}`))
	f.Add(actionFrame(`{"action":"tree","data":{"rootPId":"a","nodes":[{"id":"a","pId":"a"}]}}`))
	f.Add(errorFrame(`{"errorCode":"X","message":"m","suggestedAction":"s"}`) + "data: [Done]\r\n\r\n")
	f.Add("event: copilot_action\r\ndata: {\"action\":\"tree\",\"data\":{\"nodes\":[{\"pId\":null}]}}\r\r")
	f.Fuzz(func(t *testing.T, stream string) {
		var out bytes.Buffer
		r := &streamRenderer{out: &out}
		_ = r.render(strings.NewReader(stream))
	})
}

func BenchmarkStreamRenderer(b *testing.B) {
	var stream strings.Builder
	for i := 0; i < 200; i++ {
		stream.WriteString(textFrame("token "))
	}
	stream.WriteString(treeFrame + stopFrame + doneFrame)
	s := stream.String()
	b.ReportAllocs()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		r := &streamRenderer{out: io.Discard}
		if err := r.render(strings.NewReader(s)); err != nil {
			b.Fatal(err)
		}
	}
}
