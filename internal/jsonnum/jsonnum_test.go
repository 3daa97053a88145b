package jsonnum

import (
	"reflect"
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

func TestDecodeNormalize(t *testing.T) {
	var v map[string]any
	if err := Decode([]byte(`{"a": 10000000, "b": 1.5, "c": [1, 2e3, {"d": 9007199254740993}], "e": 1e400, "f": "x"}`), &v); err != nil {
		t.Fatal(err)
	}
	got := Normalize(v)
	want := map[string]any{"a": 10000000, "b": 1.5, "c": []any{1, 2000, map[string]any{"d": 9007199254740993}}, "e": "1e400", "f": "x"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v, want %#v", got, want)
	}
}

func TestDecodeTrailing(t *testing.T) {
	var v any
	if err := Decode([]byte(`{} {}`), &v); err == nil || err.Error() != "data after the value" {
		t.Fatalf("got %v", err)
	}
	if err := Decode([]byte(`{`), &v); err == nil {
		t.Fatal("a truncated value decoded")
	}
}

// TestDeps: jsonnum is a leaf, imports nothing of the project.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/internal/jsonnum")
}
