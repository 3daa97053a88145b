package remote_test

import (
	"encoding/json"
	"maps"
	"testing"

	"github.com/agentgw/agentgw/remote"
)

func TestSetAgent(t *testing.T) {
	tests := []struct{ body, name, want string }{
		{`{"agent":"a","command":"c"}`, "b", `{"agent":"b","command":"c"}`},
		{`{"command":"c"}`, "b", `{"agent":"b","command":"c"}`},
		{`{}`, "b", `{"agent":"b"}`},
		{" { } ", "b", ` {"agent":"b" } `},
		{`{"agent":null}`, "b", `{"agent":"b"}`},
		{`{"agent" : {"nested":"agent"} ,"x":{"agent":"inner"}}`, "b", `{"agent" : "b" ,"x":{"agent":"inner"}}`},
		{`{"\u0061gent":"a","agent":"a2"}`, "b", `{"\u0061gent":"b","agent":"b"}`},
		{`{"agents":"a","Agent":"a"}`, "b", `{"agent":"b","agents":"a","Agent":"a"}`},
		{`{"agent":"a"}`, "quo\"te<&>", `{"agent":"quo\"te\u003c\u0026\u003e"}`},
		{"{\"m\":[1,\n2],\"agent\":\"a\"}", "b", "{\"m\":[1,\n2],\"agent\":\"b\"}"},
	}
	for _, tt := range tests {
		got, err := remote.SetAgent([]byte(tt.body), tt.name)
		if err != nil || string(got) != tt.want {
			t.Errorf("SetAgent(%s, %q) = %s, %v; want %s", tt.body, tt.name, got, err, tt.want)
		}
	}
	for _, bad := range []string{``, `[]`, `"s"`, `{`, `{"agent":}`, `{"a":1} x`, `{"a":1,}`} {
		if got, err := remote.SetAgent([]byte(bad), "b"); err == nil {
			t.Errorf("SetAgent(%s) = %s, want an error", bad, got)
		}
	}
}

// FuzzSetAgent: for any body encoding/json reads as an object, the result
// is valid JSON that reads as the same object with agent set, and the
// body itself is not modified.
func FuzzSetAgent(f *testing.F) {
	for _, s := range []string{`{}`, `{"agent":"a","command":"c"}`, `{"\u0061gent":1,"agent":[1]}`, ` {"x":{"agent":2}} `, `{"a":"\ud800"}`} {
		f.Add([]byte(s), "name")
	}
	f.Fuzz(func(t *testing.T, body []byte, name string) {
		orig := string(body)
		got, err := remote.SetAgent(body, name)
		if string(body) != orig {
			t.Fatal("SetAgent modified its input")
		}
		var want map[string]any
		if json.Unmarshal(body, &want) != nil || want == nil {
			return // not an object encoding/json reads; SetAgent may refuse it or not
		}
		if err != nil {
			t.Fatalf("SetAgent(%q): %v", body, err)
		}
		var have map[string]any
		if err := json.Unmarshal(got, &have); err != nil {
			t.Fatalf("SetAgent(%q) = %q: %v", body, got, err)
		}
		var wantName string
		_ = json.Unmarshal(mustMarshal(name), &wantName) // the name as JSON reads it back (invalid UTF-8 replaced)
		want["agent"] = wantName
		if !maps.EqualFunc(want, have, func(a, b any) bool { return string(mustMarshal(a)) == string(mustMarshal(b)) }) {
			t.Fatalf("SetAgent(%q) = %q", body, got)
		}
	})
}

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
