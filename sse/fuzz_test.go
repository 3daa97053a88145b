package sse

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func FuzzReader(f *testing.F) {
	seeds := []string{
		"data: {\"a\":1}\n\n", "event: error\ndata: x\n\n", "data: a\r\ndata: b\r\n\r\n", "data: a\r\r",
		": c\n\ndata\n\n", "id: 1\ndata:  x\n", "\uFEFFdata: a\n\n", "event: a\nevent: b\n\ndata: [DONE]\n\n",
		"data: \n\ndata:\r\ndata: x\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		events := readAll(t, bytes.NewReader(in))
		var out bytes.Buffer
		w := NewWriter(&out, goldenOptions)
		for _, ev := range events {
			if bytes.ContainsAny(ev.Data, "\r") || strings.ContainsAny(ev.Name, "\r\n") {
				t.Fatalf("event with a line break in a wrong place: %q", ev)
			}
			if err := w.Event(ev.Name, ev.Data); err != nil {
				t.Fatalf("Event(%q): %v", ev.Name, err)
			}
		}
		again := readAll(t, &out)
		for i := range again {
			again[i].ID = ""
		}
		for i := range events {
			events[i].ID = ""
		}
		if !sameEvents(events, again) {
			t.Fatalf("round trip through Writer.Event changed the events\nbefore %q\nafter  %q", events, again)
		}
	})
}

// chunkSeeds are inputs for the chunk fuzzers.
var chunkSeeds = []string{
	upstreamChunk, `{}`, `{"id":1}`, `{"a":"\"id\"","id":"x"}`, `{"\u0069d":"x"}`, `{"id":"a","id":"b"}`,
	"{\n\"x\":[1,2.5e-3,true,false,null]\n}", `[]`, `{"a":}`, `{"choices":[{"id":"c"}]}`, `{"a":"\ud800"}`,
	"{\"a\":\"\xff\"}", `{"id":{"id":{}}}`,
}

// fastSeeds are chunks near the edges of the fast path.
var fastSeeds = []string{
	typicalChunk, `{"id":"x"}`, `{"id":"x","a":1}`, `{"id":"x"}}`, `{"id":"x","id":"y"}`, `{"id":"x","\u0069d":"y"}`,
	`{"id":"x\"","a":1}`, `{"id":"x" ,"a":1}`, `{"id":"x","a":[}`, "{\"id\":\"x\",\"a\":\n1}", `{"id":"x","a":"id"}`,
	`{"id":"x","b":{"id":1}}`, `{"id":"","a":"\u0060"}`, `{"id":"\u0041","a":1}`, "{\"id\":\"x\x01\",\"a\":1}",
}

func FuzzRewriteID(f *testing.F) {
	for _, s := range chunkSeeds {
		f.Add([]byte(s), "ours")
	}
	f.Add([]byte(`{"x":1}`), "q\"\\\n\xff")
	f.Fuzz(func(t *testing.T, in []byte, id string) {
		out, err := RewriteID(nil, in, id)
		checkRewritten(t, in, out, err, id)
	})
}

func FuzzChunk(f *testing.F) {
	for _, s := range chunkSeeds {
		f.Add([]byte(s))
	}
	for _, s := range fastSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var buf bytes.Buffer
		w := NewWriter(&buf, goldenOptions)
		err := w.Chunk(in)
		if err != nil {
			if buf.Len() != 0 {
				t.Fatalf("a rejected chunk wrote %q", buf.Bytes())
			}
			checkRewritten(t, in, nil, err, w.ID())
			return
		}
		frame := buf.Bytes()
		if !bytes.HasPrefix(frame, []byte("data: ")) || !bytes.HasSuffix(frame, []byte("\n\n")) {
			t.Fatalf("not a data frame: %q", frame)
		}
		body := frame[len("data: ") : len(frame)-2]
		if bytes.ContainsAny(body, "\r\n") {
			t.Fatalf("frame body spans lines: %q", frame)
		}
		if _, fast := fastRest(in); fast {
			checkFast(t, in, body, w.ID())
			return
		}
		checkRewritten(t, in, body, nil, w.ID())
	})
}

// checkFast checks the output of the fast path: for a valid JSON object the
// same bytes RewriteID gives; for any input our id first and no other way
// to spell the key "id" after it.
func checkFast(t *testing.T, in, body []byte, id string) {
	t.Helper()
	if _, isObject := decodeObject(in); isObject {
		want, err := RewriteID(nil, in, id)
		if err != nil || !bytes.Equal(body, want) {
			t.Fatalf("fast path gave %q, RewriteID %q, %v", body, want, err)
		}
		checkRewritten(t, in, body, nil, id)
		return
	}
	head := append([]byte(`{"id":`), AppendString(nil, id)...)
	rest, ok := bytes.CutPrefix(body, head)
	if !ok || !bytes.HasSuffix(body, []byte("}")) {
		t.Fatalf("fast path output %q does not start with %s", body, head)
	}
	if bytes.Contains(rest, []byte(`"id"`)) || bytes.Contains(rest, []byte(`\u006`)) {
		t.Fatalf("fast path output %q may carry a second top-level id", body)
	}
}

// checkRewritten checks the result of rewriting the id of in: either in is
// not a JSON object and err is ErrMalformedChunk, or out is a JSON object
// whose top-level "id" is id and whose other members are those of in.
func checkRewritten(t *testing.T, in, out []byte, err error, id string) {
	t.Helper()
	before, isObject := decodeObject(in)
	if err != nil {
		if !errors.Is(err, ErrMalformedChunk) {
			t.Fatalf("error %v does not wrap ErrMalformedChunk", err)
		}
		if isObject {
			t.Fatalf("valid object %q rejected: %v", in, err)
		}
		return
	}
	if !isObject {
		t.Fatalf("%q is no JSON object but was accepted as %q", in, out)
	}
	after, ok := decodeObject(out)
	if !ok {
		t.Fatalf("output %q is not a JSON object", out)
	}
	if want := string([]rune(id)); after["id"] != want {
		t.Fatalf("top-level id = %#v, want %q (output %q)", after["id"], want, out)
	}
	delete(before, "id")
	delete(after, "id")
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("content changed\n in %q\nout %q", in, out)
	}
}

// decodeObject decodes a JSON object, numbers kept as text.
func decodeObject(b []byte) (map[string]any, bool) {
	if !json.Valid(b) {
		return nil, false
	}
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return m, d.Decode(&m) == nil && m != nil
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "q\"b\\", "\x00\x1f\x7f", "\xff\xfe", "\u2028\u2029", "é世界😀", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		enc := AppendString(nil, s)
		var dec string
		if err := json.Unmarshal(enc, &dec); err != nil {
			t.Fatalf("AppendString(%q) = %s: invalid JSON: %v", s, enc, err)
		}
		if want := string([]rune(s)); dec != want {
			t.Fatalf("AppendString(%q) decodes to %q, want %q", s, dec, want)
		}
	})
}

func FuzzAppendUnquoted(f *testing.F) {
	for _, s := range []string{`""`, `"a"`, `"\n\t\"\\\/\b\f\r"`, `"\u00e9\ud83d\ude00"`, `"\ud83d"`, `"\ud83dx"`,
		`"\ud83d\u0041"`, `"\udc00\ud800"`, "\"\xff\xfe\"", `"\u12"`, `"\x"`, `"a\"`, `"`, "\"\x01\"", `"a"b"`, `"é"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, q []byte) {
		got, ok := AppendUnquoted([]byte("pre"), q)
		var want string
		err := json.Unmarshal(q, &want)
		isString := len(q) > 1 && q[0] == '"' && q[len(q)-1] == '"'
		if ok != (err == nil && isString) {
			t.Fatalf("AppendUnquoted(%q) ok = %v, encoding/json: %v", q, ok, err)
		}
		if ok && string(got) != "pre"+want {
			t.Fatalf("AppendUnquoted(%q) = %q, encoding/json: %q", q, got[3:], want)
		}
		if !ok && string(got) != "pre" {
			t.Fatalf("AppendUnquoted(%q) failed but changed dst to %q", q, got)
		}
	})
}

// FuzzField checks Field against encoding/json: on a valid object it finds
// the first member whose key decodes to the one asked for, or none.
func FuzzField(f *testing.F) {
	for _, s := range chunkSeeds {
		f.Add([]byte(s), "id")
	}
	f.Add([]byte(`{"\u0065rror":null,"error":1}`), "error")
	f.Fuzz(func(t *testing.T, in []byte, key string) {
		got, ok := Field(in, key)
		if ok && !json.Valid(got) {
			t.Fatalf("Field(%q, %q) = %q: not JSON", in, key, got)
		}
		if _, isObject := decodeObject(in); !isObject {
			return
		}
		var want json.RawMessage
		found := false
		d := json.NewDecoder(bytes.NewReader(in))
		if _, err := d.Token(); err != nil {
			t.Fatal(err)
		}
		for d.More() && !found {
			k, err := d.Token()
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Decode(&want); err != nil {
				t.Fatal(err)
			}
			found = k == key
		}
		if ok != found || (ok && !bytes.Equal(got, want)) {
			t.Fatalf("Field(%q, %q) = %q, %v; encoding/json %q, %v", in, key, got, ok, want, found)
		}
	})
}

// FuzzLeadingValue: a valid JSON text is its own leading value; whatever
// LeadingValue returns is valid JSON.
func FuzzLeadingValue(f *testing.F) {
	for _, s := range chunkSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(" \n\"a\\\"b\","))
	f.Fuzz(func(t *testing.T, in []byte) {
		got, ok := LeadingValue(in)
		if ok && !json.Valid(got) {
			t.Fatalf("LeadingValue(%q) = %q: not JSON", in, got)
		}
		if json.Valid(in) && (!ok || !bytes.Equal(got, bytes.TrimSpace(in))) {
			t.Fatalf("LeadingValue(%q) = %q, %v", in, got, ok)
		}
	})
}
