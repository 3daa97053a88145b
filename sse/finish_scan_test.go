package sse

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// splitFinishJSON is splitFinish as it was written first, with
// encoding/json: the reference FuzzSplitFinish holds splitFinish to.
func splitFinishJSON(raw []byte) (reason string, rest []byte, ok bool) {
	if !HasFinishReason(raw) {
		return "", nil, false
	}
	var c struct {
		Choices []struct {
			Delta        map[string]json.RawMessage `json:"delta"`
			FinishReason json.RawMessage            `json:"finish_reason"`
		} `json:"choices"`
		Usage json.RawMessage `json:"usage"`
	}
	if json.Unmarshal(raw, &c) != nil || len(c.Choices) != 1 {
		return "", nil, false
	}
	ch := c.Choices[0]
	r, err := strconv.Unquote(string(ch.FinishReason))
	if err != nil || r == "" {
		return "", nil, false
	}
	if emptyDeltaMap(ch.Delta) && (len(c.Usage) == 0 || string(c.Usage) == "null") {
		return r, nil, true
	}
	i := bytes.Index(raw, finishReasonKey) + len(finishReasonKey)
	v, vok := LeadingValue(raw[i:])
	if !vok || bytes.Count(raw, finishReasonKey) != 1 {
		return "", nil, false
	}
	start := i + bytes.Index(raw[i:], v)
	out := make([]byte, 0, len(raw))
	out = append(append(append(out, raw[:start]...), "null"...), raw[start+len(v):]...)
	return r, out, true
}

// emptyDeltaMap is the reference's test of a decoded delta.
func emptyDeltaMap(d map[string]json.RawMessage) bool {
	for k, v := range d {
		switch k {
		case "role":
		case "content", "refusal":
			if s := string(v); s != "null" && s != `""` {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// finishSeeds are finish chunks, usual and not: the layouts of the
// platforms, then what encoding/json reads in its own way (keys in another
// case or spelled with escapes or non-ASCII letters that fold to ASCII,
// duplicate members, values of the wrong type, nesting).
var finishSeeds = []string{
	`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}`,
	`{"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":null},"finish_reason":"length"}]}`,
	`{"id":"c","choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}],"usage":null}`,
	`{"id":"c","choices":[{"index":0,"delta":{"content":"!"},"finish_reason":"stop"}]}`,
	`{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":1}}`,
	`{"id":"c","choices":[{"index":0,"delta":{"refusal":"no"},"finish_reason":"stop"}]}`,
	`{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[]},"finish_reason":"tool_calls"}]}`,
	`{"id":"c","choices":[{"delta":{},"finish_reason":"stop"},{"delta":{},"finish_reason":"stop"}]}`,
	`{"id":"c","choices":[],"finish_reason":"stop"}`,
	`{"choices":null,"finish_reason":"stop"}`,
	`{"choices":[null],"finish_reason":"stop"}`,
	`{"choices":[{"delta":null,"finish_reason":"stop"}]}`,
	`{"choices":[{"delta":{},"finish_reason":"st\u006fp"}]}`,
	`{"choices":[{"delta":{},"finish_reason":"a\/b"}]}`,
	`{"choices":[{"delta":{},"finish_reason":""}]}`,
	`{"choices":[{"delta":{},"finish_reason":1}]} `,
	`{"Choices":[{"delta":{},"finish_reason":"stop"}]}`,
	`{"CHOICES":[{"Delta":{"content":"x"},"FINISH_REASON":"stop"}],"finish_reason":"stop"}`,
	`{"choices":[{"delta":{},"finish_reason":"stop"}],"choices":[{"delta":{"content":"x"},"finish_reason":"stop"}]}`,
	`{"choices":[{"delta":{"content":"x"},"finish_reason":"stop"}],"choices":[{"finish_reason":"stop"}]}`,
	`{"choices":[{"delta":{"content":"x","content":null},"finish_reason":"stop"}]}`,
	`{"choices":[{"delta":{"content":null},"delta":{"refusal":"r"},"finish_reason":"stop"}]}`,
	`{"choices":[{"delta":{},"finish_reason":"length","finish_reason":"stop"}]}`,
	`{"ch\u006fices":[{"delta":{},"finish_reason":"stop"}]}`,
	`{"choices":[{"d\u0065lta":{"content":"x"},"finish_reason":"stop"}]}`,
	`{"choices":[{"delta":{"c\u006fntent":"x"},"finish_reason":"stop"}]}`,
	"{\"choice\u017f\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}",
	"{\"choices\":[{\"delta\":{},\"finish_rea\u017fon\":\"stop\"}],\"finish_reason\":\"x\"}",
	"{\"choices\":[{\"delta\":{\"\xff\":1},\"finish_reason\":\"stop\"}]}",
	`{"choices":[{"delta":{},"finish_reason":"stop"}],"u\u0073age":{"a":1}}`,
	`{"choices":[{"delta":{},"finish_reason":"stop"}],"USAGE":{"a":1}}`,
	`{"choices":[{"delta":{},"finish_reason":"stop"}],"usage":{"a":1},"usage":null}`,
	`{"choices":{"delta":{},"finish_reason":"stop"}}`,
	`{"choices":"x","finish_reason":"stop"}`,
	`{"choices":[1],"finish_reason":"stop"}`,
	`{"choices":[{"delta":[],"finish_reason":"stop"}]}`,
	`{"choices":[{"delta":"x","finish_reason":"stop"}]}`,
	`{"choices":[{"delta":{},"finish_reason":"stop"}],"x":[[[[[[[[1]]]]]]]]}`,
	`{"choices":[{"delta":{},"finish_reason":"stop"}]`,
	`{"choices":[{"delta":{},"finish_reason":"stop"}]}x`,
	`[{"choices":[{"delta":{},"finish_reason":"stop"}]}]`,
	"{\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}] ,\n\"usage\" : null }",
	"{\"choices\":[{\"delta\":{},\"finish_reason\":\"\xff\"}]}",
	`{"choices":[{"delta":{"content":"x"},"finish_reason":"stop","x":{"finish_reason":"y"}}]}`,
}

// FuzzSplitFinish holds splitFinish to the reference that decodes the
// chunk with encoding/json: the same reason, chunk to relay and verdict on
// every input.
func FuzzSplitFinish(f *testing.F) {
	for _, s := range finishSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		reason, rest, ok := splitFinish(raw)
		wantReason, wantRest, wantOK := splitFinishJSON(raw)
		if reason != wantReason || !bytes.Equal(rest, wantRest) || (rest == nil) != (wantRest == nil) || ok != wantOK {
			t.Fatalf("splitFinish(%q) = %q, %q, %v; encoding/json: %q, %q, %v", raw, reason, rest, ok, wantReason, wantRest, wantOK)
		}
	})
}

// TestSplitFinishSeeds runs the fuzz seeds and each with its delta
// emptied, without -fuzz too, and chunks nested as deep as encoding/json
// takes and one level deeper.
func TestSplitFinishSeeds(t *testing.T) {
	seeds := slices.Clone(finishSeeds)
	for _, n := range []int{9996, 9997, 9998} {
		seeds = append(seeds, `{"choices":[{"delta":{},"finish_reason":"stop","x":`+strings.Repeat("[", n)+strings.Repeat("]", n)+`}]}`,
			`{"choices":[{"delta":{"x":`+strings.Repeat("[", n)+strings.Repeat("]", n)+`},"finish_reason":"stop"}]}`)
	}
	for _, s := range seeds {
		for _, raw := range []string{s, string(bytes.ReplaceAll([]byte(s), []byte(`"x"`), []byte(`null`)))} {
			reason, rest, ok := splitFinish([]byte(raw))
			wantReason, wantRest, wantOK := splitFinishJSON([]byte(raw))
			if reason != wantReason || !bytes.Equal(rest, wantRest) || ok != wantOK {
				t.Errorf("splitFinish(%q) = %q, %q, %v; encoding/json: %q, %q, %v", raw, reason, rest, ok, wantReason, wantRest, wantOK)
			}
		}
	}
}

// TestSplitFinishAllocs: the finish chunk every stream ends with is read
// without decoding it: its reason is the one allocation.
func TestSplitFinishAllocs(t *testing.T) {
	raw := []byte(finishSeeds[0])
	n := testing.AllocsPerRun(100, func() {
		if reason, rest, ok := splitFinish(raw); !ok || rest != nil || reason != "stop" {
			t.Fatalf("splitFinish = %q, %q, %v", reason, rest, ok)
		}
	})
	if n > 1 {
		t.Errorf("splitFinish of a finish chunk: %v allocations, want at most 1", n)
	}
}

// BenchmarkSplitFinish reads the finish chunk every stream ends with:
// scanned (splitFinish) and decoded with encoding/json (the reference).
func BenchmarkSplitFinish(b *testing.B) {
	raw := []byte(`{"id":"chatcmpl-9xYzAbCdEfGhIjKlMnOpQrStUvW","object":"chat.completion.chunk","created":1712345678,` +
		`"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_abc123","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}`)
	for _, bc := range []struct {
		name  string
		split func([]byte) (string, []byte, bool)
	}{{"scan", splitFinish}, {"encoding-json", splitFinishJSON}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, ok := bc.split(raw); !ok {
					b.Fatal("not a finish chunk")
				}
			}
		})
	}
}
