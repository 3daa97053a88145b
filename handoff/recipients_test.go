package handoff

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestRecipients(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Recipients
		out  string
	}{
		{`"pool"`, Recipients{"pool"}, `"pool"`},
		{`["a"]`, Recipients{"a"}, `"a"`},
		{`["a", "b"]`, Recipients{"a", "b"}, `["a","b"]`},
		{`[]`, Recipients{}, `[]`},
	} {
		var r Recipients
		if err := json.Unmarshal([]byte(c.in), &r); err != nil || !slices.Equal(r, c.want) {
			t.Errorf("%s: %q, %v; want %q", c.in, r, err, c.want)
		}
		if out, err := json.Marshal(r); err != nil || string(out) != c.out {
			t.Errorf("%s: encoded %s, %v; want %s", c.in, out, err, c.out)
		}
	}
	if out, _ := json.Marshal(Recipients(nil)); string(out) != `[]` {
		t.Errorf("nil encoded %s", out)
	}
	var r Recipients
	if err := json.Unmarshal([]byte(`5`), &r); err == nil {
		t.Error("a number decoded as recipients")
	}
	if (Recipients{"a"}).IsPool() || !(Recipients{"a", "b"}).IsPool() {
		t.Error("IsPool")
	}
}
