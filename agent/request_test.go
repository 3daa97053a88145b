package agent

import (
	"errors"
	"strings"
	"testing"
)

func TestDecodeRequest(t *testing.T) {
	r, err := DecodeRequest([]byte(`{"agent":"a","command":"c","model":"m","temperature":0.5,"stream":false,
		"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"x"}]}],
		"contextVariables":[{"name":"userInputPrompt","value":"q"}],"zeta":1,"alpha":{"b":[1]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.Agent != "a" || r.Command != "c" || r.Model != "m" || r.Context.UserInputPrompt != "q" {
		t.Errorf("decoded %+v", r)
	}
	if len(r.Messages) != 2 || r.Messages[0].Content != "hi" || r.Messages[1].Content != "" || !strings.Contains(string(r.Messages[1].Raw), `"type":"text"`) {
		t.Errorf("messages %+v", r.Messages)
	}
	var keys []string
	for _, f := range r.Extra {
		keys = append(keys, f.Key)
	}
	if got := strings.Join(keys, ","); got != "alpha,temperature,zeta" {
		t.Errorf("pass-through keys %s", got)
	}
}

func TestDecodeRequestErrors(t *testing.T) {
	tests := []struct {
		body, code, contains string
	}{
		{``, CodeBadRequest, "not valid JSON"},
		{`{`, CodeBadRequest, "not valid JSON"},
		{`[]`, CodeBadRequest, "JSON object"},
		{`null`, CodeBadRequest, "JSON object"},
		{`"x"`, CodeBadRequest, "JSON object"},
		{`{"agent":5}`, CodeBadRequest, "agent: expected a string, got a number"},
		{`{"command":{}}`, CodeBadRequest, "command: expected a string, got an object"},
		{`{"model":[]}`, CodeBadRequest, "model: expected a string"},
		{`{"messages":{}}`, CodeBadRequest, "messages: expected a list"},
		{`{"messages":[{"content":"x"}]}`, CodeBadRequest, "messages[0]"},
		{`{"agentDefinition":"x"}`, CodeBadRequest, "agentDefinition: expected an object"},
		{`{"action":{"action":"dance"}}`, CodeBadRequest, "action:"},
		{`{"contextVariables":{}}`, CodeInvalidContext, ""},
		{`{"contextVariables":[{"name":"activeEditor","value":{"startLine":"one"}}]}`, CodeInvalidContext, "startLine"},
		{`{"contextVariables":[{"name":"packageFiles","value":[{"filepath":1}]}]}`, CodeInvalidContext, "packageFiles"},
	}
	for _, tc := range tests {
		_, err := DecodeRequest([]byte(tc.body))
		var e *Error
		if !errors.As(err, &e) || e.Code != tc.code || !strings.Contains(e.Message, tc.contains) {
			t.Errorf("DecodeRequest(%s) = %v, want %s containing %q", tc.body, err, tc.code, tc.contains)
		}
	}
}

// FuzzDecodeRequest: any body either decodes or fails with a client error
// of a known code; it never panics.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{
		`{"agent":"hello","command":"default","contextVariables":[{"name":"userInfo","value":{"id":"1","name":"a","nickname":"A"}}]}`,
		`{"agent":"a","messages":[{"role":"user","content":"hi"}],"temperature":1,"action":{"action":"tree","state":"s","treeId":"t","nodeId":"n","nodeAction":"expand"}}`,
		`{"contextVariables":[{"name":"activeEditor","value":{"content":"x","selectedRanges":[{"content":"x","startLine":1}]}}]}`,
		`{"agentDefinition":{"name":"x"},"model":"m","stream":true}`,
		`{}`, `[]`, `{"agent":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := DecodeRequest(body)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || (e.Code != CodeBadRequest && e.Code != CodeInvalidContext) || e.Status >= 500 {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if r.Context == nil {
			t.Fatal("nil context")
		}
	})
}
