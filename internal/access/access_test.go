package access

import "testing"

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
