package request

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/jsonscan"
)

func TestDecodeRequest(t *testing.T) {
	r, err := Decode([]byte(`{"agent":"a","command":"c","model":"m","temperature":0.5,"stream":false,
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
		{``, apierr.CodeBadRequest, "not a valid JSON object: expected an object"},
		{`{`, apierr.CodeBadRequest, "unexpected end of input looking for an object key"},
		{`{"a":1} x`, apierr.CodeBadRequest, "invalid character 'x' after the object at offset 8"},
		// Invalid UTF-8 is refused wherever it is (docs/protocol.md §2, JSON and UTF-8);
		// it used to be forwarded upstream raw.
		{"{\"temperature\":\"\xff\"}", apierr.CodeBadRequest, "temperature: invalid UTF-8 in string at offset 15"},
		{"{\"\xff\":{}}", apierr.CodeBadRequest, "invalid UTF-8 in string at offset 1"},
		{"{\"metadata\":{\"k\xc3\":1}}", apierr.CodeBadRequest, "metadata: invalid UTF-8 in string at offset 13"},
		{"{\"messages\":[{\"role\":\"user\",\"content\":\"caf\xe9\"}]}", apierr.CodeBadRequest, "messages: invalid UTF-8 in string at offset 38"},
		{"{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"\xed\xa0\x80\"}]}]}", apierr.CodeBadRequest, "messages: invalid UTF-8"},
		{"{\"contextVariables\":[{\"name\":\"userInputPrompt\",\"value\":\"\xff\"}]}", apierr.CodeBadRequest, "invalid UTF-8"},
		{`[]`, apierr.CodeBadRequest, "JSON object"},
		{`null`, apierr.CodeBadRequest, "JSON object"},
		{`"x"`, apierr.CodeBadRequest, "JSON object"},
		{`{"agent":5}`, apierr.CodeBadRequest, "agent: expected a string, got a number"},
		{`{"command":{}}`, apierr.CodeBadRequest, "command: expected a string, got an object"},
		{`{"model":[]}`, apierr.CodeBadRequest, "model: expected a string"},
		{`{"messages":{}}`, apierr.CodeBadRequest, "messages: expected a list"},
		{`{"messages":[{"content":"x"}]}`, apierr.CodeBadRequest, "messages[0]"},
		{`{"agentDefinition":"x"}`, apierr.CodeBadRequest, "agentDefinition: expected an object"},
		{`{"action":{"action":"dance"}}`, apierr.CodeBadRequest, "action:"},
		{`{"contextVariables":{}}`, apierr.CodeInvalidContext, ""},
		{`{"contextVariables":[{"name":"activeEditor","value":{"startLine":"one"}}]}`, apierr.CodeInvalidContext, "startLine"},
		{`{"contextVariables":[{"name":"packageFiles","value":[{"filepath":1}]}]}`, apierr.CodeInvalidContext, "packageFiles"},
		// Out-of-range positions are a 422 naming the field.
		{`{"contextVariables":[{"name":"activeEditor","value":{"selectedRanges":[{"startLine":-1}]}}]}`, apierr.CodeInvalidContext,
			`context variable "activeEditor": field "selectedRanges.startLine": position -1 is out of range (1 to 2147483647)`},
		{`{"contextVariables":[{"name":"knowledgeBase","value":[{"references":[{"metadata":{"endPos":1e3}}]}]}]}`, apierr.CodeInvalidContext,
			`field "references.metadata.endPos": expected integer, got number 1e3`},
	}
	for _, tc := range tests {
		_, err := Decode([]byte(tc.body))
		var e *apierr.Error
		if !errors.As(err, &e) || e.Code != tc.code || !strings.Contains(e.Message, tc.contains) {
			t.Errorf("Decode(%s) = %v, want %s containing %q", tc.body, err, tc.code, tc.contains)
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
		r, err := Decode(body)
		if err != nil {
			var e *apierr.Error
			if !errors.As(err, &e) || (e.Code != apierr.CodeBadRequest && e.Code != apierr.CodeInvalidContext) || e.Status >= 500 {
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
		_, err := Decode([]byte(body))
		var e *apierr.Error
		if !errors.As(err, &e) || (e.Code != apierr.CodeBadRequest && e.Code != apierr.CodeInvalidContext) {
			t.Errorf("Decode(%s) = %v, want a 400", body, err)
		}
	}
}

func TestDecodeRequestDuplicateKeys(t *testing.T) {
	r, err := Decode([]byte(`{"agent":"a","agent":"b","x":1,"x":2,` +
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
	r, err := Decode([]byte(` { "contextVariables" : [ {"name":"userInputPrompt","value":"a ]}\" b"} ] , ` +
		`"agent" : "x", "temperature": 0.5 } `))
	if err != nil {
		t.Fatal(err)
	}
	if r.Context.UserInputPrompt != `a ]}" b` || r.Agent != "x" || len(r.Extra) != 1 || string(r.Extra[0].Value) != "0.5" {
		t.Errorf("decoded %+v, context %+v", r, r.Context)
	}
	for body, code := range map[string]string{
		`{"contextVariables":[] "agent":"x"}`:                        apierr.CodeBadRequest,
		`{"contextVariables":[{"name":"activeEditor","value":5}]}`:   apierr.CodeInvalidContext,
		`{"contextVariables":{}}`:                                    apierr.CodeInvalidContext,
		`{"contextVariables":[{"name":"userInputPrompt","value":"`:   apierr.CodeBadRequest,
		`{"contextVariables":[{"name":"activeEditor","value":tru}]}`: apierr.CodeBadRequest,
		`{"contextVariables":nul}`:                                   apierr.CodeBadRequest,
		`{"contextVariables":null,"agent":"x"} x`:                    apierr.CodeBadRequest,
	} {
		_, err := Decode([]byte(body))
		var e *apierr.Error
		if !errors.As(err, &e) || e.Code != code {
			t.Errorf("Decode(%s) = %v, want %s", body, err, code)
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
		// refused (docs/protocol.md §2, JSON and UTF-8).
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
