package actions

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// addGoldenSeeds adds the golden action files as seeds.
func addGoldenSeeds(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

func FuzzParse(f *testing.F) {
	addGoldenSeeds(f)
	for _, s := range []string{
		`{"action":"confirm","state":{"a":[1,2.50,"x"]},"data":{"title":"T","message":"<&>"}}`,
		`{"action":"tree","state":null,"data":{"treeId":"t","rootPId":"","nodes":[{"id":"a","pId":"","type":"f","x":{"y":1e400},"\u00e9":null}],"nodeActions":[{"nodeType":"f","nodeAction":"click","promptByNodeProperty":"x"}]}}`,
		`{"action":"tree","data":{"treeId":"t","nodes":[{"id":"a","lable":[]}]}}`,
		`{"action":"confirm","state":"","data":{"title":"\ud800"}}`,
		`[]`, `null`, `{"action":"tree","data":{"nodes":[null,1,"x"]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := Parse(data)
		if err != nil {
			if a != nil {
				t.Fatalf("Parse returned an action and an error: %v", err)
			}
			return
		}
		if a.Validate() != nil {
			return
		}
		b, err := a.MarshalJSON()
		if err != nil {
			t.Fatalf("valid action %+v does not marshal: %v", a, err)
		}
		again, err := Parse(b)
		if err != nil {
			t.Fatalf("re-parsing %s: %v", b, err)
		}
		if !reflect.DeepEqual(a, again) {
			t.Fatalf("round trip differs:\n%#v\n%#v\nwire %s", a, again, b)
		}
		if err := again.Validate(); err != nil {
			t.Fatalf("re-parsed action is invalid: %v", err)
		}
	})
}

func FuzzDecodeFeedback(f *testing.F) {
	for _, s := range []string{
		`{"action":"confirm","state":"v1.a.b","accepted":true}`,
		`{"action":"confirm","state":{},"accepted":false}`,
		`{"action":"confirm","state":{ "a" : 1 }}`,
		`{"action":"tree","state":"s","treeId":"t1","nodeId":"n7","nodeAction":"expand","node":{"id":"n7","n":1.0}}`,
		`{"action":"tree","state":"s","treeId":1,"nodeId":null,"nodeAction":"open","node":[]}`,
		`{"action":"tree","state":"s","state":"t"}`, `[]`, `"x"`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fb, err := DecodeFeedback(data)
		if err != nil {
			if !errors.Is(err, ErrFeedbackInvalid) {
				t.Fatalf("error %v does not wrap ErrFeedbackInvalid", err)
			}
			return
		}
		b, err := fb.MarshalJSON()
		if err != nil {
			t.Fatalf("decoded feedback %+v does not marshal: %v", fb, err)
		}
		again, err := DecodeFeedback(b)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", b, err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, fb.State); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(compact.Bytes(), again.State) {
			t.Fatalf("state %s came back as %s", fb.State, again.State)
		}
		fb.State, again.State = nil, nil
		if !reflect.DeepEqual(fb, again) {
			t.Fatalf("round trip differs:\n%#v\n%#v", fb, again)
		}
	})
}

func FuzzVerify(f *testing.F) {
	s, _ := newTestSigner(time.Hour)
	signed, err := s.Sign(Claims{Agent: "happy", Command: "default", Kind: KindTree, TreeID: "t"})
	if err != nil {
		f.Fatal(err)
	}
	// Seeds hold no valid token: each fuzz worker signs its own (nonces differ).
	f.Add("v1.eyJhIjoiaGFwcHkiLCJrIjoidHJlZSJ9.Si8bRD2TsX5ld_Y2r1gMiTzCBY5_GL212CTY-VrhY5A", 0, byte(1))
	f.Add("v1.e30.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", 5, byte(0x80))
	f.Add("", 0, byte(0))
	f.Add("v1..", 3, byte('.'))
	f.Fuzz(func(t *testing.T, token string, pos int, mask byte) {
		if c, err := s.Verify(token); err == nil {
			t.Fatalf("an unsigned token verified: %q -> %+v", token, c)
		} else if !errors.Is(err, ErrStateInvalid) {
			t.Fatalf("error %v does not wrap ErrStateInvalid", err)
		}
		// Any single changed byte of a real token is refused.
		if mask == 0 {
			mask = 1
		}
		if pos < 0 {
			pos = -pos
		}
		b := []byte(signed)
		b[pos%len(b)] ^= mask
		if c, err := s.Verify(string(b)); err == nil {
			t.Fatalf("a token with byte %d changed verified: %q -> %+v", pos%len(b), b, c)
		}
		// Signing what the fuzzer made up round-trips.
		in := Claims{Agent: token, Command: string(b[:pos%len(b)]), Kind: KindConfirm, Data: map[string]string{token: "v"}}
		tok, err := s.Sign(in)
		if err != nil {
			return // too large
		}
		c, err := s.Verify(tok)
		if err != nil {
			t.Fatalf("a signed token did not verify: %v", err)
		}
		if c.Agent != toValidUTF8(token) || c.Kind != KindConfirm {
			t.Fatalf("claims changed: %+v", c)
		}
	})
}

// toValidUTF8 is what a JSON round trip makes of s.
func toValidUTF8(s string) string {
	b, _ := json.Marshal(s)
	var out string
	_ = json.Unmarshal(b, &out)
	return out
}
