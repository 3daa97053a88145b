package contextvars

import (
	"reflect"
	"testing"
)

// TestPromptSet: PromptSet is the Set the list it stands for decodes to.
func TestPromptSet(t *testing.T) {
	for _, tc := range []struct {
		list   string
		prompt string
		global []Prompt
	}{
		{`[{"name":"userInputPrompt","value":""}]`, "", nil},
		{`[{"name":"userInputPrompt","value":"fix it"}]`, "fix it", nil},
		{`[{"name":"userInputPrompt","value":"q"},{"name":"globalPrompts","value":[]}]`, "q", []Prompt{}},
		{`[{"name":"userInputPrompt","value":"q"},{"name":"globalPrompts","value":[{"role":"system","content":"a"},{"role":"system","content":"b"}]}]`,
			"q", []Prompt{{Role: "system", Content: "a"}, {Role: "system", Content: "b"}}},
	} {
		want, err := Decode([]byte(tc.list))
		if err != nil {
			t.Fatal(err)
		}
		if got := PromptSet(tc.prompt, tc.global); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %#v\nwant %#v", tc.list, got, want)
		}
	}
}
