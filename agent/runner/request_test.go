package runner

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/internal/jsonscan"
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
		{``, agent.CodeBadRequest, "not a valid JSON object: expected an object"},
		{`{`, agent.CodeBadRequest, "unexpected end of input looking for an object key"},
		{`{"a":1} x`, agent.CodeBadRequest, "invalid character 'x' after the object at offset 8"},
		// Invalid UTF-8 is refused wherever it is (README: UTF-8 policy);
		// it used to be forwarded upstream raw.
		{"{\"temperature\":\"\xff\"}", agent.CodeBadRequest, "temperature: invalid UTF-8 in string at offset 15"},
		{"{\"\xff\":{}}", agent.CodeBadRequest, "invalid UTF-8 in string at offset 1"},
		{"{\"metadata\":{\"k\xc3\":1}}", agent.CodeBadRequest, "metadata: invalid UTF-8 in string at offset 13"},
		{"{\"messages\":[{\"role\":\"user\",\"content\":\"caf\xe9\"}]}", agent.CodeBadRequest, "messages: invalid UTF-8 in string at offset 38"},
		{"{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"\xed\xa0\x80\"}]}]}", agent.CodeBadRequest, "messages: invalid UTF-8"},
		{"{\"contextVariables\":[{\"name\":\"userInputPrompt\",\"value\":\"\xff\"}]}", agent.CodeBadRequest, "invalid UTF-8"},
		{`[]`, agent.CodeBadRequest, "JSON object"},
		{`null`, agent.CodeBadRequest, "JSON object"},
		{`"x"`, agent.CodeBadRequest, "JSON object"},
		{`{"agent":5}`, agent.CodeBadRequest, "agent: expected a string, got a number"},
		{`{"command":{}}`, agent.CodeBadRequest, "command: expected a string, got an object"},
		{`{"model":[]}`, agent.CodeBadRequest, "model: expected a string"},
		{`{"messages":{}}`, agent.CodeBadRequest, "messages: expected a list"},
		{`{"messages":[{"content":"x"}]}`, agent.CodeBadRequest, "messages[0]"},
		{`{"agentDefinition":"x"}`, agent.CodeBadRequest, "agentDefinition: expected an object"},
		{`{"action":{"action":"dance"}}`, agent.CodeBadRequest, "action:"},
		{`{"contextVariables":{}}`, agent.CodeInvalidContext, ""},
		{`{"contextVariables":[{"name":"activeEditor","value":{"startLine":"one"}}]}`, agent.CodeInvalidContext, "startLine"},
		{`{"contextVariables":[{"name":"packageFiles","value":[{"filepath":1}]}]}`, agent.CodeInvalidContext, "packageFiles"},
		// Out-of-range positions are a 422 naming the field.
		{`{"contextVariables":[{"name":"activeEditor","value":{"selectedRanges":[{"startLine":-1}]}}]}`, agent.CodeInvalidContext,
			`context variable "activeEditor": field "selectedRanges.startLine": position -1 is out of range (1 to 2147483647)`},
		{`{"contextVariables":[{"name":"knowledgeBase","value":[{"references":[{"metadata":{"endPos":1e3}}]}]}]}`, agent.CodeInvalidContext,
			`field "references.metadata.endPos": expected integer, got number 1e3`},
	}
	for _, tc := range tests {
		_, err := DecodeRequest([]byte(tc.body))
		var e *agent.Error
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
			var e *agent.Error
			if !errors.As(err, &e) || (e.Code != agent.CodeBadRequest && e.Code != agent.CodeInvalidContext) || e.Status >= 500 {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if r.Context == nil {
			t.Fatal("nil context")
		}
	})
}

func TestDecodeRequestMalformed(t *testing.T) {
	for _, body := range []string{
		`{"a":1,}`, `{"a" 1}`, `{"a":}`, `{"a":[1,2}`, `{"a":{"b":"c"]}`, `{"a":"x}`, `{"a":1} x`,
		`{"a":tru}`, `{"temperature":1.2.3}`, `{"x":"\u12"}`, `{"agent":"a" "command":"b"}`,
		`{"contextVariables":[{"name":"userInputPrompt","value":"x}]}`, `{"messages":[{"role":"user","content":"x"]}`,
		`{"agentDefinition":{"name":}}`, `{"stream":nope}`, `{"a":"` + "\x01" + `"}`,
	} {
		_, err := DecodeRequest([]byte(body))
		var e *agent.Error
		if !errors.As(err, &e) || (e.Code != agent.CodeBadRequest && e.Code != agent.CodeInvalidContext) {
			t.Errorf("DecodeRequest(%s) = %v, want a 400", body, err)
		}
	}
}

func TestDecodeRequestDuplicateKeys(t *testing.T) {
	r, err := DecodeRequest([]byte(`{"agent":"a","agent":"b","x":1,"x":2,` +
		`"contextVariables":[{"name":"userInputPrompt","value":"first"}],` +
		`"contextVariables":[{"name":"userInputPrompt","value":"second"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.Agent != "b" || len(r.Extra) != 1 || string(r.Extra[0].Value) != "2" || r.Context.UserInputPrompt != "second" {
		t.Errorf("the last of duplicate keys should win: %+v", r)
	}
}

// TestDecodeRequestContextInPlace: the context variables are decoded where
// the split meets them, so whatever follows the list must still be read
// from the right place, and a broken list or a broken rest is refused.
func TestDecodeRequestContextInPlace(t *testing.T) {
	r, err := DecodeRequest([]byte(` { "contextVariables" : [ {"name":"userInputPrompt","value":"a ]}\" b"} ] , ` +
		`"agent" : "x", "temperature": 0.5 } `))
	if err != nil {
		t.Fatal(err)
	}
	if r.Context.UserInputPrompt != `a ]}" b` || r.Agent != "x" || len(r.Extra) != 1 || string(r.Extra[0].Value) != "0.5" {
		t.Errorf("decoded %+v, context %+v", r, r.Context)
	}
	for body, code := range map[string]string{
		`{"contextVariables":[] "agent":"x"}`:                        agent.CodeBadRequest,
		`{"contextVariables":[{"name":"activeEditor","value":5}]}`:   agent.CodeInvalidContext,
		`{"contextVariables":{}}`:                                    agent.CodeInvalidContext,
		`{"contextVariables":[{"name":"userInputPrompt","value":"`:   agent.CodeBadRequest,
		`{"contextVariables":[{"name":"activeEditor","value":tru}]}`: agent.CodeBadRequest,
		`{"contextVariables":nul}`:                                   agent.CodeBadRequest,
		`{"contextVariables":null,"agent":"x"} x`:                    agent.CodeBadRequest,
	} {
		_, err := DecodeRequest([]byte(body))
		var e *agent.Error
		if !errors.As(err, &e) || e.Code != code {
			t.Errorf("DecodeRequest(%s) = %v, want %s", body, err, code)
		}
	}
}

// FuzzSplitObject: the split accepts the objects encoding/json accepts
// (but for invalid UTF-8, refused) and splits them into exactly the members
// encoding/json finds.
func FuzzSplitObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"b":[{"c":"d\"}"}],"e":null}`, `{"a":"\\"}`, ` {"a" : { } } `, `[]`, `{"a":1,}`, "{\"\xff\":{}}", "{\"b\":\"\xed\xa0\x80\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := map[string]string{}
		// Keys starting with "a" take the in-place path with a decoder
		// that measures the value as the split would.
		inPlace := func(k string) valueDecoder {
			if !strings.HasPrefix(k, "a") {
				return nil
			}
			return func(rest []byte) (int, error) {
				sc := &jsonscan.Scanner{Data: rest}
				err := sc.Skip()
				n := sc.Pos
				if err == nil {
					got[k] = string(rest[:n])
				}
				return n, err
			}
		}
		err := splitObject(data, inPlace, func(k string, raw []byte) error {
			got[k] = string(raw)
			return nil
		})
		var want map[string]json.RawMessage
		werr := json.Unmarshal(data, &want)
		// The same verdict as encoding/json, but that invalid UTF-8 is
		// refused (README: UTF-8 policy).
		valid := werr == nil && want != nil && utf8.Valid(data)
		if valid != (err == nil) {
			t.Fatalf("split(%q) = %v, encoding/json %v (UTF-8 %v)", data, err, werr, utf8.Valid(data))
		}
		if valid {
			for k, v := range want {
				if got[k] != string(v) {
					t.Fatalf("member %q: got %q, want %q", k, got[k], v)
				}
			}
		}
	})
}
