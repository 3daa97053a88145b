package request

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agentgw/agentgw/contextvars"
	"github.com/agentgw/agentgw/llm"
)

// TestBuild: Build makes what Decode makes of the body it stands for, and
// refuses what Decode would refuse or could not have made.
func TestBuild(t *testing.T) {
	body := []byte(`{"agent":"a","command":"fix","contextVariables":[{"name":"userInputPrompt","value":"q"}],` +
		`"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"x"}]}],"temperature":0.5,"top_p":1}`)
	want, err := Decode(body)
	if err != nil {
		t.Fatal(err)
	}
	msgs := []json.RawMessage{json.RawMessage(`{"role":"user","content":"hi"}`), json.RawMessage(`{"role":"assistant","content":[{"type":"text","text":"x"}]}`)}
	extra := []llm.Field{{Key: "temperature", Value: json.RawMessage(`0.5`)}, {Key: "top_p", Value: json.RawMessage(`1`)}}
	got, err := Build("a", "fix", contextvars.PromptSet("q", nil), msgs, extra, body)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Build:\n got %#v\nwant %#v", got, want)
	}
	for _, tc := range []struct {
		name  string
		msgs  []json.RawMessage
		extra []llm.Field
		want  string
	}{
		{"no role", []json.RawMessage{json.RawMessage(`{"content":"x"}`)}, nil, "BAD_REQUEST: messages[0]: expected an object with a string role"},
		{"unsorted", nil, []llm.Field{{Key: "b", Value: json.RawMessage(`1`)}, {Key: "a", Value: json.RawMessage(`1`)}}, `request: pass-through members not sorted: "a" after "b"`},
		{"repeated", nil, []llm.Field{{Key: "a", Value: json.RawMessage(`1`)}, {Key: "a", Value: json.RawMessage(`1`)}}, `request: pass-through members not sorted: "a" after "a"`},
		{"protocol field", nil, []llm.Field{{Key: "contextId", Value: json.RawMessage(`"c"`)}}, `request: the protocol's field "contextId" passed through`},
	} {
		if _, err := Build("a", "", nil, tc.msgs, tc.extra, nil); err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v, want %s", tc.name, err, tc.want)
		}
	}
}
