package sse

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/internal/jsonscan"
)

func TestRewriteID(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"id first", `{"id":"up-1","object":"chat.completion.chunk","choices":[]}`,
			`{"id":"ours","object":"chat.completion.chunk","choices":[]}`},
		{"id later", `{"object":"chat.completion.chunk","created":1,"id":"up-1","choices":[]}`,
			`{"object":"chat.completion.chunk","created":1,"id":"ours","choices":[]}`},
		{"id last", `{"choices":[],"id":"up-1"}`, `{"choices":[],"id":"ours"}`},
		{"no id", `{"object":"chat.completion.chunk","choices":[]}`,
			`{"id":"ours","object":"chat.completion.chunk","choices":[]}`},
		{"empty object", `{}`, `{"id":"ours"}`},
		{"empty object with space", ` { } `, ` {"id":"ours" } `},
		{"id of another type", `{"id":123,"x":1}`, `{"id":"ours","x":1}`},
		{"id null", `{"id":null}`, `{"id":"ours"}`},
		{"id object", `{"id":{"id":"deep"},"x":1}`, `{"id":"ours","x":1}`},
		{"nested ids untouched",
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_1","type":"function"}]}}],"id":"up"}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_1","type":"function"}]}}],"id":"ours"}`},
		{"nested id only", `{"choices":[{"id":"call_1"}]}`, `{"id":"ours","choices":[{"id":"call_1"}]}`},
		{"string containing id", `{"content":"\"id\":\"x\"","b":"id"}`, `{"id":"ours","content":"\"id\":\"x\"","b":"id"}`},
		{"escaped quote before id", `{"a":"x\\\"","id":"up"}`, `{"a":"x\\\"","id":"ours"}`},
		{"key that only ends in id", `{"uuid":"u","idx":1}`, `{"id":"ours","uuid":"u","idx":1}`},
		{"escaped id key", `{"\u0069d":"up","x":1}`, `{"\u0069d":"ours","x":1}`},
		{"duplicate ids", `{"id":"a","x":1,"id":"b"}`, `{"id":"ours","x":1,"id":"ours"}`},
		{"whitespace kept", "{ \"id\" : \"up\" ,\t\"x\" : [ 1 , 2 ] }", "{ \"id\" : \"ours\" ,\t\"x\" : [ 1 , 2 ] }"},
		{"newlines flattened", "{\n  \"id\": \"up\",\r\n  \"x\": 1\n}", "{   \"id\": \"ours\",    \"x\": 1 }"},
		{"newlines flattened with insert", "{\n\"x\":1}", `{"id":"ours", "x":1}`},
		{"unicode kept", `{"content":"世界 \ud83d\ude00 é"}`, `{"id":"ours","content":"世界 \ud83d\ude00 é"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RewriteID([]byte("prefix:"), []byte(tt.in), "ours")
			if err != nil {
				t.Fatalf("RewriteID(%s): %v", tt.in, err)
			}
			if string(got) != "prefix:"+tt.want {
				t.Errorf("RewriteID(%s)\n got %s\nwant prefix:%s", tt.in, got, tt.want)
			}
		})
	}
}

func TestRewriteIDMalformed(t *testing.T) {
	inputs := []string{
		``, ` `, `null`, `[]`, `"id"`, `1`, `{`, `}`, `{"id"}`, `{"id":}`, `{"id":"x",}`, `{,}`,
		`{"id":"x"} x`, `{"id":"x"}{}`, `{id:"x"}`, `{"a":tru}`, `{"a":01}`, `{"a":1.}`, `{"a":-}`,
		`{"a":1e}`, `{"a":"\x"}`, `{"a":"\u12"}`, "{\"a\":\"\x01\"}", `{"a":[1,]}`, `{"a":{"b"}}`,
		`{"a":"unterminated}`, `{'a':1}`, `{"a":1 "b":2}`, `{"a":[}`, `{"a":NaN}`,
		strings.Repeat(`{"a":`, jsonscan.MaxDepth+1) + "1" + strings.Repeat("}", jsonscan.MaxDepth+1),
	}
	for _, in := range inputs {
		got, err := RewriteID([]byte("keep"), []byte(in), "ours")
		if !errors.Is(err, ErrMalformedChunk) {
			t.Errorf("RewriteID(%.40q) error = %v, want ErrMalformedChunk", in, err)
		}
		if string(got) != "keep" {
			t.Errorf("RewriteID(%.40q) left %q in dst", in, got)
		}
	}
}

func TestRewriteIDDepthLimit(t *testing.T) {
	// The scanner accepts the nesting encoding/json accepts.
	for _, levels := range []int{jsonscan.MaxDepth - 1, jsonscan.MaxDepth, jsonscan.MaxDepth + 1} {
		deep := []byte(strings.Repeat(`{"a":`, levels) + "[]" + strings.Repeat("}", levels))
		_, err := RewriteID(nil, deep, "x")
		if (err == nil) != json.Valid(deep) {
			t.Errorf("%d levels: RewriteID error %v, json.Valid %v", levels, err, json.Valid(deep))
		}
	}
}

func TestRewriteIDEscapesID(t *testing.T) {
	got, err := RewriteID(nil, []byte(`{"id":"a"}`), "q\"\\\n")
	if err != nil || string(got) != `{"id":"q\"\\\n"}` {
		t.Errorf("got %s, %v", got, err)
	}
}

func TestField(t *testing.T) {
	tests := []struct {
		name, in, key, want string
		ok                  bool
	}{
		{"top-level error object", `{"error":{"message":"boom","type":"server_error"}}`, "error",
			`{"message":"boom","type":"server_error"}`, true},
		{"error after other keys", `{"id":"x","choices":[],"error":"bad"}`, "error", `"bad"`, true},
		{"nested error ignored", `{"choices":[{"error":{"message":"no"}}]}`, "error", "", false},
		{"error in a string", `{"content":"\"error\":1"}`, "error", "", false},
		{"absent", `{"id":"x"}`, "error", "", false},
		{"not an object", `["error"]`, "error", "", false},
		{"malformed before the key", `{"a":,"error":1}`, "error", "", false},
		{"first of duplicates", `{"k":1,"k":2}`, "k", "1", true},
		{"escaped key", `{"\u0065rror":null}`, "error", "null", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Field([]byte(tt.in), tt.key)
			if ok != tt.ok || string(got) != tt.want {
				t.Errorf("Field(%s, %q) = %s, %v; want %s, %v", tt.in, tt.key, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestLeadingValue(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{`"stop"}]}`, `"stop"`, true},
		{" \n\"a\\\"b\",", `"a\"b"`, true},
		{`null}`, `null`, true},
		{`{"a":[1,2]},"b"`, `{"a":[1,2]}`, true},
		{`12.5e3,`, `12.5e3`, true},
		{`"open`, "", false},
		{"\"a\x01\"", "", false},
		{``, "", false},
		{`}`, "", false},
	}
	for _, tt := range tests {
		got, ok := LeadingValue([]byte(tt.in))
		if ok != tt.ok || string(got) != tt.want {
			t.Errorf("LeadingValue(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
