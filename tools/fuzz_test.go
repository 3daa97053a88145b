package tools

import (
	"encoding/json"
	"strings"
	"testing"
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

func FuzzNativeArgs(f *testing.F) {
	for _, s := range []string{
		`{"a":"b"}`, `{"q":"$(id); rm -rf / | cat"}`, `{"t":[1,"x",{"k":"v"},null,true]}`,
		`{"a=b":"c"}`, `{"--x":"y"}`, `{"k":"a\u0000b"}`, `{"n":1e300,"m":-0.5}`, `{"":1}`,
		`{"ok":"line\nbreak","sp":"  spaced  "}`,
	} {
		f.Add(s, "cmd")
	}
	f.Fuzz(func(t *testing.T, doc, command string) {
		var params map[string]any
		if json.Unmarshal([]byte(doc), &params) != nil {
			return
		}
		argv, err := nativeArgv("/bin/tool", []string{"--fixed"}, command, params)
		if err != nil {
			if re, ok := err.(*ResultError); !ok || re.Code != CodeInvalidParameters {
				t.Fatalf("error %v is not INVALID_PARAMETERS", err)
			}
			return
		}
		if len(argv) < 3 || argv[0] != "/bin/tool" || argv[1] != "--fixed" || argv[2] != command {
			t.Fatalf("argv prefix %q", argv)
		}
		checkFlagPairs(t, argv[3:], params)
	})
}

// checkFlagPairs checks that rest is --key value pairs, keys sorted and
// valid, and each value exactly one parameter value or array element:
// nothing split, joined or quoted.
func checkFlagPairs(t *testing.T, rest []string, params map[string]any) {
	t.Helper()
	if len(rest)%2 != 0 {
		t.Fatalf("odd flag list %q", rest)
	}
	counts := map[string]int{}
	prev := ""
	for i := 0; i < len(rest); i += 2 {
		key, ok := strings.CutPrefix(rest[i], "--")
		if !ok || !argKeyRE.MatchString(key) || key < prev {
			t.Fatalf("bad or unsorted flag %q after %q", rest[i], prev)
		}
		prev = key
		v := params[key]
		if arr, ok := v.([]any); ok {
			v = arr[counts[key]]
		}
		counts[key]++
		want, err := argValue(v)
		if err != nil || rest[i+1] != want {
			t.Fatalf("--%s value %q, want %q (%v)", key, rest[i+1], want, err)
		}
		if s, ok := v.(string); ok && rest[i+1] != s {
			t.Fatalf("string value changed: %q -> %q", s, rest[i+1])
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
