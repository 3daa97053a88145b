package deptest

import (
	"slices"
	"testing"
)

func TestAllowed(t *testing.T) {
	for _, tc := range []struct {
		dep     string
		allowed []string
		want    bool
	}{
		{"github.com/x/y", []string{"github.com/x/y"}, true},
		{"github.com/x/y/z", []string{"github.com/x/y"}, false},
		{"github.com/x/y/z", []string{"github.com/x/y/..."}, true},
		{"github.com/x/y", []string{"github.com/x/y/..."}, true},
		{"github.com/x/yz", []string{"github.com/x/y/..."}, false},
		{"github.com/x/y", nil, false},
	} {
		if got := Allowed(tc.dep, tc.allowed); got != tc.want {
			t.Errorf("Allowed(%q, %q) = %v, want %v", tc.dep, tc.allowed, got, tc.want)
		}
	}
}

// TestList: the lister sees a real dependency, so a Check cannot pass
// because it saw nothing.
func TestList(t *testing.T) {
	deps, err := List(Module + "/internal/deptest")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(deps, Module+"/internal/deptest") {
		t.Fatalf("List gave %q, without the package itself", deps)
	}
	deps, err = List(Module + "/llm")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(deps, "github.com/sashabaranov/go-openai") {
		t.Fatalf("List(llm) gave %q, without go-openai", deps)
	}
}

// TestHeavyMatches: the Heavy list matches what the runtimes really link
// (the tools package links wazero), so a Forbid cannot pass because its
// patterns name nothing.
func TestHeavyMatches(t *testing.T) {
	deps, err := List(Module + "/tools")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(deps, func(d string) bool { return Allowed(d, Heavy) }) {
		t.Fatalf("no dependency of tools matches Heavy %q: %q", Heavy, deps)
	}
}
