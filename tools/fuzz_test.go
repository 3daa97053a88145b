package tools

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent/toolspec"
)

func FuzzValidate(f *testing.F) {
	for _, s := range []string{
		`{"pattern":"x"}`, `{"pattern":"","limit":0}`, `{"paths":["a",{"b":null}],"limit":1e308}`,
		`{"mode":"fast","extra":[[[]]]}`, `{}`, `{"limit":-0.0}`, `{"pattern":"\u0000"}`,
	} {
		f.Add(s)
	}
	tool := searchTool(f)
	f.Fuzz(func(t *testing.T, doc string) {
		var params map[string]any
		if json.Unmarshal([]byte(doc), &params) != nil {
			return
		}
		err := tool.Validate(params)
		if err != nil && !strings.HasPrefix(err.Error(), "invalid parameters: ") {
			t.Fatalf("error without the prefix: %v", err)
		}
	})
}

// fuzzDeclared are the names FuzzNativeArgs declares, sorted.
var fuzzDeclared = []string{"a", "k", "m", "n", "ok", "q", "run", "sp", "t"}

func FuzzNativeArgs(f *testing.F) {
	for _, s := range []string{
		`{"a":"b"}`, `{"q":"$(id); rm -rf / | cat"}`, `{"t":[1,"x",{"k":"v"},null,true]}`,
		`{"a=b":"c"}`, `{"--x":"y"}`, `{"k":"a\u0000b"}`, `{"n":1e300,"m":-0.5}`, `{"":1}`,
		`{"ok":"line\nbreak","sp":"  spaced  "}`, `{"exec":"sh -c id"}`, `{"run":"-exec=sh -c id"}`,
		`{"t":["--toolexec=x","-vettool","--"]}`, `{"run":"x","vettool":"/bin/sh"}`,
	} {
		f.Add(s, "cmd")
	}
	f.Fuzz(func(t *testing.T, doc, command string) {
		var params map[string]any
		if json.Unmarshal([]byte(doc), &params) != nil {
			return
		}
		argv, err := nativeArgv("/bin/tool", []string{"--fixed"}, command, fuzzDeclared, params)
		if err != nil {
			if re, ok := err.(*toolspec.ResultError); !ok || re.Code != toolspec.CodeInvalidParameters {
				t.Fatalf("error %v is not INVALID_PARAMETERS", err)
			}
			return
		}
		for k := range params {
			if _, ok := slices.BinarySearch(fuzzDeclared, k); !ok {
				t.Fatalf("undeclared parameter %q accepted: argv %q", k, argv)
			}
		}
		if len(argv) < 3 || argv[0] != "/bin/tool" || argv[1] != "--fixed" || argv[2] != command {
			t.Fatalf("argv prefix %q", argv)
		}
		checkFlags(t, argv[3:], params)
	})
}

// checkFlags checks that rest is --key=value entries, keys declared and
// sorted, and each value exactly one parameter value or array element:
// nothing split, joined or quoted, no entry a flag of its own.
func checkFlags(t *testing.T, rest []string, params map[string]any) {
	t.Helper()
	counts := map[string]int{}
	prev := ""
	for _, arg := range rest {
		flag, val, ok := strings.Cut(arg, "=")
		key, dashed := strings.CutPrefix(flag, "--")
		if _, declared := slices.BinarySearch(fuzzDeclared, key); !ok || !dashed || !declared || key < prev {
			t.Fatalf("bad or unsorted flag %q after %q", arg, prev)
		}
		prev = key
		v := params[key]
		if arr, ok := v.([]any); ok {
			v = arr[counts[key]]
		}
		counts[key]++
		want, err := argValue(v)
		if err != nil || val != want {
			t.Fatalf("--%s value %q, want %q (%v)", key, val, want, err)
		}
		if s, ok := v.(string); ok && val != s {
			t.Fatalf("string value changed: %q -> %q", s, val)
		}
	}
	for k, v := range params {
		n := 1
		if arr, ok := v.([]any); ok {
			n = len(arr)
		}
		if counts[k] != n {
			t.Fatalf("parameter %q appears %d times, want %d", k, counts[k], n)
		}
	}
}
