package tools

import (
	"context"
	"testing"

	"github.com/agentgw/agentgw/agent/toolspec"
)

func BenchmarkValidate(b *testing.B) {
	tool := searchTool(b)
	params := map[string]any{"pattern": "x", "limit": 5.0, "paths": []any{"a", "b"}, "mode": "fast"}
	b.ReportAllocs()
	for b.Loop() {
		if err := tool.Validate(params); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCallBuiltin(b *testing.B) {
	m := NewManager(Config{Builtins: map[string]BuiltinFunc{"search": noop}})
	tool := mustCompile(b, m, searchSpec(), ".")
	c := Call{ID: "c", Parameters: map[string]any{"pattern": "x"}}
	b.ReportAllocs()
	for b.Loop() {
		if res := tool.Call(context.Background(), c); res.Status != toolspec.StatusSuccess {
			b.Fatal(res.Error)
		}
	}
}

func BenchmarkNativeArgv(b *testing.B) {
	params := map[string]any{"pattern": "x", "limit": 5.0, "paths": []any{"a", "b"}, "opts": map[string]any{"k": true}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := nativeArgv("/bin/t", nil, "run", []string{"limit", "opts", "paths", "pattern"}, params); err != nil {
			b.Fatal(err)
		}
	}
}
