package contextvars

import (
	"os"
	"testing"

	"github.com/agentgw/agentgw/internal/golden"
)

func TestMarshalJSONGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/full.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/full.golden.json", append(out, '\n'))
}

func TestMarshalJSONOrder(t *testing.T) {
	s := mustDecode(t, `[{"name":"zeta","value":1},{"name":"vcs","value":{"type":"git"}},{"name":"userInfo","value":null}]`)
	s.PackageFiles = []PackageFile{}
	s.UserInputPrompt = "hi"
	s.Other["alpha"] = true
	s.Other["beta"] = nil
	s.VCS = nil // removed by code
	out, err := s.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"name":"zeta","value":1},{"name":"userInputPrompt","value":"hi"},{"name":"packageFiles","value":[]},` +
		`{"name":"alpha","value":true},{"name":"beta","value":null}]`
	if string(out) != want {
		t.Errorf("MarshalJSON =\n%s\nwant\n%s", out, want)
	}
	if got := s.Names(); len(got) != 5 || got[0] != "zeta" || got[4] != "beta" {
		t.Errorf("Names = %q", got)
	}
	if s.Has(NameVCS) || s.Has(NameUserInfo) || !s.Has("beta") || !s.Has(NameUserInputPrompt) {
		t.Errorf("Has is wrong")
	}
}

func TestMarshalJSONEmpty(t *testing.T) {
	out, err := (&Set{}).MarshalJSON()
	if err != nil || string(out) != "[]" {
		t.Errorf("MarshalJSON = %s, %v", out, err)
	}
}
