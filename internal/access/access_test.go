package access

import (
	"context"
	"testing"
)

func TestOwns(t *testing.T) {
	for _, tc := range []struct {
		c     Caller
		owner string
		want  bool
	}{
		{Caller{Owner: "token:a"}, "token:a", true},
		{Caller{Owner: "token:a"}, "token:b", false},
		{Caller{Owner: "token:a"}, Operator, false},
		{Caller{Owner: "token:a", Admin: true}, Operator, true},
		{Caller{Owner: "token:a", Admin: true}, "token:b", true},
		{Caller{Owner: Anonymous}, "user:x", false},
	} {
		if got := tc.c.Owns(tc.owner); got != tc.want {
			t.Errorf("%+v.Owns(%q) = %v, want %v", tc.c, tc.owner, got, tc.want)
		}
	}
}

func TestAuthenticated(t *testing.T) {
	for owner, want := range map[string]bool{
		TokenOwner("ab12"): true, "token:": false, "user:token:x": false, Operator: false, Anonymous: false, "": false,
	} {
		if got := Authenticated(owner); got != want {
			t.Errorf("Authenticated(%q) = %v, want %v", owner, got, want)
		}
	}
}

func TestMayCall(t *testing.T) {
	scoped := Caller{Scope: &Scope{Agents: []string{"reviewer", "fixer/explain", "doc*/write"}, Models: []string{"gpt-4o*"}}}
	for _, tc := range []struct {
		c              Caller
		agent, command string
		want           bool
	}{
		{Caller{}, "anything", "any", true},
		{Caller{Scope: &Scope{}}, "reviewer", "", false},
		{scoped, "reviewer", "", true},
		{scoped, "reviewer", "review", true},
		{scoped, "fixer", "", true},
		{scoped, "fixer", "explain", true},
		{scoped, "fixer", "default", false},
		{scoped, "docs", "write", true},
		{scoped, "docs", "read", false},
		{scoped, "other", "", false},
		{scoped, "reviewer2", "default", false},
		{Caller{Scope: &Scope{Agents: []string{"*"}}}, "x", "y", true},
	} {
		if got := tc.c.MayCall(tc.agent, tc.command); got != tc.want {
			t.Errorf("%v.MayCall(%q, %q) = %v, want %v", tc.c.Scope, tc.agent, tc.command, got, tc.want)
		}
	}
	for model, want := range map[string]bool{"gpt-4o": true, "gpt-4o-mini": true, "gpt-5": false, "": false} {
		if got := scoped.MayUseModel(model); got != want {
			t.Errorf("MayUseModel(%q) = %v, want %v", model, got, want)
		}
	}
	if !(Caller{}).MayUseModel("any") {
		t.Error("a caller without a scope may not use a model")
	}
}

func TestOwners(t *testing.T) {
	for owner, want := range map[string]bool{
		MemberOwner("alice"): true, TeamOwner("platform"): true, "member:": false, "team:": false,
	} {
		if got := Authenticated(owner); got != want {
			t.Errorf("Authenticated(%q) = %v, want %v", owner, got, want)
		}
	}
}

func TestContext(t *testing.T) {
	if _, ok := FromContext(context.Background()); ok {
		t.Fatal("a caller in an empty context")
	}
	c := Caller{Owner: MemberOwner("alice"), KeyID: "k1", User: "alice", Team: "platform"}
	got, ok := FromContext(NewContext(context.Background(), c))
	if !ok || got != c {
		t.Fatalf("FromContext = %+v, %v; want %+v", got, ok, c)
	}
}

func TestMayCallAll(t *testing.T) {
	scoped := Caller{Scope: &Scope{Agents: []string{"reviewer", "fixer/explain", "doc*/*"}}}
	for _, tc := range []struct {
		c     Caller
		agent string
		want  bool
	}{
		{Caller{}, "anything", true},
		{Caller{Scope: &Scope{}}, "reviewer", false},
		{scoped, "reviewer", true},
		{scoped, "fixer", false},
		{scoped, "docs", true},
		{scoped, "other", false},
	} {
		if got := tc.c.MayCallAll(tc.agent); got != tc.want {
			t.Errorf("%v.MayCallAll(%q) = %v, want %v", tc.c.Scope, tc.agent, got, tc.want)
		}
	}
}
