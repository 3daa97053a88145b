package chat

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// FuzzChoices offers the actions of arbitrary streams as choices: nothing
// panics, every feedback body encodes to JSON that echoes the action's
// state, and merging an expand's answer into its tree works.
func FuzzChoices(f *testing.F) {
	// Small seeds: minimizing each new input costs time per byte.
	f.Add(actionFrame(`{"action":"confirm","state":"s","data":{"title":"t","command":"c"}}`) +
		actionFrame(`{"action":"confirm","state":{"a" : [1, 2.50e3]},"data":{"title":"t"}}`))
	f.Add(actionFrame(`{"action":"tree","state":7,"data":{"treeId":"t","rootPId":"0","nodes":[{"id":"a","pId":"0","type":"d","p":"x"},{"id":"b","pId":"a","type":"d"}],`+
		`"nodeActions":[{"nodeType":"d","nodeAction":"expand"},{"nodeType":"d","nodeAction":"click","promptByNodeProperty":"p"}]}}`) +
		actionFrame(`{"action":"tree","data":{"treeId":"t","nodes":[{"id":"c","pId":"a","type":"f"}],"nodeActions":[{"nodeType":"f","nodeAction":"click"}]}}`))
	f.Add(actionFrame(`{"action":"tree","data":{"treeId":"t","nodes":[null,{"id":1,"pId":null},{"id":{"a":1},"pId":""},{"pId":""}],` +
		`"nodeActions":[{"nodeAction":"expand"},{"nodeType":"","nodeAction":"click","promptByNodeProperty":"id"}]}}`))
	f.Fuzz(func(t *testing.T, stream string) {
		r := &streamRenderer{out: io.Discard, keep: true}
		_ = r.render(strings.NewReader(stream))
		origin := map[string]any{"agent": "a", "contextVariables": []any{}}
		m := showChoices(io.Discard, nextRound(r.actions, origin, nil))
		merged := false
		for _, c := range m.choices {
			if c.expand && !merged { // once: it draws the whole tree again
				showChoices(io.Discard, nextRound(r.actions, origin, c))
				merged = true
			}
			if c.feedback == nil {
				continue
			}
			b := baseBody(c.from.origin)
			b["action"] = c.feedback
			data, err := encodeBody(b)
			if err != nil {
				t.Fatalf("encoding feedback: %v", err)
			}
			var back struct {
				Action struct {
					State json.RawMessage `json:"state"`
				} `json:"action"`
			}
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatalf("feedback %s is not JSON: %v", data, err)
			}
			want := []byte("null")
			if len(c.from.State) > 0 {
				var buf bytes.Buffer
				if err := json.Compact(&buf, c.from.State); err != nil {
					t.Fatalf("a received state is not JSON: %v", err)
				}
				want = buf.Bytes()
			}
			if !bytes.Equal(back.Action.State, want) {
				t.Errorf("state %s echoed as %s", want, back.Action.State)
			}
		}
	})
}
