package openaiapi

import (
	"fmt"
	"testing"

	"bytes"
	"encoding/json"
	"github.com/agentgw/agentgw/apierr"
	"slices"
	"strings"
)

// The endpoint's decoder as it was until 2026-11-29, with encoding/json:
// the reference FuzzDecodeStdlib compares decodeTop and decodeRequest with.

// decodeTop decodes the request's top-level object. encoding/json checks
// the whole body first (linear in its size, nesting bounded) and keeps the
// last of duplicate keys.
func stdDecodeTop(body []byte) (map[string]json.RawMessage, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil || top == nil {
		return nil, badRequest("the body is not a JSON object")
	}
	return top, nil
}

// modelOf is the request's model, which must be a non-empty string.
func stdModelOf(top map[string]json.RawMessage) (string, error) {
	var model string
	if raw, ok := top["model"]; !ok || json.Unmarshal(raw, &model) != nil || model == "" {
		return "", badRequest("model: expected the name of a model, one of GET /v1/models")
	}
	return model, nil
}

// decodeRequest decodes a chat completion request from its top-level
// members. Every value is decoded once more at most, so that a body costs
// time and memory in proportion to its size.
func stdDecodeRequest(top map[string]json.RawMessage) (*chatRequest, error) {
	model, err := stdModelOf(top)
	if err != nil {
		return nil, err
	}
	r := &chatRequest{Model: model}
	if err := stdOptional(top, "stream", &r.Stream); err != nil {
		return nil, err
	}
	var opts struct {
		IncludeUsage bool `json:"include_usage"`
	}
	if err := stdOptional(top, "stream_options", &opts); err != nil {
		return nil, err
	}
	r.IncludeUsage = r.Stream && opts.IncludeUsage
	var n *int
	if err := stdOptional(top, "n", &n); err != nil {
		return nil, err
	}
	if n != nil && *n != 1 {
		return nil, badRequest("n: this endpoint answers with one choice; send n 1 or none")
	}
	if r.Messages, err = stdDecodeMessages(top["messages"]); err != nil {
		return nil, err
	}
	for k, v := range top {
		if !slices.Contains(notPassed, k) {
			r.Extra = append(r.Extra, member{Key: k, Value: v})
		}
	}
	slices.SortFunc(r.Extra, func(a, b member) int { return strings.Compare(a.Key, b.Key) })
	return r, nil
}

// optional decodes the member key into v when it is there and not null.
func stdOptional(top map[string]json.RawMessage, key string, v any) error {
	raw, ok := top[key]
	if !ok || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return badRequest("%s: a value of the wrong type", key)
	}
	return nil
}

// decodeMessages decodes the messages: a non-empty list of objects with a
// string role and a content that is a string, null or a list of parts.
func stdDecodeMessages(raw json.RawMessage) ([]message, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || len(items) == 0 {
		return nil, badRequest("messages: expected a non-empty list of {role, content}")
	}
	out := make([]message, 0, len(items))
	for i, it := range items {
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(it, &m); err != nil || m.Role == "" || it[0] != '{' {
			return nil, badRequest("messages[%d]: expected an object with a string role", i)
		}
		text, ok := stdContentText(m.Content)
		if !ok {
			return nil, badRequest("messages[%d].content: expected a string or a list of content parts", i)
		}
		out = append(out, message{Role: m.Role, Text: text, Raw: it})
	}
	return out, nil
}

// contentText is a message content as text: a string, null (""), or a
// list of parts whose text parts are joined by line breaks (images and
// other parts have no text).
func stdContentText(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	var s string
	if raw[0] == '"' {
		return s, json.Unmarshal(raw, &s) == nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return "", false
	}
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		if p.Type == "text" || p.Type == "" && p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n"), true
}

// decodeStd is what the encoding/json decoder made of a body: the chat
// completion request or the error, and the stream a passed-through request
// reports.
func decodeStd(body []byte) (cr *chatRequest, stream bool, err error) {
	top, err := stdDecodeTop(body)
	if err != nil {
		return nil, false, err
	}
	if raw, ok := top["stream"]; ok {
		_ = json.Unmarshal(raw, &stream)
	}
	if _, err := stdModelOf(top); err != nil {
		return nil, stream, err
	}
	cr, err = stdDecodeRequest(top)
	return cr, stream, err
}

// decodeScan is decodeStd with the endpoint's decoder.
func decodeScan(body []byte) (cr *chatRequest, stream bool, err error) {
	top, err := decodeTop(body)
	if err != nil {
		return nil, false, err
	}
	stream = top.streams()
	if _, err := modelOf(top); err != nil {
		return nil, stream, err
	}
	cr, err = decodeRequest(top)
	return cr, stream, err
}

// decodeSeeds are bodies for FuzzDecodeStdlib and TestDecodeStdlib: the
// members' types, encoding/json's case-insensitive field names, duplicate
// keys, escapes, invalid UTF-8, nesting at the limit.
var decodeSeeds = []string{
	`{"model":"a","messages":[{"role":"user","content":"hi"}]}`,
	` {"model":"a","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"x"},{"type":"image_url","image_url":{"url":"u"}},{"text":"y"},null]}],"temperature":0.5} `,
	`{"model":"a","messages":[{"role":"user","content":"a"},{"role":"assistant","content":null,"tool_calls":[]},{"role":"user","content":"\u00e9\n"}],"n":1}`,
	`{"model":"a","messages":[{"role":"developer","content":""}]}`,
	`{"model":"a","messages":[{"role":"user","content":{}}]}`,
	`[]`, `null`, `{}`, `{"model":1}`, `{"model":null}`, `{"model":""}`, `{"model":"a","messages":"x"}`, `{"model":"a","messages":[]}`,
	`{"model":"a","messages":null}`, `{"model":"a","messages":[null]}`, `{"model":"a","messages":[1]}`, `{"model":"a","messages":[{"role":1}]}`,
	`{"model":"a","messages":[{"ROLE":"user","Content":"x","role":null}]}`, `{"model":"a","messages":[{"role":"user","content":[1]}]}`,
	`{"model":"a","messages":[{"role":"user","content":[{"TYPE":"text","Text":"t","text":null}]}]}`,
	`{"model":"a","messages":[{"role":"user","content":[{"type":1}]}]}`, `{"model":"a","messages":[{"role":"user","content":true}]}`,
	`{"model":"a","stream":"yes"}`, `{"model":"a","stream":null,"messages":[{"role":"user"}]}`, `{"model":"a","stream":true,"stream_options":[]}`,
	`{"model":"a","stream":true,"stream_options":{"INCLUDE_USAGE":true,"include_usage":null},"messages":[{"role":"user"}]}`,
	"{\"model\":\"a\",\"stream\":true,\"stream_options\":{\"include_u\u017fage\":true},\"messages\":[{\"role\":\"user\"}]}",
	`{"model":"a","stream_options":{"include_usage":1}}`, `{"model":"a","n":2}`, `{"model":"a","n":1.0}`, `{"model":"a","n":1e0}`,
	`{"model":"a","n":-0,"messages":[{"role":"user"}]}`, `{"model":"a","n":99999999999999999999}`, `{"model":"a","n":"1"}`, `{"model":"a","n":null,"messages":[{"role":"user"}]}`,
	`{"model":"a","model":"b","messages":[{"role":"user"}],"x":1,"x":[2],"\u006dodel":"c","y":{"z":null}}`,
	`{"model":"a","messages":[{"role":"user"}]} x`, `{"model":"a",}`, `{"model":"a" "x":1}`, `{"model":"\ud800","messages":[{"role":"user","content":"\udc00x"}]}`,
	"{\"model\":\"a\xff\",\"messages\":[{\"role\":\"us\xc0er\",\"content\":\"\xed\xa0\x80\"}],\"k\xfe\":\"\xff\"}",
	`{"model":"a","messages":[{"role":"user"}],"x":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`,
	`{"model":"a","messages":[{"role":"user"}],"x":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
	`{"model":"a","messages":[{"role":"user"}],"x":1e999,"y":-0.0e+1,"z":01}`, `{"model":"a","messages":[{"role":"user"}],"x":"\x01"}`,
	// The messages decoded as they are validated (decodeTop): duplicates,
	// an error about them before a syntax error, a syntax error in them.
	`{"messages":[1],"model":"a","messages":[{"role":"user","content":"b"}]}`,
	`{"messages":[{"role":"user","content":"a"}],"model":"a","messages":[{"role":2}]}`,
	`{"messages":[{"role":"user","content":"a"}],"model":"a","messages":"x"}`,
	`{"messages":"x","model":"a","\u006dessages":[{"role":"user","content":"\u0062"}]}`,
	`{"model":"a","messages":[{"role":1},{"role":"user","content":[}]}`,
	`{"model":"a","messages":[{"role":1},{"role":"user"}],"x":[}`,
	`{"model":"a","messages":[{"role":"user","content":"a\x"}]}`,
	`{"model":"a","messages":[{"role":"us\x"}]}`, `{"model":"a","messages":[{"role":"user","content":[{"text":"\x"}]}]}`,
	`{"model":1,"messages":[{"role":1}]}`, `{"model":"a","n":2,"messages":[{"role":1}]}`,
	`{"model":"a","messages":[{"role":"user","content":"a"},` + strings.Repeat("[", 9998) + strings.Repeat("]", 9998) + `]}`,
	`{"model":"a","messages":[{"role":"user","content":"a"},` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `]}`,
	`{"model":"a","messages":[{"role":"user","content":` + strings.Repeat("[", 9997) + strings.Repeat("]", 9997) + `}]}`,
	`{"model":"a","messages":[{"role":"user","content":` + strings.Repeat("[", 9998) + strings.Repeat("]", 9998) + `}]}`,
}

// checkDecodeStdlib: the endpoint's decoder makes of body what the
// encoding/json decoder made: the same error (code and message), or the
// same request, values byte for byte.
func checkDecodeStdlib(t *testing.T, body []byte) {
	t.Helper()
	want, wantStream, wantErr := decodeStd(body)
	got, gotStream, gotErr := decodeScan(body)
	if gotStream != wantStream {
		t.Errorf("stream %v, encoding/json %v", gotStream, wantStream)
	}
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || apierr.AsError(gotErr).Code != apierr.AsError(wantErr).Code && wantErr != nil {
		t.Fatalf("error %v, encoding/json %v", gotErr, wantErr)
	}
	if wantErr != nil {
		return
	}
	if g, w := fmt.Sprintf("%#v", *got), fmt.Sprintf("%#v", *want); g != w {
		t.Fatalf("request\n%s\nencoding/json\n%s", g, w)
	}
}

// TestDecodeStdlib runs checkDecodeStdlib on the seeds.
func TestDecodeStdlib(t *testing.T) {
	for _, s := range decodeSeeds {
		checkDecodeStdlib(t, []byte(s))
	}
}

// FuzzDecodeStdlib: whatever the body, the endpoint's decoder (jsonscan)
// makes of it what encoding/json made.
func FuzzDecodeStdlib(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkDecodeStdlib)
}
